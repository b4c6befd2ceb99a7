package expel

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/samem/trainer/agent"
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

// Schemas of the structured answers, beside the prompts.
var (
	ReflectionSchema = replyfmt.LoadSchema(promptFS, "prompts/reflection.schema.json", "expel_reflection")
	OperationsSchema = replyfmt.LoadSchema(promptFS, "prompts/operations.schema.json", "expel_operations")
)

// Purposes of the model calls, for the usage account.
const (
	purposeAct     = Name + ".act"
	purposeReflect = Name + ".reflect"
	purposeExtract = Name + ".extract"
)

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

func llmRoles(chat llm.Chatter, emb llm.Embedder, cfg Config) Roles {
	return Roles{
		Actor:     &llmActor{ask: thought.Asker{Chat: chat, Embedder: emb, Purpose: purposeAct, Temperature: cfg.Temperature, MaxTokens: 200}},
		Reflector: &llmReflector{chat: chat, cfg: cfg},
		Extractor: &llmExtractor{chat: chat, cfg: cfg},
	}
}

// llmActor is the ReAct actor: a think line and an action each turn, as
// one "Thought: / Action:" reply (the think turn folded into the action's
// thought, so that the step budget counts actions only; spec §8).
type llmActor struct{ ask thought.Asker }

func (a *llmActor) Begin(s agent.Start, g Guidance) Session {
	return &llmSession{ask: a.ask, start: s, guide: g}
}

type llmSession struct {
	ask   thought.Asker
	start agent.Start
	guide Guidance
	tr    Trajectory
	last  string // the thought of the last decision, for its step in the transcript
}

// ActView is what the actor's prompt shows at one step.
type ActView struct {
	Style       envbridge.Style
	MaxSteps    int
	Goal        string
	Examples    []string // rendered trajectories
	Insights    []string
	Reflections []string
	Transcript  string // the episode so far, rendered
	Admissible  []string
}

