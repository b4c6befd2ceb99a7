package arigraph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/samem/trainer/actions"
	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// Config configures the AriGraph method. Zero fields take the defaults.
type Config struct {
	Depth    int `json:"depth,omitempty"`    // d of the semantic search; default defaultDepth
	Width    int `json:"width,omitempty"`    // w of the semantic search; default defaultWidth
	Episodes int `json:"episodes,omitempty"` // k episodic vertices retrieved; default defaultEpisodes
	History  int `json:"history,omitempty"`  // recent steps in working memory; default defaultHistory
	// Temperature of the LLM roles; default 0. The application sets it
	// from -temperature.
	Temperature float64 `json:"-"`
	// NoEpisodic turns off episodic retrieval (the paper's ablation, seed
	// 000 Sec. 4.3, Fig. 4 "AriGraph w/o episodic").
	NoEpisodic bool `json:"no_episodic"`
	// Carry keeps a task's map and type-level placements from training
	// episodes for later episodes (this project's lifelong option). Off by
	// default: seed 000's agent learns zero-shot, every episode starting
	// with an empty graph (Abstract, Sec. 4).
	Carry bool `json:"carry"`
	// Name is the method's name; default "arigraph" (variants get their own).
	Name string `json:"-"`
}

// Deps are the models the method uses.
type Deps struct {
	Chat  llm.Chatter  // nil: Offline's roles
	Embed llm.Embedder // required
	// Offline are the roles without a model (package arigraph/offline's
	// rules), used when Chat is nil.
	Offline Offline
}

// Offline are the roles the agent runs on without a model.
type Offline interface {
	// Outdater finds the edges new triplets make outdated.
	Outdater
	// Read returns the triplets an observation states; action led to it
	// and prevLoc is where the agent was before.
	Read(style envbridge.Style, text, action, prevLoc string) []Triplet
	// Decide is the planning and decision modules: a reason and an action
	// from working memory, tried counting the actions taken this episode.
	Decide(style envbridge.Style, wm WorkingMemory, tried map[string]int, rng *rand.Rand) (reason, action string)
	// GoalQueries are the retrieval queries a task's goal gives besides its
	// text (the entities it names).
	GoalQueries(goal string) []string
}

// ErrConfig is returned by New for an invalid configuration.
var ErrConfig = errors.New("arigraph: invalid configuration")

// Method is AriGraph with the Ariadne agent as an agent.Method.
//
// What persists across episodes: AriGraph is a world model of one
// environment instance, learned zero-shot within an episode (seed 000).
// Every episode builds its own graph, starting empty, and by default nothing
// persists (training is then a no-op: the paper's setting). With
// Config.Carry, after a training episode the method keeps (1) the map of that task's environment (exit and spatial
// triplets, which a reset does not change), reused when the same task is
// played again (the Z-machine games replay one instance); and (2) a
// persistent store of type-level placements ("apple found in fridge"),
// counted over the training tasks, which orders the exploration of
// unsearched receptacles in new household scenes. Object positions and
// states are not carried over: a reset restores them. In Eval the store is
// read, never written; the episode's own graph is discarded at the end.
type Method struct {
	cfg     Config
	chat    llm.Chatter
	emb     llm.Embedder
	vec     *vectors
	roles   *LLM    // nil offline
	off     Offline // nil with a model
	mu      sync.Mutex
	maps    map[string]*Graph         // task ID -> static map triplets
	priors  map[string]map[string]int // object type -> receptacle type -> count
	trained int
}

// New returns an AriGraph method.
func New(cfg Config, deps Deps) (*Method, error) {
	if deps.Embed == nil {
		return nil, fmt.Errorf("%w: no embedder", ErrConfig)
	}
	if cfg.Depth < 0 || cfg.Width < 0 || cfg.Episodes < 0 || cfg.History < 0 {
		return nil, fmt.Errorf("%w: negative search size %+v", ErrConfig, cfg)
	}
	cfg.Depth = cmp.Or(cfg.Depth, defaultDepth)
	cfg.Width = cmp.Or(cfg.Width, defaultWidth)
	cfg.Episodes = cmp.Or(cfg.Episodes, defaultEpisodes)
	cfg.History = cmp.Or(cfg.History, defaultHistory)
	cfg.Name = cmp.Or(cfg.Name, "arigraph")
	m := &Method{cfg: cfg, chat: deps.Chat, emb: deps.Embed, vec: newVectors(deps.Embed),
		maps: map[string]*Graph{}, priors: map[string]map[string]int{}}
	if deps.Chat != nil {
		m.roles = &LLM{Chat: deps.Chat, Temperature: cfg.Temperature}
	} else if m.off = deps.Offline; m.off == nil {
		return nil, fmt.Errorf("%w: no model and no offline roles", ErrConfig)
	}
	return m, nil
}

