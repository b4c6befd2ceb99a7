package autoguide

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
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/thought"
)

//go:embed prompts/*.tmpl prompts/*.schema.json
var promptFS embed.FS

var prompts = template.Must(template.New("").
	Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).
	ParseFS(promptFS, "prompts/*.tmpl"))

// The JSON schemas of the roles' structured answers, beside their prompts.
var (
	ContextSchema    = replyfmt.LoadSchema(promptFS, "prompts/context.schema.json", "autoguide_context")
	MatchSchema      = replyfmt.LoadSchema(promptFS, "prompts/match.schema.json", "autoguide_match")
	ExtractSchema    = replyfmt.LoadSchema(promptFS, "prompts/extract.schema.json", "autoguide_extract")
	SelectSchema     = replyfmt.LoadSchema(promptFS, "prompts/select.schema.json", "autoguide_select")
	ReflectionSchema = replyfmt.LoadSchema(promptFS, "prompts/reflection.schema.json", "autoguide_reflection")
)

// Purposes of AutoGuide's model calls (spec Sec. 8), for usage accounting.
const (
	PurposeAct     = Name + ".act"
	PurposeContext = Name + ".context"
	PurposeMatch   = Name + ".match"
	PurposeExtract = Name + ".extract"
	PurposeSelect  = Name + ".select"
	PurposeReflect = Name + ".reflect"
)

// roles are AutoGuide's model roles but the actor: with a model or by rules.
type roles interface {
	offline() bool
	context(ctx context.Context, task envbridge.Task, style envbridge.Style, steps []Step) (string, error)
	match(ctx context.Context, known []string, c string) (int, error)
	extract(ctx context.Context, task envbridge.Task, c string, pos, neg Trajectory, t int) (string, error)
	selectGuides(ctx context.Context, task envbridge.Task, guides []string, c string, steps []Step, k int) ([]int, error)
	reflect(ctx context.Context, task envbridge.Task, out agent.Outcome, steps []Step) (string, error)
}

// offlineRoles are the rules of Deps.Offline.
type offlineRoles struct{ off Offline }

func (offlineRoles) offline() bool { return true }
func (r offlineRoles) context(_ context.Context, task envbridge.Task, style envbridge.Style, steps []Step) (string, error) {
	return r.off.Context(task, style, steps), nil
}
func (r offlineRoles) match(_ context.Context, known []string, c string) (int, error) {
	return r.off.Match(known, c), nil
}
func (r offlineRoles) extract(_ context.Context, task envbridge.Task, c string, pos, neg Trajectory, t int) (string, error) {
	return r.off.Extract(task, c, pos, neg, t), nil
}
func (r offlineRoles) selectGuides(_ context.Context, _ envbridge.Task, guides []string, c string, steps []Step, k int) ([]int, error) {
	return r.off.Select(guides, c, steps, k), nil
}
func (r offlineRoles) reflect(_ context.Context, task envbridge.Task, _ agent.Outcome, steps []Step) (string, error) {
	return r.off.Reflect(task, steps), nil
}

// llmRoles ask the model.
type llmRoles struct {
	chat llm.Chatter
	emb  llm.Embedder
	cfg  Config
}

func (*llmRoles) offline() bool { return false }

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

func messages(role string, sys, user any) ([]llm.Message, error) {
	s, err := render(role+"-system", sys)
	if err != nil {
		return nil, err
	}
	u, err := render(role+"-user", user)
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: s}, {Role: "user", Content: u}}, nil
}

// window bounds a trajectory to at most n steps: the first (the opening
// observation, which states the task) and the last n-1. It returns the kept
// steps and how many were left out; n <= 0 keeps everything.
func window(h []Step, n int) ([]Step, int) {
	if n <= 0 || len(h) <= n {
		return h, 0
	}
	if n == 1 {
		return h[:1], len(h) - 1
	}
	out := make([]Step, 0, n)
	out = append(out, h[0])
	out = append(out, h[len(h)-(n-1):]...)
	return out, len(h) - n
}

