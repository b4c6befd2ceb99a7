// Package awm is Agent Workflow Memory (Wang et al., ICML 2025;
// ../shared/methods/awm.md), the second task-level memory of seed 002's
// Table 1 (App. B.2): an induction role reads the successful trajectories
// of a group of tasks (a task type here, a website in the paper) and
// writes reusable workflows, whose text is added to the acting prompt of
// every later task of the group.
//
// The harness runs AWM's online mode (spec §3.1, §7): in training, after
// every successful episode (judged by the environment, the code's "gt"
// criterion) the group's workflows are induced again from its successes,
// one per task (an earlier one replaced with probability 1/n, n the task's
// successes so far), and replace the group's text wholesale; episodes of
// the group played afterwards see them. At evaluation the workflows are
// frozen; a held-out task whose group has none is shown the ten workflows
// of other groups most similar to its goal (the code's retrieve.py).
package awm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// Name is AWM's name on the command line.
const Name = "awm"

// Defaults of Config (spec §3.3, §7).
const (
	DefaultMaxTokens   = 2048 // induction reply bound (WebArena's)
	DefaultBlockTokens = 2000 // the workflow block's cap in the acting prompt
	DefaultFallbackK   = 10   // workflows of other groups for a group with none
)

// Config tunes AWM. Zero fields take the defaults.
type Config struct {
	// MaxTokens bounds an induction reply; default 2048.
	MaxTokens int `json:"max_tokens,omitempty"`
	// BlockTokens caps a group's workflow text (characters / 4), keeping
	// the last induced workflows; default 2000.
	BlockTokens int `json:"block_tokens,omitempty"`
	// FallbackK is how many workflows of other groups a task whose group
	// has none is shown; default 10.
	FallbackK int `json:"fallback_k,omitempty"`
	// Name is the method's name; default "awm".
	Name string `json:"-"`
	// Temperature of the model calls; default 0 (spec §7, instead of
	// WebArena's 1.0, for repeatable runs). Set from -temperature.
	Temperature float64 `json:"-"`
}

// Resolved is the configuration with its defaults made explicit.
func (c Config) Resolved() Config {
	c.MaxTokens = cmp.Or(c.MaxTokens, DefaultMaxTokens)
	c.BlockTokens = cmp.Or(c.BlockTokens, DefaultBlockTokens)
	c.FallbackK = cmp.Or(c.FallbackK, DefaultFallbackK)
	c.Name = cmp.Or(c.Name, Name)
	return c
}

// ErrConfig is returned (wrapped) by New for an invalid configuration.
var ErrConfig = errors.New("awm: invalid configuration")

// Deps are the models AWM runs on.
type Deps struct {
	// Chat runs the actor and the induction; nil selects Offline's roles.
	Chat llm.Chatter
	// Embed ranks other groups' workflows for a group with none (and maps
	// a proposed action onto the admissible list); required.
	Embed   llm.Embedder
	Offline Roles
}

// Roles are AWM's roles: acting and inducing.
type Roles struct {
	Actor   Actor
	Inducer Inducer
}

// Actor begins the acting of one episode, shown the workflows.
type Actor interface {
	Begin(s agent.Start, ws []Shown) Session
}

// Shown is a workflow in an episode's prompt, with its recall ID and, for
// one of another group, its similarity to the task.
type Shown struct {
	ID         string
	Workflow   Workflow
	Similarity float64
}

// Session is the actor of one episode.
type Session interface {
	Act(ctx context.Context, obs envbridge.Observation) (Decision, error)
	Observe(action, text string)
}

// Decision is an actor's step and the IDs of the workflows that guided it.
type Decision struct {
	agent.Decision
	Used []string
}

// Inducer writes a group's workflows from its successful trajectories.
type Inducer interface {
	Induce(ctx context.Context, in InduceInput) ([]Workflow, error)
}

// InduceInput is one induction call.
type InduceInput struct {
	Style    envbridge.Style
	Group    string
	Examples []Trajectory
}

// Trajectory is a successful training episode.
type Trajectory struct {
	TaskID, Goal, Start string
	Steps               []Step
}

// Step is one step: the thought, the action and what it led to.
type Step struct {
	Thought, Action, Text string
}

// Method is AWM as an agent.Method, safe for concurrent use: the groups are
// guarded by one lock, and each group's inductions are serialised by its
// own so that a later one always reads every earlier success.
type Method struct {
	cfg   Config
	roles Roles
	emb   llm.Embedder

	mu     sync.Mutex
	groups map[string]*group
	counts map[string]int

	vecMu sync.Mutex
	vecs  map[string][]float32
}

type group struct {
	induce    sync.Mutex // held for a whole induction
	successes map[string]Trajectory
	seen      map[string]int // successes of each task so far
	changed   bool           // successes changed since the last induction
	workflows []Workflow
}

