package cdmem

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
	ExpertSchema     = replyfmt.LoadSchema(promptFS, "prompts/expert.schema.json", "cdmem_expert")
	ReflectionSchema = replyfmt.LoadSchema(promptFS, "prompts/reflection.schema.json", "cdmem_reflection")
	SceneSchema      = replyfmt.LoadSchema(promptFS, "prompts/scene.schema.json", "cdmem_scene")
	TaskSchema       = replyfmt.LoadSchema(promptFS, "prompts/task.schema.json", "cdmem_task")
)

// Purposes of CDMem's model calls (spec Sec. 8), for usage accounting.
const (
	PurposeAct          = Name + ".act"
	PurposeExpert       = Name + ".expert"
	PurposeReflect      = Name + ".reflect"
	PurposeSceneSummary = Name + ".scene_summary"
	PurposeTaskSummary  = Name + ".task_summary"
)

// roles are CDMem's encodings: with a model or by rules.
type roles interface {
	offline() bool
	expert(ctx context.Context, task envbridge.Task, steps []Step) (Expert, error)
	reflect(ctx context.Context, task envbridge.Task, success bool, out agent.Outcome, steps []Step, ex Expert, earlier []string) (string, error)
	sceneSummary(ctx context.Context, previous string, functions []string) (string, error)
	taskSummary(ctx context.Context, previous []string, success bool, reflections []string) ([]string, error)
}

type offlineRoles struct{ off Offline }

func (offlineRoles) offline() bool { return true }
func (r offlineRoles) expert(_ context.Context, task envbridge.Task, steps []Step) (Expert, error) {
	return r.off.Expert(task, steps), nil
}
func (r offlineRoles) reflect(_ context.Context, task envbridge.Task, success bool, _ agent.Outcome, steps []Step, ex Expert, earlier []string) (string, error) {
	return r.off.Reflect(task, success, steps, ex, earlier), nil
}
func (r offlineRoles) sceneSummary(_ context.Context, previous string, functions []string) (string, error) {
	return r.off.SceneSummary(previous, functions), nil
}
func (r offlineRoles) taskSummary(_ context.Context, previous []string, success bool, reflections []string) ([]string, error) {
	return r.off.TaskSummary(previous, success, reflections), nil
}

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

// window bounds a transcript to at most n steps: the first and the last
// n-1; it returns the kept steps and how many were left out.
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

type shown struct {
	Steps   []Step
	Omitted int
}

// ActMessages renders the acting prompt (spec Sec. 4-5): the style's
// instructions, the exemplars, the goal, the scene's container functions,
// the action guidance, the past reflections, the transcript and the
// admissible actions.
func ActMessages(style envbridge.Style, goal string, v View, steps []Step, admissible []string, cfg Config) ([]llm.Message, error) {
	cfg = cfg.Resolved()
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
	}{thought.PutAction(admissible), admissible != nil})
	if err != nil {
		return nil, err
	}
	var ex []shown
	for _, x := range v.Exemplars {
		w, o := window(x, cfg.ExemplarSteps)
		ex = append(ex, shown{w, o})
	}
	hist, omitted := window(steps, cfg.MaxHistory)
	u, err := render("act-user", struct {
		View
		Goal       string
		Exemplars  []shown
		History    []Step
		Omitted    int
		Admissible []string
	}{v, goal, ex, hist, omitted, admissible})
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: s}, {Role: "user", Content: u}}, nil
}

func (r *llmRoles) act(ctx context.Context, s agent.Start, v View, steps []Step, admissible []string) (agent.Decision, error) {
	msgs, err := ActMessages(s.Style, s.Task.Goal, v, steps, admissible, r.cfg)
	if err != nil {
		return agent.Decision{}, err
	}
	ask := thought.Asker{Chat: r.chat, Embedder: r.emb, Purpose: PurposeAct, Temperature: r.cfg.Temperature, MaxTokens: 200, MaxAttempts: thought.DefaultMaxAttempts}
	d, err := ask.Ask(ctx, msgs, admissible)
	if err != nil {
		return agent.Decision{}, err
	}
	return agent.Decision{Thought: d.Thought, Action: d.Action}, nil
}

