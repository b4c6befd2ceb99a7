// Package kgplan is L3M+P (seed 003): the agent's memory is a knowledge
// graph standing for the world state, whose updates are verified against a
// PDDL domain (household.pddl), and the agent acts by filling a PDDL problem
// from retrieved triplets and handing it to a classical planner (package
// pddl), re-planning when a step fails.
//
// Roles (seed 003 Sec. IV): the update reader (observation -> triplets to
// remove and add), the entity selector (query -> relevant entities) and the
// goal writer (task text -> :goal). Each has an LLM-backed implementation
// (prompts under prompts/) and one without a model (Deps.Text: package
// kgplan/offline's rules over the household text, reading only what the
// agent sees). In normal play the agent sees the
// room only as it explores: when no plan for the goal exists yet, it plans
// to visit and open the next receptacle it has not looked into.
package kgplan

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/pddl"
)

// ErrStyle is returned by Start for an environment whose text is not the
// household world's: household.pddl is the only domain this method has.
var ErrStyle = errors.New("kgplan needs the household world")

// ErrConfig is returned by New for an unusable configuration.
var ErrConfig = errors.New("kgplan: invalid configuration")

// Config tunes the method. The zero value gives the defaults.
type Config struct {
	// Depth is the retrieval depth around relevant entities (seed 003
	// Sec. IV-A, "a certain maximum depth"; the paper gives no number).
	// Default 2: an object, the receptacle it is in, and that receptacle's state.
	Depth int `json:"depth,omitempty"`
	// UpdateAttempts bounds the LLM update prompts per observation, the
	// first included, re-prompting with the verifier's violations (seed 003
	// Sec. IV-B step 4). Default 3.
	UpdateAttempts int `json:"update_attempts,omitempty"`
	// GoalAttempts bounds the LLM :goal prompts per planning query,
	// re-prompting with the planner's error (Sec. IV-C step 5). Default 3.
	GoalAttempts int `json:"goal_attempts,omitempty"`
	// MaxReplans bounds re-planning after failed steps in one episode before
	// the agent gives up on planning and explores. Default 10.
	MaxReplans int `json:"max_replans,omitempty"`
	// PlannerSpec names the planner as -planner does (pddl.ParsePlanner):
	// "" or "astar" (the built-in A*), "fast-downward=PATH", or an external
	// planner's command line naming {domain}, {problem} and {plan}. New
	// builds it when Planner is nil.
	PlannerSpec string `json:"planner,omitempty"`
	// Planner plans; nil means the one PlannerSpec names.
	Planner pddl.Planner `json:"-"`
	// NoLifelong starts every episode with an empty graph (the memory is
	// still kept and saved); default off: an episode of a task starts from
	// the graph learned in training (seed 003's lifelong memory, lifelong.go).
	NoLifelong bool `json:"no_lifelong"`
	// GoalRepromptSyntaxOnly re-prompts the goal writer only when the
	// planner rejects the goal as undefined or malformed (the former
	// behaviour). Default off: any planner failure, "no plan" included, is
	// reported back and the goal re-prompted (seed 003 Sec. IV-C step 5).
	GoalRepromptSyntaxOnly bool `json:"goal_reprompt_syntax_only,omitempty"`
	// Prior, when set, is applied to the graph at the start of each episode
	// after the first observation. It is the test-only "full observation"
	// switch: tests build it from the household world's start state. Normal
	// play leaves it nil.
	Prior func(t envbridge.Task) (Update, error) `json:"-"`
	// CanHold, when set, tells exploration which receptacle class can hold
	// which object class (public facts of the game, ALFWORLD-FACTS.md), so
	// that likely places are searched first; household.CanHold fits. Nil:
	// receptacles are searched in name order.
	CanHold func(recep, obj string) bool `json:"-"`
	// Temperature of the model calls; default 0. The application sets it
	// from -temperature.
	Temperature float64 `json:"-"`
}

