package clin

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	replyfmt "github.com/samem/trainer/internal/reply"
)

// relation finds the relation of a causal abstraction in a line, in any of the
// spellings the paper's prompts invite (Fig. 7-9: "MAY BE NECESSARY", "SHOULD
// BE NECESSARY", "MAY BE CONTRIBUTE", "MAY NOT CONTRIBUTE", "DOES NOT
// CONTRIBUTE") and the ones models write anyway ("is necessary", "doesn't
// contribute", "might not contribute", "is not necessary").
var relation = regexp.MustCompile(`(?i)\b(?:(may|might|could|should|must|will|does|do|did|is|are|was|were)\s+)?(?:(not)\s+|(?:also\s+)?)?(?:be\s+)?(necessary|contributes?|contributing)\b|\b(doesn't|don't|didn't|isn't|aren't)\s+(?:be\s+)?(necessary|contributes?)\b`)

var (
	listMarker = regexp.MustCompile(`^\s*(?:[-*•]+\s*|\(?\d{1,3}[.):]\s*|\d{1,3}\s+-\s*)+`)
	// inlineItem splits "1. a ... 2. b ..." written on one line.
	inlineItem = regexp.MustCompile(`\s(\d{1,3})[.)]\s+`)
)

// ParseAbstraction reads one causal abstraction from a line of model output,
// ignoring list markers, markdown emphasis and a trailing period. ok is false
// when the line holds no relation or X or Y is empty. The result has Trial 0
// and Reward 0; the caller sets the provenance.
func ParseAbstraction(line string) (a Abstraction, ok bool) {
	s := strings.NewReplacer("**", "", "__", "", "`", "", "\u2019", "'").Replace(line)
	s = listMarker.ReplaceAllString(s, "")
	s = strings.TrimSpace(s)
	loc := relation.FindStringSubmatchIndex(s)
	if loc == nil {
		return Abstraction{}, false
	}
	sub := func(i int) string {
		if loc[2*i] < 0 {
			return ""
		}
		return strings.ToLower(s[loc[2*i]:loc[2*i+1]])
	}
	aux, neg, word := sub(1), sub(2) != "", sub(3)
	if sub(4) != "" { // contracted negation: "doesn't contribute"
		aux, neg, word = strings.TrimSuffix(sub(4), "n't"), true, sub(5)
	}
	var mod Modifier
	switch aux {
	case "may", "might", "could":
		mod = ModMay
	case "should", "must", "will":
		mod = ModShould
	}
	kind := Necessary
	if neg {
		kind = NotContribute
	} else if strings.HasPrefix(word, "contribut") && mod == ModNone {
		// "X contributes to Y" without a modifier is a weaker claim than
		// necessity: read as "may be necessary".
		mod = ModMay
	}
	x := cleanSide(s[:loc[0]])
	y := strings.TrimSpace(s[loc[1]:])
	for _, p := range []string{"to", "for", "towards", "toward"} {
		if strings.EqualFold(y, p) {
			y = ""
			break
		}
		if len(y) > len(p) && strings.EqualFold(y[:len(p)], p) && (y[len(p)] == ' ' || y[len(p)] == '\t') {
			y = y[len(p)+1:]
			break
		}
	}
	y = cleanSide(y)
	if x == "" || y == "" {
		return Abstraction{}, false
	}
	return Abstraction{Kind: kind, Modifier: mod, X: x, Y: y}, true
}

func cleanSide(s string) string {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, " \t\"'")
	s = strings.TrimRight(s, " .;:,!")
	return strings.TrimSpace(s)
}

// ParseMemory reads every causal abstraction in a model's reply (the numbered
// list of Fig. 7-9), one per line, also when several numbered items share a
// line. Lines without a relation (preambles, headings) are skipped.
func ParseMemory(text string) []Abstraction {
	text, _, _ = replyfmt.Strip(text) // reasoning is never a learning
	var out []Abstraction
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r", "\n"), "\n") {
		for _, part := range splitInline(line) {
			if a, ok := ParseAbstraction(part); ok {
				out = append(out, a)
			}
		}
	}
	return out
}

// splitInline cuts a line at inline item numbers that follow one another
// ("1. a. 2. b."), and leaves other lines whole.
func splitInline(line string) []string {
	locs := inlineItem.FindAllStringSubmatchIndex(line, -1)
	if len(locs) == 0 {
		return []string{line}
	}
	var parts []string
	start := 0
	for _, l := range locs {
		// Only split before a number that ends a sentence ("... Y. 2. X").
		before := strings.TrimSpace(line[start:l[0]])
		if before == "" || !strings.HasSuffix(before, ".") {
			continue
		}
		parts = append(parts, line[start:l[0]])
		start = l[0]
	}
	return append(parts, line[start:])
}

// Reply is the controller's answer in the format of the paper's controller
// prompt (Fig. 6): "I used learning id(s): 1, 3 $$$ rationale ### action".
type Reply struct {
	Used      []int  // 1-based ids of the learnings the model says it used
	Rationale string // the next goal and why: CLIN's g_{t+1}
	Action    string // the candidate action, before matching (Sec. 3.3)
}