// Name implements agent.Method.
func (m *Method) Name() string { return m.cfg.Name }

// Size implements agent.Sizer.
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, g := range m.maps {
		n += g.Len()
	}
	p := 0
	for _, r := range m.priors {
		p += len(r)
	}
	return map[string]int{"map_triplets": n, "maps": len(m.maps), "priors": p}
}

// Start implements agent.Method.
func (m *Method) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	g := NewGraph()
	var priors []string
	if m.cfg.Carry {
		m.mu.Lock()
		if mp := m.maps[s.Task.ID]; mp != nil {
			g.Add(mp.edges...)
		}
		priors = m.priorLines()
		m.mu.Unlock()
	}
	rng := s.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(uint64(s.Task.Seed), 7))
	}
	return &episode{m: m, s: s, g: g, priors: priors, rng: rng, tried: map[string]int{}}, nil
}

// priorLines renders the store as "object found in receptacle", most
// frequent first. Caller holds m.mu.
func (m *Method) priorLines() []string {
	type pr struct {
		line string
		n    int
	}
	var all []pr
	for o, rs := range m.priors {
		for r, n := range rs {
			all = append(all, pr{o + " found in " + r, n})
		}
	}
	slices.SortFunc(all, func(a, b pr) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return strings.Compare(a.line, b.line)
	})
	out := make([]string, len(all))
	for i, p := range all {
		out[i] = p.line
	}
	return out
}

type episode struct {
	m      *Method
	s      agent.Start
	g      *Graph
	priors []string
	rng    *rand.Rand

	step     int
	loc      string
	lastAct  string
	lastObs  string
	history  []Step
	plan     string
	route    []string // remaining moves of a "go to" in fiction
	routeTo  string
	tried    map[string]int
	examples []Triplet
	// recalled are the episodic vertices the last retrieval returned,
	// with their relevance, for the decision's Recall.
	recalled []scoredEpisode
}

func (e *episode) style() envbridge.Style {
	if e.s.Style == "" {
		return envbridge.StyleFiction
	}
	return e.s.Style
}

// Act implements agent.Episode: learn from the observation, retrieve, plan,
// decide (seed 000 Sec. 3).
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	fresh, err := e.learn(ctx, obs.Text)
	if err != nil {
		return agent.Decision{}, err
	}
	// continue a route in progress while it goes as planned
	if len(e.route) > 0 && e.style() != envbridge.StyleHousehold {
		d := e.route[0]
		e.route = e.route[1:]
		return agent.Decision{Thought: "on the way to " + e.routeTo, Action: "go " + d, Guided: true,
			Recall: &agent.Recall{Plan: e.plan, Notes: []string{"following the graph's route to " + e.routeTo}}}, nil
	}
	wm, err := e.workingMemory(ctx, obs, fresh)
	if err != nil {
		return agent.Decision{}, err
	}
	var reason, action string
	if e.m.roles == nil {
		reason, action = e.m.off.Decide(e.style(), wm, e.tried, e.rng)
	} else {
		if wm.Explore, err = e.m.roles.NeedsExploration(ctx, cmp.Or(e.plan, wm.Goal)); err != nil {
			return agent.Decision{}, err
		}
		if e.plan, err = e.m.roles.Plan(ctx, wm); err != nil {
			return agent.Decision{}, err
		}
		wm.Plan = e.plan
		if reason, action, err = e.m.roles.Decide(ctx, wm); err != nil {
			return agent.Decision{}, err
		}
		if obs.Admissible != nil && !slices.Contains(wm.Actions, action) {
			match, _, ok, err := actions.MatchAdmissible(ctx, e.m.emb, action, wm.Actions)
			if err != nil {
				return agent.Decision{}, err
			}
			if ok {
				action = match
			} else {
				action = Fallback(wm.Actions, e.tried, e.rng)
			}
		}
		if action == "" {
			action = "look"
		}
	}
	// "go to <location>" in fiction becomes the route's moves.
	if to, ok := strings.CutPrefix(action, "go to "); ok && e.style() != envbridge.StyleHousehold {
		if path, ok := e.g.Route(e.loc, to); ok && len(path) > 0 {
			e.route, e.routeTo = path[1:], to
			e.tried[action]++
			return agent.Decision{Thought: reason, Action: "go " + path[0], Guided: true, Recall: e.recall(wm, fresh)}, nil
		}
	}
	return agent.Decision{Thought: reason, Action: action, Guided: len(wm.Facts) > 0, Recall: e.recall(wm, fresh)}, nil
}