func (c Config) withDefaults() Config {
	if c.Depth <= 0 {
		c.Depth = 2
	}
	if c.UpdateAttempts <= 0 {
		c.UpdateAttempts = 3
	}
	if c.GoalAttempts <= 0 {
		c.GoalAttempts = 3
	}
	if c.MaxReplans <= 0 {
		c.MaxReplans = 10
	}
	if c.Planner == nil {
		c.Planner = &pddl.AStar{}
	}
	return c
}

// Deps are the model roles. Chat nil means Text's rules.
type Deps struct {
	Chat llm.Chatter
	// Embed is unused by this method (retrieval is by graph distance);
	// accepted so that every method is built the same way.
	Embed llm.Embedder
	// Text reads the household world's text; required (package
	// kgplan/offline's Text).
	Text Text
}

// Text is how the agent reads the text of the household world, the world
// household.pddl is written for: the update reader and :goal writer that
// stand in for the model's roles without one, and the reading the agent
// does itself on every path.
type Text interface {
	// Read is the update reader without a model (seed 003 Sec. IV-B, rules
	// standing in for the LLM): the triplets one observation removes and
	// adds. failed is true when the text says the action did nothing.
	Read(g *Graph, obs string) (u Update, failed bool)
	// Goal is the :goal writer without a model (Sec. IV-C step 3).
	Goal(dom *pddl.Domain, text string) (pddl.Condition, error)
	// Event is what an observation says happened, read on every path.
	Event(obs string) Event
	// GoalObject is the class of object a task's goal is about ("" when
	// the goal names none): exploration searches first where it can be.
	GoalObject(goal string) string
}

// Event is what an observation says happened.
type Event struct {
	// Failed: the action did nothing ("Nothing happens.").
	Failed bool
	// Arrived is the receptacle the agent arrived at, "" if none.
	Arrived string
	// Known: the text is one the reader knows; after a planned step whose
	// text it does not know, the step's effects stand in (Sec. IV-C step 5).
	Known bool
}

// ErrNoText is returned by New without Deps.Text.
var ErrNoText = errors.New("kgplan: no reader of the household text (kgplan/offline.Text)")

// Stats counts what the method did, for reports and tests.
type Stats struct {
	Updates, Rejected, Plans, Replans, Explorations, PlannerErrors int
	// TaskRecalls and SceneRecalls count the episodes that started from
	// their task's kept graph and from their scene's (lifelong.go).
	TaskRecalls, SceneRecalls int
}

// Method is L3M+P. After a training episode it keeps the knowledge graph of
// the world the episode played in, as a reset will leave it, under the task
// (its environment instance) and under its scene (lifelong.go), and saves
// them with checkpoints. An episode starts from its task's graph, else from
// its scene's, else empty (seed 003's lifelong memory; Config.NoLifelong
// starts every episode empty).
type Method struct {
	cfg  Config
	deps Deps
	dom  *pddl.Domain

	mu     sync.Mutex
	graphs map[string]*Graph // task ID or scene key (SceneKey) -> graph at the end of its last training episode there
	stats  Stats
}

var (
	_ agent.Method = (*Method)(nil)
	_ agent.Saver  = (*Method)(nil)
	_ agent.Sizer  = (*Method)(nil)
)

// New builds the method over the household domain.
func New(cfg Config, deps Deps) (*Method, error) {
	if deps.Text == nil {
		return nil, ErrNoText
	}
	dom, err := Household()
	if err != nil {
		return nil, err
	}
	if cfg.Planner == nil {
		if cfg.Planner, err = pddl.ParsePlanner(cfg.PlannerSpec); err != nil {
			return nil, fmt.Errorf("%w: planner: %v", ErrConfig, err)
		}
	}
	if cfg.Temperature < 0 {
		return nil, fmt.Errorf("%w: temperature %v is negative", ErrConfig, cfg.Temperature)
	}
	return &Method{cfg: cfg.withDefaults(), deps: deps, dom: dom, graphs: map[string]*Graph{}}, nil
}

