// Package expel is ExpeL (Zhao et al., AAAI 2024; ../shared/methods/expel.md),
// the task-level memory seed 002 compares SAMem with (App. B.2): a ReAct
// agent gathers experience on the training tasks with Reflexion retries, an
// extraction step keeps a short ranked list of insights edited by ADD, EDIT,
// AGREE and REMOVE operations with importance counts, and on a held-out
// task the agent gets one attempt with the whole insight list and the k
// successful training trajectories whose task text is most similar.
//
// How the harness's iterations map onto ExpeL's stages (the spec's SAMem
// protocol, §7): iteration i is Reflexion trial i of every training task not
// yet solved (a solved task replays its successful trajectory, which adds
// nothing to the pool and costs no model call); each failed trial is
// reflected on and the reflection is shown to the task's later trials; at
// the end of every iteration the insights are extracted from scratch over
// the whole pool, so that every checkpoint holds a frozen memory to
// evaluate. Gathering never reads insights, as in the paper.
package expel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// Name is ExpeL's name on the command line.
const Name = "expel"

// Defaults of Config: the paper's values for ALFWorld (spec §3.2, §4).
const (
	DefaultMaxInsights   = 10   // max_num_rules of the paper's ALFWorld command
	DefaultChunk         = 8    // L, successes per success-phase call
	DefaultK             = 2    // few-shots retrieved at evaluation
	DefaultRetrieveRatio = 4    // buffer_retrieve_ratio: k x 4 candidates
	DefaultFewshotTokens = 1500 // max_fewshot_tokens with no hand-written examples (spec §7)
	defaultMaxTokens     = 512  // bound of a reflection or extraction reply
)

// Config tunes ExpeL. Zero fields take the defaults.
type Config struct {
	// Retries is Z, the failed trials of a training task after which it is
	// given up (the paper: 3). Default 0: no bound, so that the iterations
	// bound the trials (the SAMem protocol: 9 iterations give Z = 8).
	Retries int `json:"retries,omitempty"`
	// MaxInsights is max_num_rules: a list this long makes the extraction
	// prompt ask for removals first; REMOVE costs 3 once the list holds
	// MaxInsights+5 (spec §3.2). Default 10.
	MaxInsights int `json:"max_insights,omitempty"`
	// Chunk is L, the successes of one success-phase call. Default 8.
	Chunk int `json:"chunk,omitempty"`
	// K is the number of successful trajectories retrieved for a held-out
	// task, RetrieveRatio the candidates per few-shot searched. Defaults 2, 4.
	K             int `json:"k,omitempty"`
	RetrieveRatio int `json:"retrieve_ratio,omitempty"`
	// FewshotTokens bounds a retrieved trajectory, in tokens counted as
	// characters / 4 (max_fewshot_tokens; default 1500, spec §7: the
	// harness has no hand-written examples to take the bound from).
	FewshotTokens int `json:"fewshot_tokens,omitempty"`
	// MaxTokens bounds a reflection or extraction reply; default 512.
	MaxTokens int `json:"max_tokens,omitempty"`
	// NoInsights and NoRetrieval are the paper's ablations (Sec. 5,
	// "insights only" and "retrieve only"): evaluation without the insight
	// list, or without the retrieved trajectories. Training is the same.
	NoInsights  bool `json:"-"`
	NoRetrieval bool `json:"-"`
	// Name is the method's name; default "expel". Variants set their own.
	Name string `json:"-"`
	// Temperature of the model calls; default 0 (the paper's). The
	// application sets it from -temperature.
	Temperature float64 `json:"-"`
}

// Resolved is the configuration with its defaults made explicit.
func (c Config) Resolved() Config {
	c.MaxInsights = cmp.Or(c.MaxInsights, DefaultMaxInsights)
	c.Chunk = cmp.Or(c.Chunk, DefaultChunk)
	c.K = cmp.Or(c.K, DefaultK)
	c.RetrieveRatio = cmp.Or(c.RetrieveRatio, DefaultRetrieveRatio)
	c.FewshotTokens = cmp.Or(c.FewshotTokens, DefaultFewshotTokens)
	c.MaxTokens = cmp.Or(c.MaxTokens, defaultMaxTokens)
	c.Name = cmp.Or(c.Name, Name)
	return c
}

// ErrConfig is returned (wrapped) by New for an invalid configuration.
var ErrConfig = errors.New("expel: invalid configuration")

// Deps are the models ExpeL runs on.
type Deps struct {
	// Chat runs the actor, the reflection and the extraction; nil selects
	// Offline's roles.
	Chat llm.Chatter
	// Embed embeds task texts for retrieval (and maps a proposed action
	// onto the admissible list); required.
	Embed llm.Embedder
	// Offline are the roles without a model (package expel/offline).
	Offline Roles
}

