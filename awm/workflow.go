package awm

import (
	"regexp"
	"strconv"
	"strings"

	replyfmt "github.com/samem/trainer/internal/reply"
)

// Workflow is one induced sub-routine (spec §2): a name, one sentence on
// what it achieves and when it applies, and its steps, each a situation,
// the reasoning and an action with {variables} in place of the values
// particular to one task.
type Workflow struct {
	Name        string
	Description string
	Steps       []WStep
}

// WStep is one step of a workflow.
type WStep struct {
	State, Reasoning, Action string
}

// MinSteps is the fewest steps a workflow has (the induction prompt: "at
// least 2 steps"); a shorter one is dropped.
const MinSteps = 2

// Render writes a workflow as the acting prompt shows it and the
// induction prompt asks for it.
func (w Workflow) Render() string {
	var b strings.Builder
	b.WriteString("Workflow: " + w.Name)
	if w.Description != "" {
		b.WriteString("\nDescription: " + w.Description)
	}
	for i, s := range w.Steps {
		b.WriteString("\n" + strconv.Itoa(i+1) + ".")
		if s.State != "" {
			b.WriteString(" State: " + s.State)
		}
		if s.Reasoning != "" {
			b.WriteString(" Reasoning: " + s.Reasoning)
		}
		b.WriteString(" Action: " + s.Action)
	}
	return b.String()
}

// RenderAll writes workflows separated by blank lines, the group's
// workflow text.
func RenderAll(ws []Workflow) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.Render()
	}
	return strings.Join(parts, "\n\n")
}

var (
	reName   = regexp.MustCompile(`(?i)^(?:#+\s*)?(?:workflow(?:\s*\d+)?\s*[:.\-]|name\s*:)\s*(.*)$`)
	reDesc   = regexp.MustCompile(`(?i)^description\s*:\s*(.*)$`)
	reStep   = regexp.MustCompile(`^(?:\d+[.)]|[-*])\s+(.*)$`)
	reFields = regexp.MustCompile(`(?i)\b(state|reasoning|action)\s*:\s*`)
)

// Bounds on what one reply may put into memory: a runaway reply cannot
// crowd every later prompt.
const (
	maxWorkflows = 20
	maxStepsOf   = 20
	maxFieldLen  = 300
)

// ParseWorkflows reads a "Summary Workflows" reply: a "Workflow:" line
// starts a workflow, a "Description:" line describes it, numbered or
// bulleted lines are its steps ("State: ... Reasoning: ... Action: ...",
// or a bare action). A workflow without a name or with fewer than MinSteps
// steps with an action is dropped; so is anything before the first
// workflow. It returns the workflows and how many it dropped.
func ParseWorkflows(reply string) (ws []Workflow, dropped int) {
	text, _ := replyfmt.Clean(strings.ToValidUTF8(reply, ""))
	var cur *Workflow
	flush := func() {
		if cur == nil {
			return
		}
		if cur.Name == "" || len(cur.Steps) < MinSteps || len(ws) >= maxWorkflows {
			dropped++
		} else {
			ws = append(ws, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.NewReplacer("**", "", "__", "", "`", "").Replace(line))
		if line == "" {
			continue
		}
		if m := reName.FindStringSubmatch(line); m != nil {
			flush()
			cur = &Workflow{Name: field(m[1])}
			continue
		}
		if cur == nil {
			continue
		}
		if m := reDesc.FindStringSubmatch(line); m != nil {
			cur.Description = field(m[1])
			continue
		}
		m := reStep.FindStringSubmatch(line)
		if m == nil {
			if cur.Description == "" && len(cur.Steps) == 0 {
				cur.Description = field(line)
			}
			continue
		}
		if s, ok := parseStep(m[1]); ok && len(cur.Steps) < maxStepsOf {
			cur.Steps = append(cur.Steps, s)
		}
	}
	flush()
	return ws, dropped
}

// parseStep reads "State: ... Reasoning: ... Action: ..." (any of the
// labels may be missing; unlabelled text is the action).
func parseStep(s string) (WStep, bool) {
	idx := reFields.FindAllStringSubmatchIndex(s, -1)
	if len(idx) == 0 {
		a := field(s)
		return WStep{Action: a}, a != ""
	}
	var st WStep
	for i, m := range idx {
		end := len(s)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		v := field(s[m[1]:end])
		switch strings.ToLower(s[m[2]:m[3]]) {
		case "state":
			st.State = v
		case "reasoning":
			st.Reasoning = v
		case "action":
			st.Action = v
		}
	}
	return st, st.Action != ""
}

// field folds white space, drops a trailing separator and bounds a field.
func field(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimRight(s, " ;,|")
	if len(s) > maxFieldLen {
		cut := maxFieldLen
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut]
	}
	return strings.TrimSpace(s)
}

// tokens counts tokens as characters / 4.
func tokens(s string) int { return len(s) / 4 }

// capTokens keeps the last workflows whose text fits in n tokens (spec §7:
// the most recently induced text is kept).
func capTokens(ws []Workflow, n int) []Workflow {
	total := 0
	for i := len(ws) - 1; i >= 0; i-- {
		total += tokens(ws[i].Render()) + 1
		if total > n {
			return ws[i+1:]
		}
	}
	return ws
}
