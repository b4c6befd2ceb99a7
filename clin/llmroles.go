package clin

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/samem/trainer/envbridge"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

// The JSON schemas of CLIN's structured answers, beside its prompts.
var (
	// ControllerSchema: the learnings used, the rationale and the action.
	ControllerSchema = replyfmt.LoadSchema(promptFS, "prompts/controller.schema.json", "clin_controller")
	// LearningsSchema: the memory generator's causal abstractions.
	LearningsSchema = replyfmt.LoadSchema(promptFS, "prompts/learnings.schema.json", "clin_learnings")
	// AdviceSchema: the free-form-advice ablation's hints.
	AdviceSchema = replyfmt.LoadSchema(promptFS, "prompts/advice.schema.json", "clin_advice")
	// SelectSchema: the numbers of the learnings relevant to the task.
	SelectSchema = replyfmt.LoadSchema(promptFS, "prompts/select.schema.json", "clin_select")
)

// errNoAction and errNoItems make a reply unusable (internal/reply asks
// again, then the role falls back).
var (
	errNoAction = errors.New("reply has no action")
	errNoItems  = errors.New("reply has no item")
)

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
	// Objects and Templates are the action language of a world without an
	// admissible list whose actions are templates (Fig. 6's objects_str and
	// actions_str): the driver's, else the style's templates.
	Objects   []string
	Templates []string
	Rejected  []string
}

// ControllerMessages renders the controller prompt of one step.
func ControllerMessages(in ControllerInput) ([]llm.Message, error) {
	d := controllerData{
		Style: in.Style, Goal: in.Task.Goal, Trace: in.Trace,
		Observation: strings.TrimSpace(in.Obs.Text), Admissible: in.Obs.Admissible, Rejected: in.Rejected,
	}
	if in.Obs.Admissible == nil {
		d.Objects, d.Templates = in.Obs.Objects, in.Obs.Templates
		if d.Templates == nil {
			d.Templates = envbridge.Forms(envbridge.Templates(in.Style))
		}
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

// Next implements Controller. A reply without an action (or cut off, or
// empty once its reasoning is out) is asked again within internal/reply's
// budget; after that it is not an error: the proposal is empty and the
// executor asks again with feedback.
func (c *LLMController) Next(ctx context.Context, in ControllerInput) (Proposal, error) {
	msgs, err := ControllerMessages(in)
	if err != nil {
		return Proposal{}, err
	}
	// With an admissible list the action is one of it by construction where
	// the server enforces the schema.
	schema := replyfmt.WithChoices(ControllerSchema, "action", in.Obs.Admissible)
	req := llm.Request{Purpose: PurposeController, Messages: msgs, Temperature: c.Temperature, MaxTokens: 256, Schema: schema}
	var r Reply
	_, err = replyfmt.Ask(ctx, c.Chat, req, 0, llm.FellBack, func(a replyfmt.Answer) (bool, error) {
		var ok, repaired bool
		if r, repaired, ok = ParseAnswer(a); !ok {
			return repaired, errNoAction
		}
		return repaired, nil
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return Proposal{}, nil
	}
	if err != nil {
		return Proposal{}, fmt.Errorf("controller: %w", err)
	}
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

// ParseAnswer reads a controller answer: the JSON of ControllerSchema when
// the server was asked for it and answered with it, else the text
// (ParseReply; repaired when the normaliser had to undo decoration). ok is
// false when no action can be read.
func ParseAnswer(a replyfmt.Answer) (r Reply, repaired, ok bool) {
	var v struct {
		Used      []int  `json:"used_learning_ids"`
		Rationale string `json:"rationale"`
		Action    string `json:"action"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		r.Action, repaired = replyfmt.Unquote(firstLineOf(v.Action))
		r.Rationale = strings.TrimSpace(v.Rationale)
		for _, id := range v.Used {
			if id > 0 && id < 1000 {
				r.Used = append(r.Used, id)
			}
		}
		return r, repaired, r.Action != ""
	}
	r, ok = ParseReply(a.Text)
	_, repaired = replyfmt.Clean(a.Text)
	return r, repaired, ok
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// generate asks a memory generator's question and reads its items (free
// advice with advice); a reply with no item is asked again within
// internal/reply's budget, and after that gives none (nothing is stored:
// skipped). Only a failed call is an error.
func (g *LLMGenerator) generate(ctx context.Context, purpose string, msgs []llm.Message, advice bool) ([]Abstraction, error) {
	schema := LearningsSchema
	if advice {
		schema = AdviceSchema
	}
	req := llm.Request{Purpose: purpose, Messages: msgs, Temperature: g.Temperature, MaxTokens: g.MaxTokens, Schema: schema}
	var items []Abstraction
	_, err := replyfmt.Ask(ctx, g.Chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		items, repaired = ParseItems(a, advice)
		if len(items) == 0 {
			return repaired, errNoItems
		}
		return repaired, nil
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return nil, nil
	}
	return items, err
}

// ParseItems reads a memory generator's answer: each item of the JSON's
// "learnings" (or "advice") when the server was asked for the schema and
// answered with it, else the text's list (ParseMemory, ParseAdvice);
// repaired when the normaliser had to undo decoration.
func ParseItems(a replyfmt.Answer, advice bool) (items []Abstraction, repaired bool) {
	var v struct {
		Learnings []string `json:"learnings"`
		Advice    []string `json:"advice"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		list := v.Learnings
		if advice {
			list = v.Advice
		}
		for _, s := range list {
			if advice {
				items = append(items, ParseAdvice(s)...)
			} else if it, ok := ParseAbstraction(s); ok {
				items = append(items, it)
			}
		}
		return items, false
	}
	_, repaired = replyfmt.Clean(a.Text)
	if advice {
		return ParseAdvice(a.Text), repaired
	}
	return ParseMemory(a.Text), repaired
}

// Adapt implements Generator (Eq. 2). Every parsed item carries the trial and
// its reward. With in.Advice the reply is read as free-form advice.
func (g *LLMGenerator) Adapt(ctx context.Context, in AdaptInput) ([]Abstraction, error) {
	msgs, err := AdaptMessages(in)
	if err != nil {
		return nil, err
	}
	purpose := PurposeAdapt
	if in.Advice {
		purpose = PurposeAdvice
	}
	items, err := g.generate(ctx, purpose, msgs, in.Advice)
	if err != nil {
		return nil, fmt.Errorf("memory generator: %w", err)
	}
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
	purpose := PurposeMeta
	switch {
	case in.Advice:
		purpose = PurposeMetaAdvice
	case in.GenTask:
		purpose = PurposeMetaTask
	}
	items, err := g.generate(ctx, purpose, msgs, in.Advice)
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
	for i := range items {
		items[i].Trial, items[i].Reward = -1, mean
	}
	return items, nil
}
