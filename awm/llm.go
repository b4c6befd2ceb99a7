package awm

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

var prompts = template.Must(template.ParseFS(promptFS, "prompts/*.tmpl"))

// WorkflowsSchema is the structured answer of the induction, beside the prompts.
var WorkflowsSchema = replyfmt.LoadSchema(promptFS, "prompts/workflows.schema.json", "awm_workflows")

// Purposes of the model calls, for the usage account.
const (
	purposeAct    = Name + ".act"
	purposeInduce = Name + ".induce"
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
		Actor:   &llmActor{ask: thought.Asker{Chat: chat, Embedder: emb, Purpose: purposeAct, Temperature: cfg.Temperature, MaxTokens: 200}},
		Inducer: &llmInducer{chat: chat, cfg: cfg},
	}
}

// ActView is what the acting prompt shows at one step: the benchmark's
// agent prompt with the workflow text added to the system message (spec §4).
type ActView struct {
	Style      envbridge.Style
	Goal       string
	Workflows  string
	Transcript string
	Admissible []string
}

// ActMessages renders the acting prompt.
func ActMessages(v ActView) ([]llm.Message, error) {
	sys, err := render("act-system.tmpl", struct {
		Style, PutAction, Workflows string
		HasAdmissible               bool
	}{string(v.Style), thought.PutAction(v.Admissible), v.Workflows, v.Admissible != nil})
	if err != nil {
		return nil, err
	}
	user, err := render("act-user.tmpl", v)
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

type llmActor struct{ ask thought.Asker }

func (a *llmActor) Begin(s agent.Start, ws []Shown) Session {
	list := make([]Workflow, len(ws))
	used := make([]string, len(ws))
	for i, x := range ws {
		list[i], used[i] = x.Workflow, x.ID
	}
	return &llmSession{ask: a.ask, start: s, text: RenderAll(list), used: used}
}

type llmSession struct {
	ask   thought.Asker
	start agent.Start
	text  string
	used  []string
	steps []string // the episode so far, rendered
}

func (s *llmSession) Act(ctx context.Context, obs envbridge.Observation) (Decision, error) {
	if len(s.steps) == 0 {
		s.steps = append(s.steps, strings.TrimSpace(obs.Text))
	}
	msgs, err := ActMessages(ActView{Style: s.start.Style, Goal: s.start.Task.Goal, Workflows: s.text, Transcript: strings.Join(s.steps, "\n"), Admissible: obs.Admissible})
	if err != nil {
		return Decision{}, err
	}
	d, err := s.ask.Ask(ctx, msgs, obs.Admissible)
	if err != nil {
		return Decision{}, err
	}
	// Every workflow of the block is in the prompt of every step.
	return Decision{Decision: agent.Decision{Thought: d.Thought, Action: d.Action}, Used: s.used}, nil
}

func (s *llmSession) Observe(action, text string) {
	s.steps = append(s.steps, "> "+action+"\n"+strings.TrimSpace(text))
}

type llmInducer struct {
	chat llm.Chatter
	cfg  Config
}

// noOp is the environment's answer to an invalid or no-op action, whose
// steps the induction never sees (spec §3.1: invalid actions removed).
const noOp = "Nothing happens."

// InduceMessages renders the induction prompt: the instruction, the
// one-shot example, then the group's successes as concrete examples.
func InduceMessages(in InduceInput) ([]llm.Message, error) {
	sys, err := render("induce-system.tmpl", nil)
	if err != nil {
		return nil, err
	}
	ex := make([]Trajectory, len(in.Examples))
	for i, t := range in.Examples {
		ex[i] = Trajectory{TaskID: t.TaskID, Goal: t.Goal}
		for _, s := range t.Steps {
			if strings.TrimSpace(s.Text) != noOp && s.Action != "" {
				ex[i].Steps = append(ex[i].Steps, Step{Thought: strings.Join(strings.Fields(s.Thought), " "), Action: s.Action})
			}
		}
	}
	user, err := render("induce-user.tmpl", struct{ Examples []Trajectory }{ex})
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

func (x *llmInducer) Induce(ctx context.Context, in InduceInput) ([]Workflow, error) {
	msgs, err := InduceMessages(in)
	if err != nil {
		return nil, err
	}
	req := llm.Request{Purpose: purposeInduce, Messages: msgs, MaxTokens: x.cfg.MaxTokens, Temperature: x.cfg.Temperature, Schema: WorkflowsSchema}
	var ws []Workflow
	_, err = replyfmt.Ask(ctx, x.chat, req, 0, llm.Skipped, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		ws, repaired, err = ParseWorkflowsAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return nil, nil // no usable workflows: the group keeps its text
	}
	return ws, err
}

// ErrNoWorkflows is returned by ParseWorkflowsAnswer for a reply with no
// usable workflow.
var ErrNoWorkflows = errors.New("awm: no workflows in reply")

// ParseWorkflowsAnswer reads an induction reply: the JSON's workflows when
// the server was asked for the schema and answered with it, else the text
// ParseWorkflows reads; workflows of fewer than MinSteps steps are dropped.
func ParseWorkflowsAnswer(a replyfmt.Answer) ([]Workflow, bool, error) {
	var v struct {
		Workflows []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Steps       []struct {
				State     string `json:"state"`
				Reasoning string `json:"reasoning"`
				Action    string `json:"action"`
			} `json:"steps"`
		} `json:"workflows"`
	}
	if a.Structured && replyfmt.Decode(a.Text, &v) {
		var ws []Workflow
		for _, w := range v.Workflows {
			x := Workflow{Name: field(w.Name), Description: field(w.Description)}
			for _, s := range w.Steps {
				if st := (WStep{State: field(s.State), Reasoning: field(s.Reasoning), Action: field(s.Action)}); st.Action != "" && len(x.Steps) < maxStepsOf {
					x.Steps = append(x.Steps, st)
				}
			}
			if x.Name != "" && len(x.Steps) >= MinSteps && len(ws) < maxWorkflows {
				ws = append(ws, x)
			}
		}
		if len(ws) == 0 {
			return nil, false, ErrNoWorkflows
		}
		return ws, false, nil
	}
	_, repaired := replyfmt.Clean(a.Text)
	ws, _ := ParseWorkflows(a.Text)
	if len(ws) == 0 {
		return nil, repaired, fmt.Errorf("%w: %.80q", ErrNoWorkflows, a.Text)
	}
	return ws, repaired, nil
}