// Roles are ExpeL's three roles: acting, reflecting, extracting.
type Roles struct {
	Actor     Actor
	Reflector Reflector
	Extractor Extractor
}

// Actor begins the acting of one episode.
type Actor interface {
	Begin(s agent.Start, g Guidance) Session
}

// Session is the actor of one episode.
type Session interface {
	// Act decides the next step from the latest observation.
	Act(ctx context.Context, obs envbridge.Observation) (Decision, error)
	// Observe is told what the decided action led to.
	Observe(action, text string)
}

// Decision is an actor's step: the decision and the IDs of the guidance
// items (Item.ID) that guided it.
type Decision struct {
	agent.Decision
	Used []string
}

// Guidance is what an episode's actor is shown from memory: the task's
// reflections while gathering; the insights and retrieved trajectories at
// evaluation.
type Guidance struct {
	Reflections []string
	Insights    []Insight
	Examples    []Example
}

// Example is a retrieved successful training trajectory.
type Example struct {
	Trajectory Trajectory
	Similarity float64
}

// InsightID is the recall ID of the insight at 1-based position n.
func InsightID(n int) string { return "insight-" + strconv.Itoa(n) }

// ExampleID is the recall ID of a retrieved trajectory of task id.
func ExampleID(task string) string { return "example-" + task }

// Reflector writes the Reflexion plan after a failed gathering trial.
type Reflector interface {
	// Reflect returns the plan; "" when it has none.
	Reflect(ctx context.Context, in ReflectInput) (string, error)
}

// ReflectInput is a failed trial to reflect on.
type ReflectInput struct {
	Style       envbridge.Style
	Trajectory  Trajectory
	Reflections []string // the task's earlier plans
}

// Extractor proposes edits of the insight list (spec §3.2).
type Extractor interface {
	// Compare proposes edits from a success and a failure of one task.
	Compare(ctx context.Context, in CompareInput) ([]Op, error)
	// Successes proposes edits from successes of different tasks.
	Successes(ctx context.Context, in SuccessInput) ([]Op, error)
}

// CompareInput is one call of the compare phase.
type CompareInput struct {
	Style            envbridge.Style
	Success, Failure Trajectory
	Insights         []Insight
	Full             bool // the list holds MaxInsights or more
}

// SuccessInput is one call of the success phase.
type SuccessInput struct {
	Style     envbridge.Style
	Successes []Trajectory
	Insights  []Insight
	Full      bool
}

// Method is ExpeL as an agent.Method, safe for concurrent use: the pool
// and the insights are guarded by one lock, and model calls are made
// outside it.
type Method struct {
	cfg   Config
	roles Roles
	emb   llm.Embedder
	llm   bool

	mu       sync.Mutex
	pool     map[string]*Record // by task id
	insights []Insight
	dirty    bool            // the pool changed since the insights were extracted
	style    envbridge.Style // of the training episodes, for the extraction prompts
	counts   map[string]int

	vecMu sync.Mutex
	vecs  map[string][]float32 // task texts' embeddings, recomputed after a load
}

// Record is a training task's experience: its successful trajectory (at
// most one: gathering stops at the first success), its failed ones and the
// reflections written after them.
type Record struct {
	Task        envbridge.Task
	Success     *Trajectory
	Failures    []Trajectory
	Reflections []string
}

// New builds ExpeL on deps.Chat, or on deps.Offline without a model.
func New(cfg Config, deps Deps) (*Method, error) {
	if cfg.Retries < 0 || cfg.MaxInsights < 0 || cfg.Chunk < 0 || cfg.K < 0 || cfg.RetrieveRatio < 0 || cfg.FewshotTokens < 0 || cfg.MaxTokens < 0 || cfg.Temperature < 0 || cfg.Temperature > 2 {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	if deps.Embed == nil {
		return nil, fmt.Errorf("%w: an embedder is required", ErrConfig)
	}
	cfg = cfg.Resolved()
	m := &Method{cfg: cfg, emb: deps.Embed, pool: map[string]*Record{}, counts: map[string]int{}, vecs: map[string][]float32{}}
	if deps.Chat != nil {
		m.roles = llmRoles(deps.Chat, deps.Embed, cfg)
		m.llm = true
	} else {
		m.roles = deps.Offline
		if m.roles.Actor == nil || m.roles.Reflector == nil || m.roles.Extractor == nil {
			return nil, fmt.Errorf("%w: no model and no offline roles", ErrConfig)
		}
	}
	return m, nil
}

// Name implements agent.Method.
func (m *Method) Name() string { return m.cfg.Name }

// Config returns the resolved configuration.
func (m *Method) Config() Config { return m.cfg }

// Size implements agent.Sizer.
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	succ, fail := 0, 0
	for _, r := range m.pool {
		if r.Success != nil {
			succ++
		}
		fail += len(r.Failures)
	}
	return map[string]int{"insights": len(m.insights), "successes": succ, "failures": fail}
}