// ActMessages renders the actor's prompt.
func ActMessages(v ActView) ([]llm.Message, error) {
	sys, err := render("act-system.tmpl", struct {
		Style         string
		MaxSteps      int
		PutAction     string
		HasAdmissible bool
	}{string(v.Style), v.MaxSteps, thought.PutAction(v.Admissible), v.Admissible != nil})
	if err != nil {
		return nil, err
	}
	user, err := render("act-user.tmpl", v)
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

func (s *llmSession) Act(ctx context.Context, obs envbridge.Observation) (Decision, error) {
	if s.tr.Start == "" && len(s.tr.Steps) == 0 {
		s.tr.Start = obs.Text
	}
	v := ActView{Style: s.start.Style, MaxSteps: s.start.Task.MaxSteps, Goal: s.start.Task.Goal,
		Reflections: s.guide.Reflections, Transcript: s.tr.Render(), Admissible: obs.Admissible}
	var used []string
	for i, x := range s.guide.Insights {
		v.Insights = append(v.Insights, x.Text)
		used = append(used, InsightID(i+1))
	}
	for _, x := range s.guide.Examples {
		v.Examples = append(v.Examples, x.Trajectory.Render())
		used = append(used, ExampleID(x.Trajectory.TaskID))
	}
	for i := range s.guide.Reflections {
		used = append(used, ReflectionID(i+1))
	}
	msgs, err := ActMessages(v)
	if err != nil {
		return Decision{}, err
	}
	d, err := s.ask.Ask(ctx, msgs, obs.Admissible)
	if err != nil {
		return Decision{}, err
	}
	s.last = d.Thought
	// The model is shown every item of its guidance at every step.
	return Decision{Decision: agent.Decision{Thought: d.Thought, Action: d.Action}, Used: used}, nil
}

func (s *llmSession) Observe(action, text string) {
	s.tr.Steps = append(s.tr.Steps, Step{Thought: s.last, Action: action, Text: text})
	s.last = ""
}

type llmReflector struct {
	chat llm.Chatter
	cfg  Config
}

// describe says how a failed trial ended, for the reflection prompt.
func describe(t Trajectory) string {
	if t.MaxScore > 0 {
		return fmt.Sprintf("the task was not completed after %d steps; score %g of %g", len(t.Steps), t.Score, t.MaxScore)
	}
	return fmt.Sprintf("the task was not completed after %d steps", len(t.Steps))
}

// ReflectMessages renders the Reflexion prompt on a failed trial.
func ReflectMessages(in ReflectInput) ([]llm.Message, error) {
	sys, err := render("reflect-system.tmpl", nil)
	if err != nil {
		return nil, err
	}
	user, err := render("reflect-user.tmpl", struct {
		Goal, Transcript, Outcome string
		Reflections               []string
	}{in.Trajectory.Goal, in.Trajectory.Render(), describe(in.Trajectory), in.Reflections})
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

func (r *llmReflector) Reflect(ctx context.Context, in ReflectInput) (string, error) {
	msgs, err := ReflectMessages(in)
	if err != nil {
		return "", err
	}
	req := llm.Request{Purpose: purposeReflect, Messages: msgs, MaxTokens: r.cfg.MaxTokens, Temperature: r.cfg.Temperature, Schema: ReflectionSchema}
	var plan string
	_, err = replyfmt.Ask(ctx, r.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		plan, repaired, err = ParsePlanAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return "", nil // no usable plan: none is stored
	}
	return plan, err
}

// ErrEmptyPlan is returned by ParsePlan for a reply with no plan.
var ErrEmptyPlan = errors.New("expel: empty plan")

// maxPlanLen bounds a plan in bytes; every later trial of the task shows
// all of them.
const maxPlanLen = 800

// ParsePlanAnswer reads a reflection: the JSON's "plan" when the server was
// asked for the schema and answered with it, else the text after "Plan:".
func ParsePlanAnswer(a replyfmt.Answer) (string, bool, error) {
	var v struct {
		Plan string `json:"plan"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		p, err := ParsePlan(v.Plan)
		return p, false, err
	}
	_, repaired := replyfmt.Clean(a.Text)
	p, err := ParsePlan(a.Text)
	return p, repaired, err
}

// ParsePlan extracts a plan from a reply: decoration dropped, a "Plan:"
// label taken off, white space folded, cut at maxPlanLen on a word.
func ParsePlan(reply string) (string, error) {
	s, _ := replyfmt.Clean(strings.ToValidUTF8(reply, ""))
	s = strings.NewReplacer("`", "", "**", "", "__", "").Replace(s)
	if i := fold.Index(s, "plan:"); i >= 0 && i < 60 {
		s = s[i+len("plan:"):]
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimSpace(strings.Trim(s, `"'`))
	if len(s) > maxPlanLen {
		cut := strings.LastIndexByte(s[:maxPlanLen], ' ')
		if cut <= 0 {
			cut = maxPlanLen
			for cut > 0 && s[cut]&0xC0 == 0x80 {
				cut--
			}
		}
		s = strings.TrimSpace(s[:cut])
	}
	if s == "" {
		return "", ErrEmptyPlan
	}
	return s, nil
}

type llmExtractor struct {
	chat llm.Chatter
	cfg  Config
}

// ExtractView is what an extraction prompt shows.
type ExtractView struct {
	Compare          bool
	Goal             string
	Success, Failure string
	Successes        []string
	Rules            []string
	Full             bool
}

// ExtractMessages renders an extraction prompt.
func ExtractMessages(v ExtractView) ([]llm.Message, error) {
	sys, err := render("extract-system.tmpl", v)
	if err != nil {
		return nil, err
	}
	user, err := render("extract-user.tmpl", v)
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

func rules(list []Insight) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = x.Text
	}
	return out
}

func (x *llmExtractor) Compare(ctx context.Context, in CompareInput) ([]Op, error) {
	return x.ask(ctx, ExtractView{Compare: true, Goal: in.Success.Goal, Success: in.Success.Render(), Failure: in.Failure.Render(), Rules: rules(in.Insights), Full: in.Full})
}

func (x *llmExtractor) Successes(ctx context.Context, in SuccessInput) ([]Op, error) {
	v := ExtractView{Rules: rules(in.Insights), Full: in.Full}
	for _, t := range in.Successes {
		v.Successes = append(v.Successes, "Task: "+t.Goal+"\n"+t.Render())
	}
	return x.ask(ctx, v)
}

// ErrNoOps is returned by ParseOpsAnswer for a reply with no operation
// line at all (a reply whose lines were all dropped is read as no edit).
var ErrNoOps = errors.New("expel: no operations in reply")

func (x *llmExtractor) ask(ctx context.Context, v ExtractView) ([]Op, error) {
	msgs, err := ExtractMessages(v)
	if err != nil {
		return nil, err
	}
	req := llm.Request{Purpose: purposeExtract, Messages: msgs, MaxTokens: x.cfg.MaxTokens, Temperature: x.cfg.Temperature, Schema: OperationsSchema}
	var ops []Op
	_, err = replyfmt.Ask(ctx, x.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		ops, repaired, err = ParseOpsAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return nil, nil // no usable edits: the list stays as it is
	}
	return ops, err
}

// ParseOpsAnswer reads an extraction reply: the JSON's operations when the
// server was asked for the schema and answered with it, else the lines
// ParseOps reads. A reply with no operation line at all and no "none"
// is ErrNoOps; operations dropped by the checks are not an error.
func ParseOpsAnswer(a replyfmt.Answer) ([]Op, bool, error) {
	var v struct {
		Operations []struct {
			Operation string `json:"operation"`
			Number    int    `json:"number"`
			Rule      string `json:"rule"`
		} `json:"operations"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		var ops []Op
		for _, o := range v.Operations {
			n := ""
			if o.Number > 0 {
				n = fmt.Sprint(o.Number)
			}
			if op, ok := newOp(o.Operation, n, o.Rule); ok {
				ops = append(ops, op)
			}
		}
		return ops, false, nil
	}
	_, repaired := replyfmt.Clean(a.Text)
	ops, dropped := ParseOps(a.Text)
	if len(ops) == 0 && dropped == 0 && fold.Index(a.Text, "none") < 0 && fold.Index(a.Text, "no operation") < 0 {
		return nil, repaired, fmt.Errorf("%w: %.80q", ErrNoOps, a.Text)
	}
	return ops, repaired, nil
}