// recall is what a decision read from the graph: the triplets of the
// working memory, the episodic vertices retrieved with their relevance
// (seed 000 Eq. 1), the plan, and the triplets the observation added.
func (e *episode) recall(wm WorkingMemory, fresh []Triplet) *agent.Recall {
	r := &agent.Recall{Plan: wm.Plan, State: wm.Location}
	for _, t := range wm.Facts {
		r.Items = append(r.Items, agent.RecallItem{ID: t.String(), Kind: "triplet", Text: t.String()})
	}
	for _, ep := range e.recalled {
		r.Items = append(r.Items, agent.RecallItem{
			ID: "step " + strconv.Itoa(ep.Step), Kind: "episodic", Text: ep.Text,
			Scores: map[string]float64{"relevance": ep.Score, "step": float64(ep.Step)},
		})
	}
	for _, t := range fresh {
		r.Notes = append(r.Notes, "graph update: "+t.String())
	}
	for _, p := range wm.Priors {
		r.Notes = append(r.Notes, "from earlier tasks: "+p)
	}
	return r
}

// learn updates the graph from one observation (seed 000 Sec. 2) and tracks
// the agent's location.
func (e *episode) learn(ctx context.Context, text string) ([]Triplet, error) {
	prev := e.loc
	loc, spatial := Locate(e.style(), text, e.lastAct, prev)
	if loc != "" {
		e.loc = loc
	}
	if e.routeTo != "" && len(e.route) > 0 {
		if _, ok := e.g.Route(e.loc, e.routeTo); !ok || e.loc == prev {
			e.route = nil // a move failed: drop the route and decide afresh
		}
	}
	var fresh []Triplet
	var od Outdater = e.m.off
	if e.m.roles == nil {
		fresh = e.m.off.Read(e.style(), text, e.lastAct, prev)
	} else {
		var err error
		fresh, err = e.m.roles.Extract(ctx, e.examples, text)
		if err != nil {
			return nil, err
		}
		// the agent's own bookkeeping of moves (Appendix B's spatial edges)
		fresh = append(fresh, spatial...)
		od = e.m.roles
	}
	up, err := e.g.Learn(ctx, od, e.step, text, fresh)
	if err != nil {
		return nil, err
	}
	if len(up.New) > 0 {
		e.examples = up.New[:min(len(up.New), 10)]
	}
	e.lastObs = text
	e.step++
	return up.New, nil
}