// Name implements agent.Method.
func (m *Method) Name() string { return "kgplan" }

// Stats returns the counters so far.
func (m *Method) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// Size implements agent.Sizer.
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, h := 0, 0
	for _, g := range m.graphs {
		n += g.Len()
		h += len(g.history)
	}
	return map[string]int{"graphs": len(m.graphs), "triplets": n, "changes": h}
}

// Graph returns a copy of the graph kept for a task, if any.
func (m *Method) Graph(taskID string) (*Graph, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.graphs[taskID]
	if !ok {
		return nil, false
	}
	return g.clone(), true
}

func (g *Graph) clone() *Graph {
	c := NewGraph(g.dom)
	for k, v := range g.types {
		c.types[k] = v
	}
	for k := range g.edges {
		c.edges[k] = true
	}
	c.history = slices.Clone(g.history)
	return c
}

// Start implements agent.Method.
// The domain is the household world's, so other styles are refused with
// ErrStyle.
func (m *Method) Start(ctx context.Context, s agent.Start) (agent.Episode, error) {
	if s.Style != "" && s.Style != envbridge.StyleHousehold {
		return nil, fmt.Errorf("kgplan: %w: %s", ErrStyle, s.Style)
	}
	rnd := s.Rand
	if rnd == nil {
		rnd = rand.New(rand.NewPCG(uint64(s.Task.Seed), 8))
	}
	g := NewGraph(m.dom)
	return &episode{m: m, task: s.Task, mode: s.Mode, rnd: rnd, g: g, visited: map[string]bool{}, touched: map[string]bool{}, step: -1}, nil
}

// episode is one trial: its own graph of the world it is in.
type episode struct {
	m    *Method
	task envbridge.Task
	mode agent.Mode
	rnd  *rand.Rand
	g    *Graph

	started   bool
	goal      pddl.Condition
	goalErr   error
	plan      pddl.Plan // remaining steps
	exploring bool      // plan is an exploration plan, not a plan for the goal
	target    string    // receptacle being explored
	visited   map[string]bool
	touched   map[string]bool // entities the agent's steps changed (lifelong.go)
	scene     string          // the scene's key (SceneKey), from the first observation
	recalled  string          // where the starting graph came from: "task", "scene" or ""
	replans   int
	step      int // index of the last action taken; -1 before the first
	last      *pddl.Step
	stats     Stats
	// shown is how much of the graph's history the last Recall reported.
	shown int
}

// Act implements agent.Episode.
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if !e.started {
		e.started = true
		e.scene = SceneKey(e.task.Goal, obs.Text)
		if !e.m.cfg.NoLifelong {
			e.g, e.recalled = e.m.recall(e.task.ID, e.scene, e.g) // lifelong memory (lifelong.go)
			e.shown = len(e.g.history)
		}
		if err := e.update(ctx, obs.Text); err != nil {
			return agent.Decision{}, err
		}
		if e.m.cfg.Prior != nil {
			u, err := e.m.cfg.Prior(e.task)
			if err != nil {
				return agent.Decision{}, fmt.Errorf("kgplan prior: %w", err)
			}
			if err := e.g.Apply(u, -1, "scene"); err != nil {
				return agent.Decision{}, fmt.Errorf("kgplan prior: %w", err)
			}
			for _, ent := range e.g.Entities() {
				if e.m.dom.IsA(ent.Type, "receptacle") {
					e.visited[ent.Name] = true
				}
			}
		}
		e.goal, e.goalErr = e.writeGoal(ctx, obs.Text, "")
	}
	for attempt := 0; attempt < 3; attempt++ {
		if len(e.plan) == 0 || e.exploring {
			if err := e.replan(ctx); err != nil {
				return agent.Decision{}, err
			}
		}
		if len(e.plan) == 0 {
			break
		}
		st := e.plan[0]
		if !e.applicable(st) {
			e.plan = nil
			e.count(func(s *Stats) { s.Replans++ })
			continue
		}
		text := e.render(st, obs.Admissible)
		if obs.Admissible != nil && !slices.Contains(obs.Admissible, text) {
			e.plan = nil
			e.count(func(s *Stats) { s.Replans++ })
			continue
		}
		e.plan = e.plan[1:]
		e.last = &st
		e.touch(st)
		thought := "plan: " + st.String()
		if e.exploring {
			thought = "explore " + e.target + ": " + st.String()
		}
		return agent.Decision{Thought: thought, Action: text, Guided: !e.exploring, Recall: e.recall(&st)}, nil
	}
	// Nothing to plan and nothing left to explore: look around.
	e.last = nil
	action := "look"
	if len(obs.Admissible) > 0 && !slices.Contains(obs.Admissible, action) {
		action = obs.Admissible[e.rnd.IntN(len(obs.Admissible))]
	}
	return agent.Decision{Thought: "no plan", Action: action, Recall: e.recall(nil)}, nil
}

