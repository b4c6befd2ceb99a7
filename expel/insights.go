package expel

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	replyfmt "github.com/samem/trainer/internal/reply"
)

// Insight is one rule of the list with its importance count (the code's
// "rules"): a new insight starts at 2, AGREE and EDIT add 1, REMOVE takes 1
// (3 when the list is over capacity), and an insight at 0 is deleted.
type Insight struct {
	Text  string
	Count int
}

// OpKind is an edit operation of the insight list. The paper's UPVOTE and
// DOWNVOTE are the code's AGREE and REMOVE.
type OpKind string

const (
	OpAdd    OpKind = "ADD"
	OpEdit   OpKind = "EDIT"
	OpAgree  OpKind = "AGREE"
	OpRemove OpKind = "REMOVE"
)

// Op is one proposed edit: the operation, the 1-based number of the
// insight it names (0: none), and the insight's text.
type Op struct {
	Kind   OpKind
	Number int
	Text   string
}

// newCount is the count an added insight starts with (update_rules).
const newCount = 2

// Apply edits list with ops as the code's update_rules does (spec §3.2) and
// returns the new list, sorted by count (stable), and how many operations
// were applied. ops are read as ParseOps leaves them; each is validated
// against list first:
//   - an op "matches" an insight when the insight's text occurs in the op's text;
//   - ADD that matches an insight is dropped;
//   - EDIT that matches an insight becomes AGREE on it; EDIT with no number,
//     or a number beyond the list, is dropped;
//   - AGREE and REMOVE resolve to the first insight they match, by text;
//     those that match none are dropped.
//
// Then all REMOVEs apply (count - 1, or - 3 when the list holds
// maxInsights + 5 or more), then AGREE (+1), EDIT (text replaced, +1) and
// ADD (appended at newCount); insights at 0 or below are deleted.
func Apply(list []Insight, ops []Op, maxInsights int) ([]Insight, int) {
	list = slices.Clone(list)
	match := func(text string) int {
		for i, x := range list {
			if x.Text != "" && strings.Contains(text, x.Text) {
				return i
			}
		}
		return -1
	}
	type target struct {
		op Op
		i  int
	}
	var removes, agrees, edits []target
	var adds []Op
	for _, op := range ops {
		switch op.Kind {
		case OpAdd:
			if match(op.Text) < 0 {
				adds = append(adds, op)
			}
		case OpEdit:
			if i := match(op.Text); i >= 0 {
				agrees = append(agrees, target{op, i})
			} else if op.Number >= 1 && op.Number <= len(list) {
				edits = append(edits, target{op, op.Number - 1})
			}
		case OpAgree:
			if i := match(op.Text); i >= 0 {
				agrees = append(agrees, target{op, i})
			}
		case OpRemove:
			if i := match(op.Text); i >= 0 {
				removes = append(removes, target{op, i})
			}
		}
	}
	penalty := 1
	if len(list) >= maxInsights+5 {
		penalty = 3
	}
	for _, t := range removes {
		list[t.i].Count -= penalty
	}
	for _, t := range agrees {
		list[t.i].Count++
	}
	for _, t := range edits {
		list[t.i].Text = t.op.Text
		list[t.i].Count++
	}
	for _, op := range adds {
		list = append(list, Insight{Text: op.Text, Count: newCount})
	}
	list = slices.DeleteFunc(list, func(x Insight) bool { return x.Count <= 0 })
	sort.SliceStable(list, func(a, b int) bool { return list[a].Count > list[b].Count })
	if len(list) == 0 {
		list = nil
	}
	return list, len(removes) + len(agrees) + len(edits) + len(adds)
}

// opLine reads one operation line: the operation (the paper's or the
// code's name), an optional number, and the text after a colon.
var opLine = regexp.MustCompile(`(?i)^\W*(ADD|EDIT|AGREE|REMOVE|UPVOTE|DOWNVOTE)\b\W*?(?:(?:rule|insight|number|no\.?)\s*)?#?(\d+)?\s*[:.)\-–]\s*(.*)$`)

var opNames = []string{"ADD", "EDIT", "AGREE", "REMOVE", "UPVOTE", "DOWNVOTE"}

// maxInsightLen bounds an insight in bytes, so that a runaway line cannot
// crowd every later prompt.
const maxInsightLen = 400

// ParseOps reads an extraction reply's operations, one a line, as the
// code's parser does: lines with no recognised operation are skipped, and
// so is an operation whose text is empty, holds an operation keyword (two
// operations run together), or does not end with a period (a cut-off
// sentence). It returns the operations and how many lines it dropped.
func ParseOps(reply string) (ops []Op, dropped int) {
	text, _ := replyfmt.Clean(strings.ToValidUTF8(reply, ""))
	for _, line := range strings.Split(text, "\n") {
		line, _ = replyfmt.Unemphasize(strings.TrimSpace(line))
		line = strings.NewReplacer("**", "", "__", "", "`", "").Replace(line)
		m := opLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		op, ok := newOp(m[1], m[2], m[3])
		if !ok {
			dropped++
			continue
		}
		ops = append(ops, op)
	}
	return ops, dropped
}

// newOp checks one operation as ParseOps does.
func newOp(kind, number, text string) (Op, bool) {
	k := OpKind(strings.ToUpper(kind))
	switch k {
	case "UPVOTE":
		k = OpAgree
	case "DOWNVOTE":
		k = OpRemove
	case OpAdd, OpEdit, OpAgree, OpRemove:
	default:
		return Op{}, false
	}
	text = strings.Join(strings.Fields(text), " ")
	text = strings.TrimSpace(strings.Trim(text, `"'`))
	if text == "" || len(text) > maxInsightLen || !strings.HasSuffix(text, ".") {
		return Op{}, false
	}
	for _, n := range opNames {
		if strings.Contains(text, n) {
			return Op{}, false
		}
	}
	n := 0
	if number != "" {
		v, err := strconv.Atoi(number)
		if err != nil || v < 0 || v > 1000 {
			return Op{}, false
		}
		n = v
	}
	return Op{Kind: k, Number: n, Text: text}, true
}

// String writes an op as the prompt's format asks for it.
func (o Op) String() string {
	if o.Number > 0 {
		return fmt.Sprintf("%s %d: %s", o.Kind, o.Number, o.Text)
	}
	return fmt.Sprintf("%s: %s", o.Kind, o.Text)
}