// Counters implements agent.Counter: replayed (solved tasks replayed in
// gathering), reflections, extraction calls, and the operations applied.
func (m *Method) Counters() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int, len(m.counts))
	for k, v := range m.counts {
		out[k] = v
	}
	return out
}

// Insights returns a copy of the insight list, most important first.
func (m *Method) Insights() []Insight {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.insights)
}

// success is ExpeL's binary outcome on a harness trial (spec §7: won, or
// the full score where the environment scores).
func success(out agent.Outcome) bool {
	return out.Won || (out.MaxScore > 0 && out.Score >= out.MaxScore)
}

// Start implements agent.Method.
func (m *Method) Start(ctx context.Context, s agent.Start) (agent.Episode, error) {
	e := &episode{m: m, start: s}
	if !s.Mode.Evaluates() {
		var g Guidance
		m.mu.Lock()
		m.style = s.Style
		if r := m.pool[s.Task.ID]; r != nil {
			switch {
			case r.Success != nil:
				e.replay = r.Success.Steps
				m.counts["replayed"]++
			case m.cfg.Retries > 0 && len(r.Failures) > m.cfg.Retries:
				e.spent = true
			}
			g.Reflections = slices.Clone(r.Reflections)
		}
		m.mu.Unlock()
		e.guide = g
		e.session = m.roles.Actor.Begin(s, g)
	}
	// At evaluation the guidance is retrieved at the first Act, by the
	// first observation (the task text ExpeL embeds, spec §2).
	return e, nil
}

// guidance is what a held-out task is shown: the insights and the k most
// similar successful trajectories of its type (spec §4), retrieved by the
// task's first observation.
func (m *Method) guidance(ctx context.Context, t envbridge.Task, first string) (Guidance, error) {
	var g Guidance
	m.mu.Lock()
	if !m.cfg.NoInsights {
		g.Insights = slices.Clone(m.insights)
	}
	var cands []Trajectory
	if !m.cfg.NoRetrieval {
		for _, r := range m.pool {
			if r.Success != nil && (t.Type == "" || r.Task.Type == t.Type) {
				cands = append(cands, *r.Success)
			}
		}
	}
	m.mu.Unlock()
	if len(cands) == 0 {
		return g, nil
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].TaskID < cands[j].TaskID })
	ex, err := m.retrieve(ctx, t, first, cands)
	if err != nil {
		return Guidance{}, err
	}
	g.Examples = ex
	return g, nil
}

// retrieve ranks cands by the cosine similarity of their task text (the
// first observation) to the task's and keeps the first K of the best
// K x RetrieveRatio that are not this task's own and fit the few-shot
// bound (spec §4).
func (m *Method) retrieve(ctx context.Context, t envbridge.Task, first string, cands []Trajectory) ([]Example, error) {
	texts := make([]string, 0, len(cands)+1)
	texts = append(texts, first)
	for _, c := range cands {
		texts = append(texts, c.Start)
	}
	vecs, err := m.embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	type scored struct {
		i   int
		sim float64
	}
	s := make([]scored, len(cands))
	for i := range cands {
		s[i] = scored{i, cosine(vecs[0], vecs[i+1])}
	}
	sort.SliceStable(s, func(a, b int) bool { return s[a].sim > s[b].sim })
	if n := m.cfg.K * m.cfg.RetrieveRatio; len(s) > n {
		s = s[:n]
	}
	var out []Example
	for _, x := range s {
		if len(out) == m.cfg.K {
			break
		}
		c := cands[x.i]
		if c.TaskID == t.ID && t.Split == c.Split || tokens(c.Render()) > m.cfg.FewshotTokens {
			continue
		}
		out = append(out, Example{Trajectory: c, Similarity: x.sim})
	}
	return out, nil
}

// tokens counts tokens as characters / 4 (spec §7).
func tokens(s string) int { return len(s) / 4 }

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
		return nil, fmt.Errorf("expel: embed task texts: %w", err)
	}
	if len(vecs) != len(miss) {
		return nil, fmt.Errorf("expel: embed task texts: %d vectors for %d texts", len(vecs), len(miss))
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
	return dot / (sqrt(na) * sqrt(nb))
}