// recall is what a decision read from the graph: the changes applied to it
// since the last decision (seed 003 Sec. IV-B: the update from the
// observation, the effects of the step taken), the goal, and the plan from
// the step taken now.
func (e *episode) recall(now *pddl.Step) *agent.Recall {
	r := &agent.Recall{}
	var steps []string
	if now != nil {
		steps = append(steps, now.String())
	}
	for _, st := range e.plan {
		steps = append(steps, st.String())
	}
	r.Plan = strings.Join(steps, "\n")
	if e.exploring {
		r.Explored = true
		r.Notes = append(r.Notes, "exploring "+e.target)
	}
	if e.goalErr == nil && len(e.goal.Lits) > 0 {
		r.Notes = append(r.Notes, "goal: "+e.goal.String())
	}
	for _, c := range e.g.history[min(e.shown, len(e.g.history)):] {
		r.Items = append(r.Items, agent.RecallItem{ID: strconv.Itoa(c.Seq), Kind: "update " + c.Op, Text: c.Triplet.String(),
			Scores: map[string]float64{"step": float64(c.Step)}})
	}
	e.shown = len(e.g.history)
	return r
}

func (e *episode) count(f func(*Stats)) { f(&e.stats) }

// Observe implements agent.Episode: the observation updates the graph; a
// step that did nothing drops the plan (re-planning at the next Act).
func (e *episode) Observe(ctx context.Context, tr agent.Transition) error {
	e.step = tr.Step
	text := tr.Result.Text
	ev := e.m.deps.Text.Event(text)
	if ev.Failed {
		if e.plan != nil || e.last != nil {
			e.plan = nil
			e.replans++
			e.count(func(s *Stats) { s.Replans++ })
		}
		e.last = nil
		return nil
	}
	before := e.g.Len() + len(e.g.history)
	if err := e.update(ctx, text); err != nil {
		return err
	}
	if ev.Arrived != "" {
		e.visited[ev.Arrived] = true
	}
	// Text that changed nothing: apply the planned step's effects, s_{t,i} =
	// f(s_{t,i-1}, a_i) (seed 003 Sec. IV-C step 5).
	if e.last != nil && e.g.Len()+len(e.g.history) == before && !ev.Known {
		if err := e.g.Apply(e.effects(*e.last), e.step, "plan"); err != nil {
			e.plan = nil
		}
	}
	e.last = nil
	return nil
}

// Finish implements agent.Episode: after an episode that learns (training,
// online evaluation), the graph as the task's world will be after a reset
// becomes the task's memory (lifelong.go); a frozen evaluation leaves
// memory as it was.
func (e *episode) Finish(ctx context.Context, out agent.Outcome) error {
	var kept *Graph
	if e.mode.Learns() {
		if g, ok := e.resetKnowledge(); ok {
			kept = g
		}
	}
	e.m.mu.Lock()
	defer e.m.mu.Unlock()
	if kept != nil {
		e.m.graphs[e.task.ID] = kept
		if e.scene != "" {
			e.m.graphs[e.scene] = kept.clone()
		}
	}
	s := &e.m.stats
	s.Updates += e.stats.Updates
	s.Rejected += e.stats.Rejected
	s.Plans += e.stats.Plans
	s.Replans += e.stats.Replans
	s.Explorations += e.stats.Explorations
	s.PlannerErrors += e.stats.PlannerErrors
	switch e.recalled {
	case "task":
		s.TaskRecalls++
	case "scene":
		s.SceneRecalls++
	}
	return nil
}