// actView is what the actor is shown at one step.
type actView struct {
	Goal        string
	Guidelines  []string
	Reflections []string
	Context     string
	Steps       []Step // the trajectory, the latest observation last
	Admissible  []string
}

// ActMessages renders the acting prompt: the style's instructions, then
// the selected guidelines, the task, the task's reflections, the
// trajectory with its statuses, the current status and the admissible
// actions.
func ActMessages(style envbridge.Style, v actView, maxHistory int) ([]llm.Message, error) {
	name := "act-household"
	switch style {
	case envbridge.StyleScience:
		name = "act-science"
	case envbridge.StyleFiction:
		name = "act-fiction"
	}
	s, err := render(name, struct {
		PutAction     string
		HasAdmissible bool
	}{thought.PutAction(v.Admissible), v.Admissible != nil})
	if err != nil {
		return nil, err
	}
	hist, omitted := window(v.Steps, maxHistory)
	u, err := render("act-user", struct {
		actView
		History []Step
		Omitted int
	}{v, hist, omitted})
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: s}, {Role: "user", Content: u}}, nil
}

func (r *llmRoles) act(ctx context.Context, s agent.Start, v actView) (agent.Decision, error) {
	msgs, err := ActMessages(s.Style, v, r.cfg.MaxHistory)
	if err != nil {
		return agent.Decision{}, err
	}
	ask := thought.Asker{Chat: r.chat, Embedder: r.emb, Purpose: PurposeAct, Temperature: r.cfg.Temperature, MaxTokens: 200, MaxAttempts: thought.DefaultMaxAttempts}
	d, err := ask.Ask(ctx, msgs, v.Admissible)
	if err != nil {
		return agent.Decision{}, err
	}
	return agent.Decision{Thought: d.Thought, Action: d.Action}, nil
}

// ContextMessages renders the context identification prompt (App. C's
// few-shot "SUMMARIZATION:" prompt; the household example is ours, in the
// paper's flavour, and science and fiction get three statuses each).
func ContextMessages(style envbridge.Style, goal string, steps []Step, maxHistory int) ([]llm.Message, error) {
	hist, omitted := window(steps, maxHistory)
	st := style
	if st == "" {
		st = envbridge.StyleHousehold
	}
	return messages("context", struct{ Style string }{string(st)}, struct {
		Goal    string
		History []Step
		Omitted int
	}{goal, hist, omitted})
}

func (r *llmRoles) context(ctx context.Context, task envbridge.Task, style envbridge.Style, steps []Step) (string, error) {
	msgs, err := ContextMessages(style, task.Goal, steps, r.cfg.MaxHistory)
	if err != nil {
		return "", err
	}
	req := llm.Request{Purpose: PurposeContext, Messages: msgs, Temperature: r.cfg.Temperature, MaxTokens: 64, Schema: ContextSchema}
	var c string
	_, err = replyfmt.Ask(ctx, r.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		c, repaired, err = ParseContextAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return "", nil // no context: the step goes unguided
	}
	return c, err
}

// MatchMessages renders the context matching prompt (App. C.3).
func MatchMessages(known []string, c string) ([]llm.Message, error) {
	return messages("match", nil, struct {
		Known   []string
		Context string
	}{known, c})
}

func (r *llmRoles) match(ctx context.Context, known []string, c string) (int, error) {
	msgs, err := MatchMessages(known, c)
	if err != nil {
		return -1, err
	}
	req := llm.Request{Purpose: PurposeMatch, Messages: msgs, Temperature: r.cfg.Temperature, MaxTokens: 16, Schema: MatchSchema}
	i := -1
	_, err = replyfmt.Ask(ctx, r.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		i, repaired, err = ParseMatchAnswer(a, len(known))
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return -1, nil // no match: a new context
	}
	return i, err
}