// ExpertMessages renders the expert encoding prompt.
func ExpertMessages(goal string, steps []Step, maxHistory int) ([]llm.Message, error) {
	hist, omitted := window(steps, maxHistory)
	return messages("expert", nil, struct {
		Goal    string
		History []Step
		Omitted int
	}{goal, hist, omitted})
}

func (r *llmRoles) expert(ctx context.Context, task envbridge.Task, steps []Step) (Expert, error) {
	msgs, err := ExpertMessages(task.Goal, steps, r.cfg.MaxHistory)
	if err != nil {
		return Expert{}, err
	}
	req := llm.Request{Purpose: PurposeExpert, Messages: msgs, Temperature: r.cfg.Temperature, MaxTokens: r.cfg.MaxTokens, Schema: ExpertSchema}
	var ex Expert
	_, err = replyfmt.Ask(ctx, r.chat, req, 0, llm.FellBack, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		ex, repaired, err = ParseExpertAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		// An empty record: nothing for the scene, the actions unknown.
		return Expert{}, nil
	}
	return ex, err
}

// ReflectMessages renders the short-term encoding prompt, its success or
// failure variant.
func ReflectMessages(goal, outcome string, success bool, steps []Step, ex Expert, earlier []string, maxHistory int) ([]llm.Message, error) {
	hist, omitted := window(steps, maxHistory)
	return messages("reflect", struct{ Success bool }{success}, struct {
		Goal, Outcome                 string
		Success                       bool
		History                       []Step
		Omitted                       int
		Actions, Locations, Functions string
		Earlier                       []string
	}{goal, outcome, success, hist, omitted, orNone(ex.Actions), orNone(ex.Locations), orNone(ex.Functions), earlier})
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "None"
	}
	return s
}

func (r *llmRoles) reflect(ctx context.Context, task envbridge.Task, success bool, out agent.Outcome, steps []Step, ex Expert, earlier []string) (string, error) {
	msgs, err := ReflectMessages(task.Goal, describeOutcome(out), success, steps, ex, earlier, r.cfg.MaxHistory)
	if err != nil {
		return "", err
	}
	req := llm.Request{Purpose: PurposeReflect, Messages: msgs, Temperature: r.cfg.Temperature, MaxTokens: r.cfg.MaxTokens, Schema: ReflectionSchema}
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

// SceneMessages renders the scene summary prompt.
func SceneMessages(previous string, functions []string) ([]llm.Message, error) {
	return messages("scene", nil, struct {
		Previous  string
		Functions []string
	}{previous, functions})
}

func (r *llmRoles) sceneSummary(ctx context.Context, previous string, functions []string) (string, error) {
	msgs, err := SceneMessages(previous, functions)
	if err != nil {
		return previous, err
	}
	req := llm.Request{Purpose: PurposeSceneSummary, Messages: msgs, Temperature: r.cfg.Temperature, MaxTokens: r.cfg.MaxTokens, Schema: SceneSchema}
	s := previous
	_, err = replyfmt.Ask(ctx, r.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		s, repaired, err = ParseSceneAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return previous, nil // the summary so far stays
	}
	return s, err
}

// TaskMessages renders the task summary prompt, its success or failure
// variant.
func TaskMessages(previous []string, success bool, reflections []string) ([]llm.Message, error) {
	return messages("task", struct{ Success bool }{success}, struct {
		Previous    []string
		Reflections []string
	}{previous, reflections})
}

func (r *llmRoles) taskSummary(ctx context.Context, previous []string, success bool, reflections []string) ([]string, error) {
	msgs, err := TaskMessages(previous, success, reflections)
	if err != nil {
		return previous, err
	}
	req := llm.Request{Purpose: PurposeTaskSummary, Messages: msgs, Temperature: r.cfg.Temperature, MaxTokens: r.cfg.MaxTokens, Schema: TaskSchema}
	items := previous
	_, err = replyfmt.Ask(ctx, r.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		items, repaired, err = ParseGuidanceAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return previous, nil // the guidance so far stays
	}
	return items, err
}

// describeOutcome tells the reflection prompt how a trial ended.
func describeOutcome(o agent.Outcome) string {
	if o.Won {
		return fmt.Sprintf("succeeded after %d steps.", o.Steps)
	}
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