// update reads one observation into the graph: by the LLM with verification
// and feedback when a model is set, else by the offline reader.
func (e *episode) update(ctx context.Context, text string) error {
	if e.m.deps.Chat != nil {
		return e.llmUpdate(ctx, text)
	}
	u, _ := e.m.deps.Text.Read(e.g, text)
	if u.Empty() {
		return nil
	}
	if err := e.g.Apply(u, e.step, "reader"); err != nil {
		// The reader's own output broke the domain's rules: a bug or text it
		// misread. Keep playing; the graph is unchanged.
		e.count(func(s *Stats) { s.Rejected++ })
		return nil
	}
	e.count(func(s *Stats) { s.Updates++ })
	return nil
}

// state returns the graph as a PDDL state and object table.
func (e *episode) state() (pddl.State, map[string]string) {
	s := pddl.State{}
	for _, t := range e.g.Triplets() {
		if a, ok := atomOf(t); ok {
			s[strings.TrimSpace(a.String()[1:len(a.String())-1])] = true
		}
	}
	objs := map[string]string{}
	for _, ent := range e.g.Entities() {
		objs[ToPDDL(ent.Name)] = ent.Type
	}
	return s, objs
}

// applicable reports whether st's preconditions hold in the graph now.
func (e *episode) applicable(st pddl.Step) bool {
	s, objs := e.state()
	return e.m.dom.Apply(s, objs, st) == nil
}

// effects turns a ground step's effects into a graph update.
func (e *episode) effects(st pddl.Step) Update {
	a, ok := e.m.dom.Action(st.Action)
	if !ok || len(a.Params) != len(st.Args) {
		return Update{}
	}
	bind := map[string]string{}
	for i, p := range a.Params {
		bind[p.Name] = FromPDDL(st.Args[i])
	}
	var u Update
	for _, l := range a.Effect {
		args := make([]string, len(l.Args))
		for i, x := range l.Args {
			args[i] = bind[x]
			if args[i] == "" {
				args[i] = FromPDDL(x)
			}
		}
		if len(args) == 1 {
			v := True
			if l.Neg {
				v = False
			}
			u.Add = append(u.Add, Triplet{args[0], l.Pred, v})
		} else if len(args) == 2 {
			t := Triplet{args[0], l.Pred, args[1]}
			if l.Neg {
				u.Remove = append(u.Remove, t)
			} else {
				u.Add = append(u.Add, t)
			}
		}
	}
	return u
}

// render writes a plan step as a household action (ALFWorld's grammar); the
// place action follows the admissible list's form ("put X in/on Y" or
// "move X to Y").
func (e *episode) render(st pddl.Step, admissible []string) string {
	arg := func(i int) string {
		if i < len(st.Args) {
			return FromPDDL(st.Args[i])
		}
		return ""
	}
	switch st.Action {
	case "goto":
		return "go to " + arg(2)
	case "open", "close":
		return st.Action + " " + arg(1)
	case "take":
		return "take " + arg(1) + " from " + arg(2)
	case "put":
		move := "move " + arg(1) + " to " + arg(2)
		if slices.Contains(admissible, move) {
			return move
		}
		return "put " + arg(1) + " in/on " + arg(2)
	case "clean", "heat", "cool":
		return st.Action + " " + arg(1) + " with " + arg(2)
	case "use":
		return "use " + arg(1)
	}
	return st.String()
}