// New builds AWM on deps.Chat, or on deps.Offline without a model.
func New(cfg Config, deps Deps) (*Method, error) {
	if cfg.MaxTokens < 0 || cfg.BlockTokens < 0 || cfg.FallbackK < 0 || cfg.Temperature < 0 || cfg.Temperature > 2 {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	if deps.Embed == nil {
		return nil, fmt.Errorf("%w: an embedder is required", ErrConfig)
	}
	cfg = cfg.Resolved()
	m := &Method{cfg: cfg, emb: deps.Embed, groups: map[string]*group{}, counts: map[string]int{}, vecs: map[string][]float32{}}
	if deps.Chat != nil {
		m.roles = llmRoles(deps.Chat, deps.Embed, cfg)
	} else if m.roles = deps.Offline; m.roles.Actor == nil || m.roles.Inducer == nil {
		return nil, fmt.Errorf("%w: no model and no offline roles", ErrConfig)
	}
	return m, nil
}

// Name implements agent.Method.
func (m *Method) Name() string { return m.cfg.Name }

// groupOf is a task's group: its type, or "all" for an untyped task.
func groupOf(t envbridge.Task) string { return cmp.Or(t.Type, "all") }

// WorkflowID is the recall ID of a group's n-th workflow (1-based).
func WorkflowID(group string, n int) string { return "workflow-" + group + "-" + strconv.Itoa(n) }

func (m *Method) groupLocked(name string) *group {
	g := m.groups[name]
	if g == nil {
		g = &group{successes: map[string]Trajectory{}, seen: map[string]int{}}
		m.groups[name] = g
	}
	return g
}

// Size implements agent.Sizer.
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, s := 0, 0
	for _, g := range m.groups {
		w += len(g.workflows)
		s += len(g.successes)
	}
	return map[string]int{"workflows": w, "successes": s}
}

// Counters implements agent.Counter: inductions made, and the prompt
// tokens (characters / 4) the workflow blocks added to decisions.
func (m *Method) Counters() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int, len(m.counts))
	for k, v := range m.counts {
		out[k] = v
	}
	return out
}

// Workflows returns a copy of a group's workflows.
func (m *Method) Workflows(group string) []Workflow {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.groups[group]; g != nil {
		return slices.Clone(g.workflows)
	}
	return nil
}

// Start implements agent.Method: the group's workflows, or at evaluation
// the most similar ones of other groups when the group has none.
func (m *Method) Start(ctx context.Context, s agent.Start) (agent.Episode, error) {
	name := groupOf(s.Task)
	m.mu.Lock()
	var shown []Shown
	if g := m.groups[name]; g != nil {
		for i, w := range g.workflows {
			shown = append(shown, Shown{ID: WorkflowID(name, i+1), Workflow: w})
		}
	}
	m.mu.Unlock()
	if len(shown) == 0 && s.Mode.Evaluates() {
		var err error
		if shown, err = m.fallback(ctx, s.Task.Goal, name); err != nil {
			return nil, err
		}
	}
	ws := make([]Workflow, len(shown))
	for i, x := range shown {
		ws[i] = x.Workflow
	}
	return &episode{m: m, start: s, shown: shown, block: tokens(RenderAll(ws)), session: m.roles.Actor.Begin(s, shown)}, nil
}

// fallback ranks every other group's workflows by the cosine similarity of
// "name + description" to the goal and keeps the best FallbackK.
func (m *Method) fallback(ctx context.Context, goal, except string) ([]Shown, error) {
	m.mu.Lock()
	var cands []Shown
	names := make([]string, 0, len(m.groups))
	for n := range m.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == except {
			continue
		}
		for i, w := range m.groups[n].workflows {
			cands = append(cands, Shown{ID: WorkflowID(n, i+1), Workflow: w})
		}
	}
	m.mu.Unlock()
	if len(cands) == 0 {
		return nil, nil
	}
	texts := []string{goal}
	for _, c := range cands {
		texts = append(texts, c.Workflow.Name+" "+c.Workflow.Description)
	}
	vecs, err := m.embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	for i := range cands {
		cands[i].Similarity = cosine(vecs[0], vecs[i+1])
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].Similarity > cands[b].Similarity })
	if len(cands) > m.cfg.FallbackK {
		cands = cands[:m.cfg.FallbackK]
	}
	return cands, nil
}

func (m *Method) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []string
	var where []int
	m.vecMu.Lock()
	for i, t := range texts {
		if v, ok := m.vecs[t]; ok {
			out[i] = v
		} else {
			miss, where = append(miss, t), append(where, i)
		}
	}
	m.vecMu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	vecs, err := m.emb.Embed(ctx, miss)
	if err != nil {
		return nil, fmt.Errorf("awm: embed: %w", err)
	}
	if len(vecs) != len(miss) {
		return nil, fmt.Errorf("awm: embed: %d vectors for %d texts", len(vecs), len(miss))
	}
	m.vecMu.Lock()
	defer m.vecMu.Unlock()
	for i, v := range vecs {
		out[where[i]] = v
		m.vecs[miss[i]] = v
	}
	return out, nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// learn adds a successful training trajectory to its group's pool (an
