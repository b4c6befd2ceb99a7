package clin

import (
	"context"
	"embed"
	"fmt"
	replyfmt "github.com/samem/trainer/internal/reply"
	"strings"
	"text/template"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = template.Must(template.New("clin").Funcs(template.FuncMap{
	"inc": func(i int) int { return i + 1 },
}).ParseFS(promptFS, "prompts/*.tmpl"))

// Purposes of CLIN's model calls, for usage accounting.
const (
	PurposeController = "clin.controller"
	PurposeAdapt      = "clin.memory"
	PurposeMeta       = "clin.meta_memory"
	// PurposeMetaTask is the GEN-TASK meta-memory (Fig. 9).
	PurposeMetaTask = "clin.meta_memory_task"
	// PurposeAdvice and PurposeMetaAdvice are the memory generator of the
	// free-form-advice ablation (Sec. 5 question E), after a trial and for
	// a new task.
	PurposeAdvice     = "clin.advice"
	PurposeMetaAdvice = "clin.meta_advice"
)

func render(name string, data any) (string, error) {
	var b strings.Builder
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

func messages(role string, data any) ([]llm.Message, error) {
	sys, err := render(role+".system", data)
	if err != nil {
		return nil, err
	}
	user, err := render(role+".user", data)
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

// controllerData is what the controller prompt shows (Fig. 6).
type controllerData struct {
	Style       envbridge.Style
	Goal        string
	Learnings   []string
	Trace       []Step
	Observation string
	Admissible  []string
	Rejected    []string
}

// ControllerMessages renders the controller prompt of one step.
func ControllerMessages(in ControllerInput) ([]llm.Message, error) {
	d := controllerData{
		Style: in.Style, Goal: in.Task.Goal, Trace: in.Trace,
		Observation: strings.TrimSpace(in.Obs.Text), Admissible: in.Obs.Admissible, Rejected: in.Rejected,
	}
	for _, a := range in.Memory {
		d.Learnings = append(d.Learnings, a.String())
	}
	return messages("controller", d)
}

// LLMController is the controller (and the executor's candidate generator)
// on a chat model, with the paper's prompt (Fig. 6).
type LLMController struct {
	Chat        llm.Chatter
	Temperature float64
}

// Next implements Controller. A reply without an action is not an error: the
// proposal is empty and the executor asks again with feedback.
func (c *LLMController) Next(ctx context.Context, in ControllerInput) (Proposal, error) {
	msgs, err := ControllerMessages(in)
	if err != nil {
		return Proposal{}, err
	}
	resp, err := c.Chat.Chat(ctx, llm.Request{Purpose: PurposeController, Messages: msgs, Temperature: c.Temperature, MaxTokens: 256})
	if err != nil {
		return Proposal{}, fmt.Errorf("controller: %w", err)
	}
	r, ok := ParseReply(resp.Text)
	if !ok {
		llm.NoteUnusable(ctx, PurposeController, llm.FellBack)
		return Proposal{}, nil
	}
	_, repaired := replyfmt.Clean(resp.Text)
	llm.NoteParsed(ctx, PurposeController, repaired)
	var used []int
	for _, id := range r.Used {
		if id <= len(in.Memory) {
			used = append(used, id)
		}
	}
	goal := r.Rationale
	if goal == "" {
		goal = r.Action
	}
	return Proposal{Goal: goal, Action: r.Action, Used: used}, nil
}

type memoryData struct {
	Trial int
	Items []string
}

type adaptData struct {
	Advice   bool
	Goal     string
	Episode  int
	Previous []memoryData
	Trace    []Step
	Score    int
	Feedback string
}

func itemTexts(items []Abstraction) []string {
	out := make([]string, len(items))
	for i, a := range items {
		out[i] = a.String()
	}
	return out
}

// AdaptMessages renders the memory generator prompt of ADAPT (Fig. 7).
func AdaptMessages(in AdaptInput) ([]llm.Message, error) {
	d := adaptData{
		Advice: in.Advice, Goal: in.Task.Goal, Episode: in.Trial, Trace: in.Trace,
		Score: scoreOf(in.Reward, in.Won), Feedback: Feedback(in.Reward, in.Won),
	}
	for _, m := range in.Previous {
		d.Previous = append(d.Previous, memoryData{Trial: m.Trial, Items: itemTexts(m.Items)})
	}
	return messages("adapt", d)
}

type archivedData struct {
	Goal     string
	Items    []string
	Score    int
	Feedback string
}

type metaData struct {
	Advice        bool
	Goal          string
	TypeExample   string
	ObjectExample string
	Archive       []archivedData
}

// MetaMessages renders the meta-memory prompt of GEN-ENV (Fig. 8), or of
// GEN-TASK (Fig. 9) when in.GenTask is set. The examples in Fig. 8's
// wording follow the environment's style. With in.Advice the constraint to
// causal abstractions is replaced by a request for free-form advice (Sec. 5
// question E).
func MetaMessages(in MetaInput) ([]llm.Message, error) {
	d := metaData{Advice: in.Advice, Goal: in.Task.Goal, TypeExample: "boiling", ObjectExample: "lighter instead of a stove"}
	if in.Style == envbridge.StyleHousehold {
		d.TypeExample, d.ObjectExample = "heating", "a different object to heat, a microwave on another side of the room"
	}
	for _, a := range in.Archive {
		d.Archive = append(d.Archive, archivedData{
			Goal: a.Task.Goal, Items: itemTexts(a.Items),
			Score: scoreOf(a.Reward, a.Reward >= 1), Feedback: Feedback(a.Reward, a.Reward >= 1),
		})
	}
	if in.GenTask {
		return messages("gentask", d)
	}
	return messages("meta", d)
}

// LLMGenerator is the memory generator on a chat model (Fig. 7, Fig. 8).
type LLMGenerator struct {
	Chat        llm.Chatter
	Temperature float64
	MaxTokens   int
}

// Adapt implements Generator (Eq. 2). Every parsed item carries the trial and
// its reward. With in.Advice the reply is read as free-form advice.
func (g *LLMGenerator) Adapt(ctx context.Context, in AdaptInput) ([]Abstraction, error) {
	msgs, err := AdaptMessages(in)
	if err != nil {
		return nil, err
	}
	purpose, parse := PurposeAdapt, ParseMemory
	if in.Advice {
		purpose, parse = PurposeAdvice, ParseAdvice
	}
	resp, err := g.Chat.Chat(ctx, llm.Request{Purpose: purpose, Messages: msgs, Temperature: g.Temperature, MaxTokens: g.MaxTokens})
	if err != nil {
		return nil, fmt.Errorf("memory generator: %w", err)
	}
	items := parse(resp.Text)
	noteMemory(ctx, purpose, resp.Text, len(items))
	for i := range items {
		items[i].Trial, items[i].Reward = in.Trial, in.Reward
	}
	return items, nil
}

// Meta implements Generator (Eq. 3). Items carry Trial -1 and the mean
// reward of the archive.
func (g *LLMGenerator) Meta(ctx context.Context, in MetaInput) ([]Abstraction, error) {
	msgs, err := MetaMessages(in)
	if err != nil {
		return nil, err
	}
	purpose, parse := PurposeMeta, ParseMemory
	switch {
	case in.Advice:
		purpose, parse = PurposeMetaAdvice, ParseAdvice
	case in.GenTask:
		purpose = PurposeMetaTask
	}
	resp, err := g.Chat.Chat(ctx, llm.Request{Purpose: purpose, Messages: msgs, Temperature: g.Temperature, MaxTokens: g.MaxTokens})
	if err != nil {
		return nil, fmt.Errorf("meta-memory generator: %w", err)
	}
	var mean float64
	for _, a := range in.Archive {
		mean += a.Reward
	}
	if len(in.Archive) > 0 {
		mean /= float64(len(in.Archive))
	}
	items := parse(resp.Text)
	noteMemory(ctx, purpose, resp.Text, len(items))
	for i := range items {
		items[i].Trial, items[i].Reward = -1, mean
	}
	return items, nil
}

// noteMemory counts a memory generator's or the selection's reply in the
// usage account: unusable when no item could be read from it (nothing is stored or
// shown: skipped).
func noteMemory(ctx context.Context, purpose, reply string, found int) {
	replyfmt.Note(ctx, purpose, reply, found > 0, llm.Skipped)
}