// replan plans for the goal from retrieved triplets; when no plan exists
// (the goal's objects are not known yet), it plans to look into the next
// receptacle not visited yet.
func (e *episode) replan(ctx context.Context) error {
	if e.goalErr == nil && e.replans <= e.m.cfg.MaxReplans {
		plan, err := e.planGoal(ctx)
		if err == nil {
			e.plan, e.exploring, e.target = plan, false, ""
			e.count(func(s *Stats) { s.Plans++ })
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	// Keep following an exploration plan that still has steps.
	if e.exploring && len(e.plan) > 0 {
		return nil
	}
	for _, r := range e.explorationOrder() {
		goal := pddl.Condition{Lits: []pddl.Literal{
			{Atom: pddl.Atom{Pred: "at", Args: []string{Agent, ToPDDL(r)}}},
			{Atom: pddl.Atom{Pred: "opened", Args: []string{ToPDDL(r)}}},
		}}
		tr := e.g.Retrieve([]string{Agent, r}, e.m.cfg.Depth)
		p := e.g.Problem("explore", tr, []string{r}, goal)
		plan, err := e.m.cfg.Planner.Plan(ctx, e.m.dom, p)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			e.visited[r] = true // cannot be reached: do not try again
			continue
		}
		e.visited[r] = true
		e.plan, e.exploring, e.target = plan, true, r
		e.count(func(s *Stats) { s.Explorations++ })
		if len(plan) > 0 {
			return nil
		}
	}
	e.plan, e.exploring = nil, false
	return nil
}

// explorationOrder lists receptacles not yet looked into: first those that
// can hold the goal's object (when the placement facts are known), then the
// others, each group in name order.
func (e *episode) explorationOrder() []string {
	obj := e.m.deps.Text.GoalObject(e.task.Goal)
	var likely, other []string
	for _, ent := range e.g.Entities() {
		if !e.m.dom.IsA(ent.Type, "receptacle") || e.visited[ent.Name] {
			continue
		}
		class, _ := kindOf(ent.Name)
		if e.m.cfg.CanHold != nil && obj != "" && e.m.cfg.CanHold(class, obj) {
			likely = append(likely, ent.Name)
		} else {
			other = append(other, ent.Name)
		}
	}
	return append(likely, other...)
}

// planGoal runs one planning query (seed 003 Sec. IV-C): retrieve, fill
// :init, plan; with an LLM goal writer, re-prompt it with the planner's
// error up to GoalAttempts.
func (e *episode) planGoal(ctx context.Context) (pddl.Plan, error) {
	goal := e.goal
	var lastErr error
	attempts := 1
	if e.m.deps.Chat != nil {
		attempts = e.m.cfg.GoalAttempts
	}
	for i := 0; i < attempts; i++ {
		if i > 0 {
			var err error
			goal, err = e.writeGoal(ctx, e.task.Goal, lastErr.Error())
			if err != nil {
				lastErr = err
				continue
			}
		}
		seeds, err := e.relevant(ctx, goal)
		if err != nil {
			return nil, err
		}
		tr := e.g.Retrieve(seeds, e.m.cfg.Depth)
		p := e.g.Problem(strings.ReplaceAll(ToPDDL(e.task.ID), "/", "-"), tr, seeds, goal)
		plan, err := e.m.cfg.Planner.Plan(ctx, e.m.dom, p)
		if err == nil {
			e.goal = goal
			return plan, nil
		}
		e.count(func(s *Stats) { s.PlannerErrors++ })
		lastErr = err
		// Seed 003 Sec. IV-C step 5: "Otherwise, provide the LLM with the
		// planner output and iteratively re-prompt it to generate the :goal
		// block" - for any failure. The option keeps re-prompting to goals
		// that do not fit the domain.
		if e.m.cfg.GoalRepromptSyntaxOnly && !errors.Is(err, pddl.ErrUndefined) && !errors.Is(err, pddl.ErrSyntax) {
			break
		}
	}
	return nil, lastErr
}
