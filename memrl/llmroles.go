package memrl

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/fold"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/thought"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

var prompts = template.Must(template.New("").
	Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).
	ParseFS(promptFS, "prompts/*.tmpl"))

// ScriptSchema and ReflectionSchema are the structured answers of the
// script ({"steps": [...]}) and reflection ({"reflection": "..."}) roles;
// the acting role answers thought.ThoughtActionSchema.
var (
	ScriptSchema     = replyfmt.LoadSchema(promptFS, "prompts/script.schema.json", "memrl_script")
	ReflectionSchema = replyfmt.LoadSchema(promptFS, "prompts/reflection.schema.json", "memrl_reflection")
)

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("memrl: render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// actMessages is the acting conversation (spec Sec. 4): the system prompt,
// the memories as a second system message when any were injected, the
// task with its first observation, then each reply and the observation it
// led to. Only the current observation lists the admissible actions. At
// most maxHistory steps are kept: the first and the latest.
func actMessages(style envbridge.Style, goal string, shown []Shown, steps []Step, admissible []string, maxHistory int) ([]llm.Message, error) {
	sys, err := render("act-system.tmpl", struct {
		Style         string
		PutAction     string
		HasAdmissible bool
	}{string(style), thought.PutAction(admissible), admissible != nil})
	if err != nil {
		return nil, err
	}
	msgs := []llm.Message{{Role: "system", Content: sys}}
	if len(shown) > 0 {
		var wins, losses []Shown
		for _, s := range shown {
			if s.Success {
				wins = append(wins, s)
			} else {
				losses = append(losses, s)
			}
		}
		mem, err := render("act-memories.tmpl", struct{ Wins, Losses []Shown }{wins, losses})
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, llm.Message{Role: "system", Content: mem})
	}
	last := len(steps) - 1
	adm := func(i int) []string {
		if i == last {
			return admissible
		}
		return nil
	}
	task, err := render("act-task.tmpl", struct {
		Goal, Text string
		Admissible []string
	}{goal, strings.TrimSpace(steps[0].Text), adm(0)})
	if err != nil {
		return nil, err
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: task})
	from := 1
	if maxHistory > 0 && len(steps) > maxHistory {
		from = len(steps) - (maxHistory - 1)
	}
	for i := from; i <= last; i++ {
		obs, err := render("act-observation.tmpl", struct {
			Omitted    int
			Text       string
			Admissible []string
		}{map[bool]int{true: from - 1}[i == from], strings.TrimSpace(steps[i].Text), adm(i)})
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: steps[i-1].Reply}, llm.Message{Role: "user", Content: obs})
	}
	return msgs, nil
}

func scriptMessages(goal, trajectory string) ([]llm.Message, error) {
	return pair("script", struct{ Goal, Trajectory string }{goal, trajectory})
}

func reflectMessages(goal, outcome, trajectory string) ([]llm.Message, error) {
	return pair("reflect", struct{ Goal, Outcome, Trajectory string }{goal, outcome, trajectory})
}

func pair(role string, data any) ([]llm.Message, error) {
	sys, err := render(role+"-system.tmpl", nil)
	if err != nil {
		return nil, err
	}
	user, err := render(role+"-user.tmpl", data)
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

// Errors of the reply parsers.
var (
	ErrEmptyScript     = errors.New("memrl: reply holds no script step")
	ErrEmptyReflection = errors.New("memrl: reply holds no reflection")
)

// Bounds of parsed replies, so that a runaway reply cannot crowd the
// acting prompt: at most maxSteps script steps of maxStepLen bytes, a
// reflection of maxReflectionLen bytes.
const (
	maxSteps         = 5
	maxStepLen       = 300
	maxReflectionLen = 800
)

// stepPrefix is a list marker or a step label at the start of a line.
var stepPrefix = regexp.MustCompile(`^(?i)(?:[-*•+]\s*|\(?\d{1,2}[.):]\s*|step\s*\d{1,2}\s*[.):-]?\s*)+`)

// ParseScript reads a script reply: one step per line, list markers,
// numbers, "Step N:" labels, emphasis and a leading "Script:" or "Plan:"
// line dropped; white space folded; at most five steps of bounded length.
// A reply with no step is ErrEmptyScript.
func ParseScript(reply string) ([]string, error) {
	s, _ := replyfmt.Clean(strings.ToValidUTF8(reply, ""))
	var steps []string
	for _, line := range strings.Split(s, "\n") {
		line, _ = replyfmt.Unemphasize(strings.TrimSpace(line))
		line = strings.NewReplacer("`", "", "**", "", "__", "").Replace(line)
		line = strings.TrimSpace(stepPrefix.ReplaceAllString(strings.TrimSpace(line), ""))
		for _, label := range []string{"script:", "plan:", "steps:"} {
			if len(line) >= len(label) && strings.EqualFold(line[:len(label)], label) {
				line = strings.TrimSpace(line[len(label):])
			}
		}
		line = strings.TrimSpace(strings.Trim(strings.Join(strings.Fields(line), " "), `"'`))
		if line == "" {
			continue
		}
		steps = append(steps, replyfmt.Clip(line, maxStepLen))
		if len(steps) == maxSteps {
			break
		}
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("script reply %q: %w", replyfmt.Short(reply, 80), ErrEmptyScript)
	}
	return steps, nil
}

// ParseScriptAnswer reads the script from the JSON's "steps" when the
// server answered the schema, else from the text.
func ParseScriptAnswer(a replyfmt.Answer) ([]string, bool, error) {
	var v struct {
		Steps []string `json:"steps"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		s, err := ParseScript(strings.Join(v.Steps, "\n"))
		return s, false, err
	}
	s, err := ParseScript(a.Text)
	_, repaired := replyfmt.Clean(a.Text)
	return s, repaired, err
}

// FormatScript writes steps as the numbered script memories store.
func FormatScript(steps []string) string {
	var b strings.Builder
	for i, s := range steps {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(strconv.Itoa(i+1) + ". " + s)
	}
	return b.String()
}

// ParseReflection reads a reflection reply: decoration, a leading
// "Reflection:" label and quotes dropped, white space folded, cut to
// maxReflectionLen bytes at a word boundary. An empty result is
// ErrEmptyReflection.
func ParseReflection(reply string) (string, error) {
	s, _ := replyfmt.Clean(strings.ToValidUTF8(reply, ""))
	s = strings.TrimSpace(strings.NewReplacer("`", "", "**", "", "__", "").Replace(s))
	if i := fold.Index(s, "reflection:"); i >= 0 && i < 40 {
		s = s[i+len("reflection:"):]
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimSpace(strings.Trim(s, `"'`))
	s = replyfmt.Clip(s, maxReflectionLen)
	if s == "" {
		return "", fmt.Errorf("reflection reply %q: %w", replyfmt.Short(reply, 80), ErrEmptyReflection)
	}
	return s, nil
}

// ParseReflectionAnswer reads the JSON's "reflection" when the server
// answered the schema, else the text.
func ParseReflectionAnswer(a replyfmt.Answer) (string, bool, error) {
	var v struct {
		Reflection string `json:"reflection"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		s, err := ParseReflection(v.Reflection)
		return s, false, err
	}
	s, err := ParseReflection(a.Text)
	_, repaired := replyfmt.Clean(a.Text)
	return s, repaired, err
}