func (e *episode) workingMemory(ctx context.Context, obs envbridge.Observation, fresh []Triplet) (WorkingMemory, error) {
	queries := e.queries(fresh)
	k := e.m.cfg.Episodes
	if e.m.cfg.NoEpisodic {
		k = 0
	}
	r, err := e.g.Search(ctx, e.m.vec, queries, e.m.cfg.Depth, e.m.cfg.Width, k)
	if err != nil {
		return WorkingMemory{}, fmt.Errorf("retrieve: %w", err)
	}
	wm := WorkingMemory{
		Goal:        e.s.Task.Goal,
		History:     e.history[max(0, len(e.history)-e.m.cfg.History):],
		Observation: obs.Text,
		Facts:       r.Triplets,
		K:           k,
		Plan:        e.plan,
		Location:    e.loc,
		Actions:     obs.Admissible,
		Priors:      e.priors,
	}
	e.recalled = r.Episodes
	for _, ep := range r.Episodes {
		wm.Episodes = append(wm.Episodes, ep.Text)
	}
	if e.style() == envbridge.StyleHousehold {
		wm.Exits = map[string][]string{"room": e.g.UnsearchedReceptacles()}
		// the decider also needs what the graph knows about the held object
		// and the goal types, which retrieval may rank low: the paper's agent
		// sees the incident edges of the current observation's entities.
		wm.Facts = appendNew(wm.Facts, e.g.Incident([]string{Inventory, e.loc})...)
	} else {
		wm.Exits = e.g.AllUnexploredExits()
		wm.Facts = appendNew(wm.Facts, e.g.Incident([]string{Inventory, e.loc})...)
	}
	if obs.Admissible == nil && e.style() != envbridge.StyleHousehold {
		for _, l := range e.g.Locations() {
			if l != e.loc {
				wm.Actions = append(wm.Actions, "go to "+l)
			}
		}
		wm.Actions = nilIfEmpty(wm.Actions)
	} else if obs.Admissible != nil {
		wm.Actions = slices.Clone(obs.Admissible)
	}
	return wm, nil
}

// queries are the retrieval queries of a step (seed 000 Algorithm 1's Q):
// the goal's text and the entities it names, the entities of the triplets
// just extracted, and the agent's location. With a model the goal's
// entities are the graph's vertices its words name, in any world;
// offline, those the offline roles read from it.
func (e *episode) queries(fresh []Triplet) []string {
	queries := []string{e.s.Task.Goal}
	if e.m.off != nil {
		queries = append(queries, e.m.off.GoalQueries(e.s.Task.Goal)...)
	} else {
		queries = append(queries, e.g.Named(e.s.Task.Goal)...)
	}
	queries = append(queries, tripletEntities(fresh)...)
	if e.loc != "" {
		queries = append(queries, e.loc)
	}
	return slices.DeleteFunc(queries, func(q string) bool { return q == "" })
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func appendNew(ts []Triplet, more ...Triplet) []Triplet {
	seen := map[Triplet]bool{}
	for _, t := range ts {
		seen[t] = true
	}
	for _, t := range more {
		if !seen[t] {
			seen[t] = true
			ts = append(ts, t)
		}
	}
	return ts
}

// Observe implements agent.Episode.
func (e *episode) Observe(_ context.Context, tr agent.Transition) error {
	e.history = append(e.history, Step{Observation: e.lastObs, Action: tr.Decision.Action})
	e.lastAct = tr.Decision.Action
	e.tried[tr.Decision.Action]++
	return nil
}

// Finish implements agent.Episode: with Config.Carry, an episode that
// learns (training, online evaluation) stores its map and type-level placements; otherwise the graph is dropped.
func (e *episode) Finish(_ context.Context, _ agent.Outcome) error {
	if !e.s.Mode.Learns() || !e.m.cfg.Carry {
		return nil
	}
	m := e.m
	m.mu.Lock()
	defer m.mu.Unlock()
	mp := m.maps[e.s.Task.ID]
	if mp == nil {
		mp = NewGraph()
	}
	for _, t := range e.g.edges {
		if _, ok := spatialDir(t); ok {
			mp.Add(t)
		} else if _, ok := exitDir(t); ok {
			mp.Add(t)
		}
	}
	if mp.Len() > 0 {
		m.maps[e.s.Task.ID] = mp
	}
	seen := map[[2]string]bool{}
	for _, ep := range e.g.episodes {
		for _, t := range ep.Triplets {
			if !locationRels[t.Relation] || t.Object == Inventory {
				continue
			}
			key := [2]string{kindOf(t.Subject), kindOf(t.Object)}
			if seen[key] {
				continue
			}
			seen[key] = true
			if m.priors[key[0]] == nil {
				m.priors[key[0]] = map[string]int{}
			}
			m.priors[key[0]][key[1]]++
		}
	}
	m.trained++
	return nil
}