var (
	usedIDs     = regexp.MustCompile(`(?i)learning\s*id\s*\(?s?\)?\s*:?([^$#\n]*)`)
	number      = regexp.MustCompile(`\d+`)
	actionLabel = regexp.MustCompile(`(?i)^(?:next\s+)?action\s*:\s*`)
)

// ParseReply reads a controller reply. ok is false when no action can be
// found. It is tolerant of missing sections: with no "###" the action is taken
// from an "Action:" line or, failing that, the last non-empty line.
func ParseReply(text string) (r Reply, ok bool) {
	text, _ = replyfmt.Clean(strings.ReplaceAll(text, "\r", ""))
	if a, ok := replyfmt.JSONString(text, "action", "next_action"); ok {
		r.Action = a
		r.Rationale, _ = replyfmt.JSONString(text, "rationale", "reason", "goal")
		return r, true
	}
	// "**Action:** go to drawer 1" reads as "Action: go to drawer 1".
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		ls[i], _ = replyfmt.Unemphasize(l)
	}
	text = strings.Join(ls, "\n")
	if m := usedIDs.FindStringSubmatch(text); m != nil {
		for _, n := range number.FindAllString(m[1], -1) {
			if v, err := strconv.Atoi(n); err == nil && v > 0 && v < 1000 {
				r.Used = append(r.Used, v)
			}
		}
	}
	body := text
	if i := strings.Index(body, "$$$"); i >= 0 {
		body = body[i+3:]
	} else if m := usedIDs.FindStringIndex(body); m != nil {
		body = body[m[1]:]
	}
	var act string
	if i := strings.LastIndex(body, "###"); i >= 0 {
		r.Rationale = strings.TrimSpace(body[:i])
		act = body[i+3:]
	} else {
		lines := nonEmptyLines(body)
		for i, l := range lines {
			if actionLabel.MatchString(l) {
				act = l
				r.Rationale = strings.Join(lines[:i], "\n")
				break
			}
		}
		if act == "" && len(lines) > 0 {
			act = lines[len(lines)-1]
			r.Rationale = strings.Join(lines[:len(lines)-1], "\n")
		}
	}
	r.Rationale = strings.TrimSpace(strings.Trim(r.Rationale, "$# \n"))
	lines := nonEmptyLines(strings.Trim(act, "#"))
	if len(lines) == 0 {
		return r, false
	}
	a := actionLabel.ReplaceAllString(lines[0], "")
	for prev := ""; prev != a; {
		prev = a
		a = strings.Trim(strings.TrimSpace(a), "`\"'*>.")
		a, _ = replyfmt.Unquote(a)
	}
	if a == "" {
		return r, false
	}
	r.Action = a
	return r, true
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// maxAdvice bounds one advice item, so that a reply that never ends a list
// item cannot put a page into every controller prompt.
const maxAdvice = 600

// ParseAdvice reads the free-form advice of the ablation of seed 004 Sec. 5
// question E (Fig. 13: a numbered list of hints, each a sentence or a few).
// An item starts at a list marker ("1.", "2)", "-", "*") and runs over the
// lines that follow it up to the next marker or a blank line; lines before
// the first marker (a preamble, a heading) are skipped. A reply without
// any marker gives one item per non-empty line. Decoration (fences,
// preambles, closing remarks, emphasis) is never an item. Items are
// returned with Kind Advice, their text in X, Trial 0 and Reward 0.
func ParseAdvice(text string) []Abstraction {
	text, _ = replyfmt.Clean(strings.ReplaceAll(text, "\r", "\n"))
	lines := strings.Split(text, "\n")
	marked := false
	for _, l := range lines {
		if listMarker.MatchString(l) && strings.TrimSpace(listMarker.ReplaceAllString(l, "")) != "" {
			marked = true
			break
		}
	}
	var out []Abstraction
	var cur []string
	flush := func() {
		s := strings.Join(strings.Fields(strings.Join(cur, " ")), " ")
		cur = nil
		s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
		s = strings.TrimSpace(s)
		if len(s) > maxAdvice {
			s = strings.TrimSpace(truncUTF8(s, maxAdvice)) + " ..."
		}
		if s == "" || junkLine(s) || strings.HasSuffix(s, ":") {
			return
		}
		out = append(out, Abstraction{Kind: Advice, X: s})
	}
	open := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "" || junkLine(t) && !listMarker.MatchString(t):
			flush()
			open = false
		case listMarker.MatchString(t):
			flush()
			cur, open = []string{listMarker.ReplaceAllString(t, "")}, true
		case !marked:
			flush()
			cur = []string{t}
			flush()
		case open:
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

// junkLine is replyfmt.Junk for text in any script: a line with letters
// or digits only outside ASCII is content.
func junkLine(s string) bool {
	ascii, other := 0, 0
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			ascii++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			other++
		}
	}
	if ascii == 0 {
		return other == 0
	}
	return replyfmt.Junk(s)
}

// truncUTF8 cuts s to at most n bytes without splitting a character.
func truncUTF8(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
