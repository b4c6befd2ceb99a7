package memstream

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	replyfmt "github.com/samem/trainer/internal/reply"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = template.Must(template.New("").Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).ParseFS(promptFS, "prompts/*.tmpl"))

// Purposes of the LLM calls.
const (
	PurposeImportance = "memstream.importance"
	PurposeQuestions  = "memstream.questions"
	PurposeInsights   = "memstream.insights"
)

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// RenderImportance renders the importance prompt (seed 001 Sec. 4.1).
func RenderImportance(goal, memory string) (string, error) {
	return render("importance.tmpl", struct{ Goal, Memory string }{goal, memory})
}

// RenderQuestions renders the reflection-question prompt (seed 001 Sec. 4.2).
func RenderQuestions(memories []string) (string, error) {
	return render("questions.tmpl", struct{ Memories []string }{memories})
}

// RenderInsights renders the insight prompt (seed 001 Sec. 4.2).
func RenderInsights(goal string, memories []string) (string, error) {
	return render("insights.tmpl", struct {
		Goal     string
		Memories []string
	}{goal, memories})
}

var reInt = regexp.MustCompile(`\d+`)

// ParseRating reads the first integer of a rating reply, clamped to 1..10;
// ok is false when there is none.
func ParseRating(reply string) (float64, bool) {
	m := reInt.FindString(reply)
	if m == "" {
		return 0, false
	}
	n, err := strconv.Atoi(m)
	if err != nil {
		return 10, true // an integer too long to parse is above 10
	}
	return float64(max(1, min(10, n))), true
}

var reLead = regexp.MustCompile(`^\s*(?:\d+[.)]|[-*•])\s*`)

// noteLines counts a reply read as a list: unusable when nothing was
// found in it (nothing is stored), repaired when decoration was dropped.
func noteLines(ctx context.Context, purpose, reply string, found int) {
	replyfmt.Note(ctx, purpose, reply, found > 0, llm.Skipped)
}

// ParseQuestions reads one question per line (numbering and bullets
// dropped), at most n. Fences, chat preambles and closing remarks are never
// questions (internal/reply).
func ParseQuestions(reply string, n int) []string {
	var out []string
	reply, _ = replyfmt.Clean(reply)
	for _, l := range strings.Split(reply, "\n") {
		l = strings.TrimSpace(reLead.ReplaceAllString(l, ""))
		l, _ = replyfmt.Unemphasize(l)
		if !replyfmt.Junk(l) && len(out) < n {
			out = append(out, l)
		}
	}
	return out
}

var reBecause = regexp.MustCompile(`(?i)\(\s*because of ([^)]*)\)`)

// Insight is one reflection: a statement and the 1-based numbers of the
// statements it cites.
type Insight struct {
	Text     string
	Evidence []int
}

// ParseInsights reads lines "insight (because of 1, 5, 3)"; citations
// outside 1..n are dropped, and a line without citations is kept with none.
//
// Fences, chat preambles ("Sure! Here are my insights:") and closing remarks
// are never insights: they would become reflection memories (issue 19).
func ParseInsights(reply string, n int) []Insight {
	var out []Insight
	reply, _ = replyfmt.Clean(reply)
	for _, l := range strings.Split(reply, "\n") {
		l = strings.TrimSpace(reLead.ReplaceAllString(l, ""))
		l, _ = replyfmt.Unemphasize(l)
		if replyfmt.Junk(l) {
			continue
		}
		var ev []int
		if m := reBecause.FindStringSubmatchIndex(l); m != nil {
			for _, x := range reInt.FindAllString(l[m[2]:m[3]], -1) {
				if v, err := strconv.Atoi(x); err == nil && v >= 1 && v <= n {
					ev = append(ev, v)
				}
			}
			l = strings.TrimSpace(l[:m[0]] + l[m[1]:])
		}
		l = strings.TrimRight(l, " .")
		if !replyfmt.Junk(l) {
			out = append(out, Insight{Text: l, Evidence: ev})
		}
	}
	return out
}

// Roles are the LLM-dependent parts of the memory stream.
type Roles interface {
	Importance(ctx context.Context, goal, memory string) (float64, error)
	Questions(ctx context.Context, memories []string) ([]string, error)
	Insights(ctx context.Context, goal string, memories []string) ([]Insight, error)
}

// LLM implements Roles with a chat model. Its prompts (prompts/) are this
// project's own wording of seed 001 Sec. 4.1-4.2's importance, question and
// insight prompts, keeping their scales and reply forms.
type LLM struct {
	Chat        llm.Chatter
	Temperature float64
}

func (l *LLM) ask(ctx context.Context, purpose, prompt string) (string, error) {
	r, err := l.Chat.Chat(ctx, llm.Request{Purpose: purpose, Messages: []llm.Message{{Role: "user", Content: prompt}}, Temperature: l.Temperature})
	if err != nil {
		return "", fmt.Errorf("%s: %w", purpose, err)
	}
	return r.Text, nil
}

// Importance asks for a 1..10 rating; an unreadable reply rates the scale's
// middle, 5, so that one bad reply neither hides nor inflates a memory.
func (l *LLM) Importance(ctx context.Context, goal, memory string) (float64, error) {
	p, err := RenderImportance(goal, memory)
	if err != nil {
		return 0, err
	}
	r, err := l.ask(ctx, PurposeImportance, p)
	if err != nil {
		return 0, err
	}
	if v, ok := ParseRating(r); ok {
		_, repaired := replyfmt.Clean(r)
		llm.NoteParsed(ctx, PurposeImportance, repaired)
		return v, nil
	}
	llm.NoteUnusable(ctx, PurposeImportance, llm.FellBack) // the middle of the scale
	return 5, nil
}

// Questions asks for the reflection questions.
func (l *LLM) Questions(ctx context.Context, memories []string) ([]string, error) {
	p, err := RenderQuestions(memories)
	if err != nil {
		return nil, err
	}
	r, err := l.ask(ctx, PurposeQuestions, p)
	if err != nil {
		return nil, err
	}
	qs := ParseQuestions(r, defaultQuestions)
	noteLines(ctx, PurposeQuestions, r, len(qs))
	return qs, nil
}

// Insights asks for insights citing evidence.
func (l *LLM) Insights(ctx context.Context, goal string, memories []string) ([]Insight, error) {
	p, err := RenderInsights(goal, memories)
	if err != nil {
		return nil, err
	}
	r, err := l.ask(ctx, PurposeInsights, p)
	if err != nil {
		return nil, err
	}
	ins := ParseInsights(r, len(memories))
	noteLines(ctx, PurposeInsights, r, len(ins))
	return ins[:min(len(ins), DefaultInsights)], nil
}