// record stores a finished gathering trial and, after a failure with
// retries left, the reflection on it.
func (m *Method) record(ctx context.Context, s agent.Start, tr Trajectory, refl []string) error {
	m.mu.Lock()
	r := m.pool[s.Task.ID]
	if r == nil {
		r = &Record{Task: s.Task}
		m.pool[s.Task.ID] = r
	}
	m.dirty = true
	if tr.Won {
		if r.Success == nil {
			tr.Trial = len(r.Failures)
			r.Success = &tr
		}
		m.mu.Unlock()
		return nil
	}
	tr.Trial = len(r.Failures)
	r.Failures = append(r.Failures, tr)
	reflect := m.cfg.Retries == 0 || len(r.Failures) <= m.cfg.Retries
	m.mu.Unlock()
	if !reflect {
		return nil
	}
	plan, err := m.roles.Reflector.Reflect(ctx, ReflectInput{Style: s.Style, Trajectory: tr, Reflections: refl})
	if err != nil {
		return fmt.Errorf("expel: reflect on %s: %w", s.Task.ID, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts["reflections"]++
	if plan != "" {
		r.Reflections = append(r.Reflections, plan)
	}
	return nil
}

// EndIteration implements agent.IterationEnder: the insights are extracted
// from scratch over the pool (spec §3.2, §7), compare phase first, then the
// success phase with the successes shuffled by a source seeded with the
// iteration. Nothing is done when the pool has not changed since the last
// extraction (the same calls would give the same list).
func (m *Method) EndIteration(ctx context.Context, iteration int) error {
	m.mu.Lock()
	if !m.dirty {
		m.mu.Unlock()
		return nil
	}
	ids := make([]string, 0, len(m.pool))
	for id := range m.pool {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	type pair struct{ succ, fail Trajectory }
	var pairs []pair
	var succs []Trajectory
	for _, id := range ids {
		r := m.pool[id]
		if r.Success == nil {
			continue
		}
		succs = append(succs, *r.Success)
		for _, f := range r.Failures {
			pairs = append(pairs, pair{*r.Success, f})
		}
	}
	style := m.style
	m.mu.Unlock()

	var list []Insight
	calls, applied := 0, 0
	for _, p := range pairs {
		ops, err := m.roles.Extractor.Compare(ctx, CompareInput{Style: style, Success: p.succ, Failure: p.fail, Insights: slices.Clone(list), Full: len(list) >= m.cfg.MaxInsights})
		if err != nil {
			return fmt.Errorf("expel: extract (compare %s): %w", p.succ.TaskID, err)
		}
		calls++
		var n int
		list, n = Apply(list, ops, m.cfg.MaxInsights)
		applied += n
	}
	rng := rand.New(rand.NewPCG(uint64(iteration), 0x657870656c))
	rng.Shuffle(len(succs), func(i, j int) { succs[i], succs[j] = succs[j], succs[i] })
	for _, chunk := range Chunks(succs, m.cfg.Chunk) {
		ops, err := m.roles.Extractor.Successes(ctx, SuccessInput{Style: style, Successes: chunk, Insights: slices.Clone(list), Full: len(list) >= m.cfg.MaxInsights})
		if err != nil {
			return fmt.Errorf("expel: extract (successes): %w", err)
		}
		calls++
		var n int
		list, n = Apply(list, ops, m.cfg.MaxInsights)
		applied += n
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.insights = list
	m.dirty = false
	m.counts["extract_calls"] += calls
	m.counts["operations"] += applied
	return nil
}

// Chunks splits xs into ceil(n/l) nearly equal chunks of at most l, as the
// code's random_divide_list does after its shuffle.
func Chunks[T any](xs []T, l int) [][]T {
	if len(xs) == 0 || l <= 0 {
		return nil
	}
	k := (len(xs) + l - 1) / l
	size := (len(xs) + k - 1) / k
	var out [][]T
	for i := 0; i < len(xs); i += size {
		out = append(out, xs[i:min(i+size, len(xs))])
	}
	return out
}

// MemoryTables implements agent.Shower: the insights with their votes,
// and the experience pool by task.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	ins := agent.Table{Name: "insights", Columns: []string{"rank", "votes", "insight"}}
	for i, x := range m.insights {
		ins.Rows = append(ins.Rows, []string{strconv.Itoa(i + 1), strconv.Itoa(x.Count), x.Text})
	}
	pool := agent.Table{Name: "experience", Columns: []string{"task", "type", "goal", "solved", "success steps", "failures", "reflections"}}
	ids := make([]string, 0, len(m.pool))
	for id := range m.pool {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := m.pool[id]
		steps := ""
		if r.Success != nil {
			steps = strconv.Itoa(len(r.Success.Steps))
		}
		pool.Rows = append(pool.Rows, []string{id, r.Task.Type, r.Task.Goal, strconv.FormatBool(r.Success != nil), steps, strconv.Itoa(len(r.Failures)), strconv.Itoa(len(r.Reflections))})
	}
	return []agent.Table{ins, pool}
}
