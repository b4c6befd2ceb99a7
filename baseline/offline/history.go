package offline

import (
	"slices"
	"strconv"
	"strings"

	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

// nothingHappens is the household world's answer to an invalid action, and
// ALFWorld's.
const nothingHappens = "Nothing happens."

// tracker records one episode's history and the offline rule that uses it:
// an action that had no effect in a situation is not taken again in that
// situation.
//
// An action had no effect when the environment answered "Nothing happens."
// or when the situation after it is the situation before it. In the
// household world the situation is what the agent knows of its progress,
// read from the text by package belief: where it is, whether that place is
// closed, what it holds, what it has cleaned, heated or cooled, what it has
// put in place, whether a lamp is on. "look", "inventory" and "examine"
// leave it unchanged; so does an action the world refuses.
//
// In other styles the situation is the latest observation text that an
// action changed. An answer has no effect when it repeats that text, or
// when it is a generic answer: one given to two different actions, each
// time differing from the text before it ("You can't go that way.", "I
// don't know that word."). After an action without effect the situation
// stays what it was, so that a refusal does not count as a new place.
type tracker struct {
	style envbridge.Style
	b     *belief.Belief // household only
	steps []baseline.Step
	// before is the situation in which the last action was taken.
	before string
	// spent holds situation+"\x00"+action for actions that had no effect there.
	spent map[string]bool
	// noEffect counts, by action class, the actions that had no effect.
	noEffect map[string]int
	// answers maps an answer text (other styles) to the actions that got
	// it from a different text.
	answers map[string]map[string]bool
	// progress flags for the offline reflection (household).
	found, held, processed, lamp, atDest bool
	placed                               int // most target objects in place at once
}

func newTracker(t envbridge.Task, style envbridge.Style) *tracker {
	tr := &tracker{style: style, spent: map[string]bool{}, noEffect: map[string]int{}, answers: map[string]map[string]bool{}}
	if style == envbridge.StyleHousehold {
		tr.b = belief.New(t.Goal)
	}
	return tr
}

// observe records that action (empty for the first observation) led to text.
func (t *tracker) observe(action, text string) {
	t.steps = append(t.steps, baseline.Step{Action: action, Text: text})
	if t.b != nil {
		t.b.Observe(action, text)
		t.noteProgress()
	}
	now := t.situation(text)
	if action == "" {
		t.before = now
		return
	}
	act := normalize(action)
	none := strings.TrimSpace(text) == nothingHappens || now == t.before
	if t.b == nil && now != t.before {
		if t.answers[now] == nil {
			t.answers[now] = map[string]bool{}
		}
		t.answers[now][act] = true
		none = none || len(t.answers[now]) >= 2
	}
	if none {
		t.spent[t.before+"\x00"+act] = true
		t.noEffect[actionClass(action)]++
		return
	}
	t.before = now
}

func (t *tracker) noteProgress() {
	b := t.b
	if b.HoldingTarget() || b.TargetHere() != "" || b.TargetSeenAt() != "" {
		t.found = true
	}
	if b.HoldingTarget() {
		t.held = true
		if !b.NeedsProcessing() && b.Goal.Type != hhtext.LookInLight {
			t.processed = true
		}
		if b.AtDestination() {
			t.atDest = true
		}
	}
	if b.LampOn && b.HoldingTarget() {
		t.lamp = true
	}
	t.placed = max(t.placed, len(b.Placed))
}

// situation is the key of the current situation (see tracker).
func (t *tracker) situation(text string) string {
	if t.b == nil {
		return strings.Join(strings.Fields(text), " ")
	}
	b := t.b
	var s strings.Builder
	s.WriteString(b.At + "|" + b.Holding + "|" + strconv.FormatBool(b.Closed[b.At]) + "|" + strconv.FormatBool(b.LampOn) + "|")
	keys := make([]string, 0, len(b.Processed))
	for k := range b.Processed {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s.WriteString(k + "=" + b.Processed[k] + ",")
	}
	s.WriteString("|" + strings.Join(b.Placed, ","))
	return s.String()
}

// isSpent reports whether action had no effect before in the current situation.
func (t *tracker) isSpent(action string) bool {
	return t.spent[t.before+"\x00"+normalize(action)]
}

// prune returns the admissible actions that are not spent here and not of an
// avoided class; when that leaves nothing, it returns adm unchanged (the
// rule only ever chooses among actions, it never blocks the agent).
func (t *tracker) prune(adm []string, avoid map[string]bool) []string {
	if adm == nil {
		return nil
	}
	out := make([]string, 0, len(adm))
	for _, a := range adm {
		if !t.isSpent(a) && !avoid[actionClass(a)] {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return adm
	}
	return out
}

// Action classes name what an action does without naming its object, for
// the de-indexicalised offline reflections.
const (
	classInventory = "inventory"
	classLook      = "look"
	classExamine   = "examine"
	classGo        = "go"
	classOpen      = "open"
	classClose     = "close"
	classTake      = "take"
	classPlace     = "place"
	classProcess   = "process"
	classUse       = "use"
	classOther     = "other"
)

// actionClass is the class of an action by its verb.
func actionClass(action string) string {
	f := strings.Fields(strings.ToLower(action))
	if len(f) == 0 {
		return classOther
	}
	switch f[0] {
	case "inventory", "i":
		return classInventory
	case "look", "l":
		return classLook
	case "examine", "x", "read":
		return classExamine
	case "go", "north", "south", "east", "west", "up", "down", "n", "s", "e", "w", "u", "d",
		"northeast", "northwest", "southeast", "southwest", "ne", "nw", "se", "sw":
		return classGo
	case "open":
		return classOpen
	case "close":
		return classClose
	case "take", "get", "pick":
		return classTake
	case "put", "move", "drop":
		return classPlace
	case "clean", "heat", "cool":
		return classProcess
	case "use":
		return classUse
	}
	return classOther
}

func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.TrimRight(strings.TrimSpace(s), ".!"))), " ")
}