// earlier one of the task replaced with probability 1/n) and, when the pool
// changed, induces the group's workflows again from all of it.
func (m *Method) learn(ctx context.Context, s agent.Start, tr Trajectory) error {
	name := groupOf(s.Task)
	m.mu.Lock()
	g := m.groupLocked(name)
	g.seen[tr.TaskID]++
	if n := g.seen[tr.TaskID]; n == 1 || s.Rand != nil && s.Rand.IntN(n) == 0 {
		g.successes[tr.TaskID] = tr
		g.changed = true
	}
	m.mu.Unlock()

	g.induce.Lock()
	defer g.induce.Unlock()
	m.mu.Lock()
	if !g.changed {
		m.mu.Unlock()
		return nil // the same examples would give the same workflows
	}
	ids := make([]string, 0, len(g.successes))
	for id := range g.successes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	ex := make([]Trajectory, len(ids))
	for i, id := range ids {
		ex[i] = g.successes[id]
	}
	g.changed = false
	m.mu.Unlock()
	ws, err := m.roles.Inducer.Induce(ctx, InduceInput{Style: s.Style, Group: name, Examples: ex})
	if err != nil {
		m.mu.Lock()
		g.changed = true
		m.mu.Unlock()
		return fmt.Errorf("awm: induce %s: %w", name, err)
	}
	ws = capTokens(ws, m.cfg.BlockTokens)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts["inductions"]++
	if ws != nil {
		// An induction that yields nothing usable keeps the text in force.
		g.workflows = ws
	}
	return nil
}

// MemoryTables implements agent.Shower: every workflow by group, one row
// per step, and the success pool's size by group.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	wt := agent.Table{Name: "workflows", Columns: []string{"group", "workflow", "name", "description", "step", "state", "reasoning", "action"}}
	gt := agent.Table{Name: "groups", Columns: []string{"group", "workflows", "successes", "tokens"}}
	names := make([]string, 0, len(m.groups))
	for n := range m.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		g := m.groups[n]
		for i, w := range g.workflows {
			for j, s := range w.Steps {
				wt.Rows = append(wt.Rows, []string{n, strconv.Itoa(i + 1), w.Name, w.Description, strconv.Itoa(j + 1), s.State, s.Reasoning, s.Action})
			}
		}
		gt.Rows = append(gt.Rows, []string{n, strconv.Itoa(len(g.workflows)), strconv.Itoa(len(g.successes)), strconv.Itoa(tokens(RenderAll(g.workflows)))})
	}
	return []agent.Table{wt, gt}
}

type episode struct {
	m       *Method
	start   agent.Start
	shown   []Shown
	block   int // tokens of the workflow block every decision is shown
	session Session
	tr      Trajectory
}

// Act implements agent.Episode.
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if e.tr.Start == "" && len(e.tr.Steps) == 0 {
		e.tr.Start = obs.Text
	}
	d, err := e.session.Act(ctx, obs)
	if err != nil {
		return agent.Decision{}, err
	}
	out := d.Decision
	out.Guided = len(d.Used) > 0
	if len(e.shown) > 0 {
		e.m.mu.Lock()
		e.m.counts["workflow_tokens"] += e.block
		e.m.mu.Unlock()
		r := &agent.Recall{}
		for _, s := range e.shown {
			it := agent.RecallItem{ID: s.ID, Kind: "workflow", Text: s.Workflow.Render(), Used: slices.Contains(d.Used, s.ID)}
			if s.Similarity != 0 {
				it.Scores = map[string]float64{"similarity": s.Similarity}
			}
			r.Items = append(r.Items, it)
		}
		out.Recall = r
	}
	return out, nil
}

// Observe implements agent.Episode.
func (e *episode) Observe(_ context.Context, t agent.Transition) error {
	e.tr.Steps = append(e.tr.Steps, Step{Thought: t.Decision.Thought, Action: t.Decision.Action, Text: t.Result.Text})
	e.session.Observe(t.Decision.Action, t.Result.Text)
	return nil
}

// Finish implements agent.Episode: a successful episode that learns
// (training, online evaluation: AWM's online induction) is learned from;
// nothing else changes memory.
func (e *episode) Finish(ctx context.Context, out agent.Outcome) error {
	won := out.Won || (out.MaxScore > 0 && out.Score >= out.MaxScore)
	if !e.start.Mode.Learns() || out.Err != "" || !won {
		return nil
	}
	t := e.start.Task
	e.tr.TaskID, e.tr.Goal = t.ID, t.Goal
	return e.m.learn(ctx, e.start, e.tr)
}