// ExtractMessages renders the guideline extraction prompt (App. C): the
// task, the status at the divergence, the desired and the undesired
// trajectory, and where their actions first diverge.
func ExtractMessages(goal, c string, pos, neg []Step, t, maxHistory int) ([]llm.Message, error) {
	p, po := window(pos, maxHistory)
	n, no := window(neg, maxHistory)
	at := func(s []Step) string {
		if t+1 < len(s) {
			return s[t+1].Action
		}
		return "(nothing: the trajectory ended)"
	}
	return messages("extract", nil, struct {
		Goal, Context        string
		Pos, Neg             []Step
		PosOmitted           int
		NegOmitted           int
		T                    int
		PosAction, NegAction string
	}{goal, c, p, n, po, no, t, at(pos), at(neg)})
}

func (r *llmRoles) extract(ctx context.Context, task envbridge.Task, c string, pos, neg Trajectory, t int) (string, error) {
	msgs, err := ExtractMessages(task.Goal, c, pos.Steps, neg.Steps, t, r.cfg.MaxHistory)
	if err != nil {
		return "", err
	}
	req := llm.Request{Purpose: PurposeExtract, Messages: msgs, Temperature: r.cfg.Temperature, MaxTokens: r.cfg.ExtractMaxTokens, Schema: ExtractSchema}
	var g string
	_, err = replyfmt.Ask(ctx, r.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		g, repaired, err = ParseGuidelineAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return "", nil // no guideline from this pair
	}
	return g, err
}

// recentSteps is how many steps of the trajectory the selection sees ("the
// recent trajectory", App. C).
const recentSteps = 6

// SelectMessages renders the guideline selection prompt (App. C).
func SelectMessages(goal string, guides []string, c string, steps []Step, k int) ([]llm.Message, error) {
	hist, omitted := steps, 0
	if len(steps) > recentSteps {
		hist, omitted = steps[len(steps)-recentSteps:], len(steps)-recentSteps
	}
	return messages("select", struct{ K int }{k}, struct {
		Goal    string
		Guides  []string
		History []Step
		Omitted int
		Context string
	}{goal, guides, hist, omitted, c})
}

func (r *llmRoles) selectGuides(ctx context.Context, task envbridge.Task, guides []string, c string, steps []Step, k int) ([]int, error) {
	msgs, err := SelectMessages(task.Goal, guides, c, steps, k)
	if err != nil {
		return nil, err
	}
	req := llm.Request{Purpose: PurposeSelect, Messages: msgs, Temperature: r.cfg.Temperature, MaxTokens: 32, Schema: SelectSchema}
	var sel []int
	_, err = replyfmt.Ask(ctx, r.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		sel, repaired, err = ParseSelectAnswer(a, len(guides))
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return nil, nil // none selected
	}
	return sel, err
}

// ReflectMessages renders Reflexion's prompt on a failed trial.
func ReflectMessages(goal, outcome string, steps []Step, maxHistory int) ([]llm.Message, error) {
	hist, omitted := window(steps, maxHistory)
	return messages("reflect", nil, struct {
		Goal, Outcome string
		History       []Step
		Omitted       int
	}{goal, outcome, hist, omitted})
}

func (r *llmRoles) reflect(ctx context.Context, task envbridge.Task, out agent.Outcome, steps []Step) (string, error) {
	msgs, err := ReflectMessages(task.Goal, describeOutcome(out), steps, r.cfg.MaxHistory)
	if err != nil {
		return "", err
	}
	req := llm.Request{Purpose: PurposeReflect, Messages: msgs, MaxTokens: 200, Schema: ReflectionSchema}
	var text string
	_, err = replyfmt.Ask(ctx, r.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		text, repaired, err = ParseReflectionAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return "", nil
	}
	return text, err
}

// describeOutcome tells the reflection prompt how a failed trial ended.
func describeOutcome(o agent.Outcome) string {
	var why string
	switch {
	case o.Lost:
		why = "the game was lost"
	case o.Truncated:
		why = "the step limit was reached"
	default:
		why = "the episode ended"
	}
	s := fmt.Sprintf("failed: %s after %d steps without completing the task", why, o.Steps)
	if o.MaxScore > 0 {
		s += fmt.Sprintf(" (score %g of %g)", o.Score, o.MaxScore)
	}
	return s + "."
}
