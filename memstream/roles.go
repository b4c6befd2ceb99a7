package memstream

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/samem/trainer/ariadne"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

// The JSON schemas of the memory stream's structured answers, beside its
// prompts (its planner and decision module use package ariadne's
// PlanSchema and DecideSchema, as AriGraph's do: their replies have the
// same form).
var (
	ImportanceSchema = replyfmt.LoadSchema(promptFS, "prompts/importance.schema.json", "memstream_importance")
	QuestionsSchema  = replyfmt.LoadSchema(promptFS, "prompts/questions.schema.json", "memstream_questions")
	InsightsSchema   = replyfmt.LoadSchema(promptFS, "prompts/insights.schema.json", "memstream_insights")
)

// errNothing makes a reply unusable: nothing could be read from it.
var errNothing = errors.New("nothing readable in the reply")

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
	reply, _, _ = replyfmt.Strip(reply) // never a number of the reasoning
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

// ParseRatingAnswer reads an importance answer: the JSON's "rating" when
// the server was asked for the schema and answered with it, else the text
// (ParseRating); clamped to 1..10.
func ParseRatingAnswer(a replyfmt.Answer) (v float64, repaired, ok bool) {
	var j struct {
		Rating *int `json:"rating"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &j) && j.Rating != nil {
		return float64(max(1, min(10, *j.Rating))), false, true
	}
	v, ok = ParseRating(a.Text)
	_, repaired = replyfmt.Clean(a.Text)
	return v, repaired, ok
}

// ParseQuestionsAnswer reads a question answer: the JSON's questions when
// the server was asked for the schema and answered with it, else the
// text's lines (ParseQuestions); at most n.
func ParseQuestionsAnswer(a replyfmt.Answer, n int) (qs []string, repaired bool) {
	var j struct {
		Questions []string `json:"questions"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &j) {
		for _, q := range j.Questions {
			if q = strings.Join(strings.Fields(q), " "); !replyfmt.Junk(q) && len(qs) < n {
				qs = append(qs, q)
			}
		}
		return qs, false
	}
	_, repaired = replyfmt.Clean(a.Text)
	return ParseQuestions(a.Text, n), repaired
}

// ParseInsightsAnswer reads an insight answer: the JSON's insights with
// their citations (those outside 1..n dropped) when the server was asked
// for the schema and answered with it, else the text (ParseInsights).
func ParseInsightsAnswer(a replyfmt.Answer, n int) (ins []Insight, repaired bool) {
	var j struct {
		Insights []struct {
			Insight   string `json:"insight"`
			BecauseOf []int  `json:"because_of"`
		} `json:"insights"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &j) {
		for _, x := range j.Insights {
			text := strings.TrimRight(strings.Join(strings.Fields(x.Insight), " "), " .")
			if replyfmt.Junk(text) {
				continue
			}
			var ev []int
			for _, v := range x.BecauseOf {
				if v >= 1 && v <= n {
					ev = append(ev, v)
				}
			}
			ins = append(ins, Insight{Text: text, Evidence: ev})
		}
		return ins, false
	}
	_, repaired = replyfmt.Clean(a.Text)
	return ParseInsights(a.Text, n), repaired
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
// are never insights: they would become reflection memories.
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

func (l *LLM) request(purpose, prompt string, schema *llm.Schema) llm.Request {
	return llm.Request{Purpose: purpose, Messages: []llm.Message{{Role: "user", Content: prompt}}, Temperature: l.Temperature, Schema: schema}
}

// Importance asks for a 1..10 rating; a reply with no rating is asked again
// within internal/reply's budget, and after that rates the scale's middle,
// 5, so that one bad reply neither hides nor inflates a memory (fell back).
func (l *LLM) Importance(ctx context.Context, goal, memory string) (float64, error) {
	p, err := RenderImportance(goal, memory)
	if err != nil {
		return 0, err
	}
	v := 5.0
	_, err = ariadne.Ask(ctx, l.Chat, l.request(PurposeImportance, p, ImportanceSchema), llm.FellBack, func(a replyfmt.Answer) (bool, error) {
		r, repaired, ok := ParseRatingAnswer(a)
		if !ok {
			return repaired, errNothing
		}
		v = r
		return repaired, nil
	})
	if err != nil {
		return 0, err
	}
	return v, nil
}

// Questions asks for the reflection questions; with none readable within
// the budget there are none (skipped).
func (l *LLM) Questions(ctx context.Context, memories []string) ([]string, error) {
	p, err := RenderQuestions(memories)
	if err != nil {
		return nil, err
	}
	var qs []string
	_, err = ariadne.Ask(ctx, l.Chat, l.request(PurposeQuestions, p, QuestionsSchema), llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		if qs, repaired = ParseQuestionsAnswer(a, defaultQuestions); len(qs) == 0 {
			return repaired, errNothing
		}
		return repaired, nil
	})
	if err != nil {
		return nil, err
	}
	return qs, nil
}

// Insights asks for insights citing evidence; with none readable within
// the budget there are none (skipped).
func (l *LLM) Insights(ctx context.Context, goal string, memories []string) ([]Insight, error) {
	p, err := RenderInsights(goal, memories)
	if err != nil {
		return nil, err
	}
	var ins []Insight
	_, err = ariadne.Ask(ctx, l.Chat, l.request(PurposeInsights, p, InsightsSchema), llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		if ins, repaired = ParseInsightsAnswer(a, len(memories)); len(ins) == 0 {
			return repaired, errNothing
		}
		return repaired, nil
	})
	if err != nil {
		return nil, err
	}
	return ins[:min(len(ins), DefaultInsights)], nil
}
