// Package clin is CLIN (seed 004): a language agent whose memory is a list of
// causal abstractions ("X SHOULD BE NECESSARY to Y", "X DOES NOT CONTRIBUTE
// to Y") that a memory generator rewrites after every trial, a controller
// that proposes the next goal from the task, the memory items relevant now
// and the trial so far, and an executor that turns the goal into an
// admissible action.
//
// How the harness's modes map onto the paper's two kinds of learning:
//
//   - Train: every episode is a trial of its task (ADAPT, seed 004 Sec. 5A).
//     A task's first trial starts with an empty memory (CLIN-BASE; with
//     Config.MetaFirstTrial, from a meta-memory of the other tasks of its
//     type instead); every later trial starts from the memory the generator
//     wrote after the previous one (Eq. 2), for Config.Trials trials (5, as
//     Fig. 4's Trial-0 to Trial-4); later iterations replay the last memory
//     without changing it.
//   - Eval (held-out tasks, trained memory frozen): each task is new, so its
//     first trial uses a meta-memory generated from the archive built in
//     training (GEN-ENV on unseen environments, Sec. 5B; with
//     Config.GenTask, GEN-TASK, Sec. 5C, Fig. 9: on household worlds from
//     other tasks of the same type, as the paper's ALFWorld runs, elsewhere
//     from the other task types' memories). Nothing is stored, except with Config.GA: then the
//     runner retries a task that was not solved, up to Config.Trials
//     trials, and the memory generator adapts that task's memory after
//     each trial (G+A, Sec. 5B-5C, Table 2) in a scratch memory of the
//     evaluation that is never saved.
//
// With Config.Advice the memory generator writes free-form advice instead
// of causal abstractions (the ablation of Sec. 5 question E; advice.go).
//
// The archive holds, for every trained task of a type, the memory generated
// after its best trial; the 10 best enter a meta-memory (Sec. 3.4,
// "a fixed archive of size 10").
package clin

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// Config tunes CLIN. The zero value of a field means its default.
type Config struct {
	// TopK is how many memory items the controller sees at a step when they
	// are chosen by embedding similarity to the task and current observation
	// (offline, or SelectByEmbedding). With a model the paper's selection is
	// used: an extra LLM call lists the relevant items (Sec. 3.3, select.go),
	// with no number given; its example memories hold 12-15 items (Fig. 10-12).
	// Default 20: on the household world (5 training tasks per type, 4
	// iterations, offline roles) valid_unseen success was 0.81 with 12 and
	// 0.86 with 20, because the hashing embedder's relevance sometimes drops
	// an ordering item ("heating ... is NECESSARY to putting ...").
	TopK int `json:"top_k,omitempty"`
	// Archive is how many best memories of earlier episodes feed a
	// meta-memory (Sec. 3.4: 10).
	Archive int `json:"archive,omitempty"`
	// Window is how many recent memories the generator sees (Eq. 2: 3).
	Window int `json:"window,omitempty"`
	// Retries is how many times the executor asks again when a candidate
	// action is not admissible (Sec. 3.3: 5).
	Retries int `json:"retries,omitempty"`
	// Temperature of the LLM-backed roles (controller, memory generator,
	// selector); default 0. The application sets it from -temperature.
	Temperature float64 `json:"-"`
	// MaxTokens of a memory generator reply; default 1024.
	MaxTokens int `json:"max_tokens,omitempty"`
	// SelectByEmbedding chooses the items by embedding top-TopK even with a
	// model (the former behaviour, kept as an option; saves one call per
	// trial). Default off: the model selects (Sec. 3.3).
	SelectByEmbedding bool `json:"select_by_embedding"`
	// Trials is how many trials of a training task adapt its memory (Eq. 2);
	// later trials play with the memory of the last one and leave it as it
	// is. Default DefaultTrials: seed 004 Fig. 4 runs Trial-0 (BASE) to
	// Trial-4 (ADAPT).
	Trials int `json:"trials"`
	// MetaFirstTrial starts the first trial of a training task from a
	// meta-memory of the other trained tasks of its type (GEN-ENV-like; the
	// former behaviour, kept as an option). Default off: the first trial
	// starts with an empty memory, as ADAPT does (seed 004 Sec. 5A, "CLIN
	// initializes with an empty memory at the beginning of the first trial").
	MetaFirstTrial bool `json:"meta_first_trial"`
	// Name is the method's name; default "clin". Variants set their own so
	// that their checkpoints and results are apart.
	Name string `json:"-"`
	// GA evaluates as seed 004's GEN-ADAPT (G+A, Sec. 5B and 5C, Table 2):
	// a held-out task starts from its meta-memory and, while it is not
	// solved, is retried with the memory adapted after each trial (Eq. 2),
	// up to Trials trials (the paper gives G+A no count of its own; Trials
	// is ADAPT's K, Fig. 4). Default off: one trial per held-out task, the
	// GEN-ENV (or GEN-TASK) number.
	GA bool `json:"-"`
	// GenTask builds a held-out task's meta-memory with the GEN-TASK prompt
	// (Sec. 5C, Fig. 9) from the archive the paper used on the
	// environment: on household worlds (ALFWorld) the best memories of the
	// other trained tasks of the task's own type ("CLIN had access to
	// memories from other tasks of same type"), elsewhere (ScienceWorld,
	// which transfers from a related task such as boil to freeze) those of
	// the other task types. Default off: GEN-ENV (Fig. 8).
	GenTask bool `json:"-"`
	// GenTaskOtherTypes makes GEN-TASK draw on the other task types'
	// memories on household worlds too (transfer to a type left out of the
	// archive). Default off: the paper's ALFWorld archive.
	GenTaskOtherTypes bool `json:"gen_task_other_types,omitempty"`
	// Advice makes the memory generator write free-form advice instead of
	// causal abstractions (Sec. 5 question E, Fig. 13, Table 3's
	// ablation). Default off.
	Advice bool `json:"-"`
}

// Defaults of Config.
const (
	defaultTopK      = 20
	defaultArchive   = 10
	defaultWindow    = 3
	defaultRetries   = 5
	defaultMaxTokens = 1024
	DefaultTrials    = 5
)

// Resolved is the configuration with the defaults New applies made
// explicit, for records such as a run's config.json.
func (c Config) Resolved() Config { return c.withDefaults() }

func (c Config) withDefaults() Config {
	if c.TopK <= 0 {
		c.TopK = defaultTopK
	}
	if c.Archive <= 0 {
		c.Archive = defaultArchive
	}
	if c.Window <= 0 {
		c.Window = defaultWindow
	}
	if c.Retries <= 0 {
		c.Retries = defaultRetries
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = defaultMaxTokens
	}
	if c.Trials <= 0 {
		c.Trials = DefaultTrials
	}
	if c.Name == "" {
		c.Name = "clin"
	}
	return c
}

// Deps are the models CLIN's roles run on.
type Deps struct {
	// Chat runs the controller, the memory generator and the selector; nil
	// selects Controller and Generator.
	Chat llm.Chatter
	// Embed selects memory items and matches actions; required.
	Embed llm.Embedder
	// Controller and Generator are the roles without a model (package
	// clin/offline's rules), used when Chat is nil; memory items are then
	// selected by embedding.
	Controller Controller
	Generator  Generator
}

// ErrNoEmbedder is returned by New when Deps.Embed is nil.
var ErrNoEmbedder = errors.New("clin: an embedder is required")

// ErrNoRoles is returned by New when Deps has neither a model nor the
// roles that run without one.
var ErrNoRoles = errors.New("clin: no model and no offline controller and generator")

// Method is CLIN as an agent.Method. It is safe for concurrent use; its
// memory is guarded by one lock.
type Method struct {
	cfg   Config
	emb   llm.Embedder
	ctrl  Controller
	gen   Generator
	sel   Selector // nil offline: items chosen by embedding
	model string   // "offline" or "llm", for the checkpoint

	mu    sync.Mutex
	tasks map[string]*taskMemory // by task id
	// adapting holds the held-out tasks' memories of a G+A evaluation
	// (Config.GA), by task id; never saved.
	adapting map[string]*taskMemory

	vecMu sync.Mutex
	vecs  map[string][]float32 // embedding cache of memory item texts
}

// taskMemory is one episode in the paper's sense: the trials of one task.
type taskMemory struct {
	Task envbridge.Task
	// Meta is the meta-memory S_0 generated before the first trial (Eq. 3);
	// HasMeta says it was generated (it may be empty).
	Meta    []Abstraction
	HasMeta bool
	// Trials holds S_{k+1}, the memory generated after trial k, in order.
	Trials []Memory
}

// current is the memory the next trial starts from.
func (tm *taskMemory) current() []Abstraction {
	if n := len(tm.Trials); n > 0 {
		return tm.Trials[n-1].Items
	}
	return tm.Meta
}

// best is the memory after the most rewarded trial (the latest among ties).
func (tm *taskMemory) best() (Memory, bool) {
	if len(tm.Trials) == 0 {
		return Memory{}, false
	}
	b := tm.Trials[0]
	for _, m := range tm.Trials[1:] {
		if m.Reward >= b.Reward {
			b = m
		}
	}
	return b, true
}

// New builds CLIN with the LLM-backed roles when deps.Chat is set and
// deps.Controller and deps.Generator otherwise.
func New(cfg Config, deps Deps) (*Method, error) {
	if deps.Embed == nil {
		return nil, ErrNoEmbedder
	}
	cfg = cfg.withDefaults()
	m := &Method{cfg: cfg, emb: deps.Embed, tasks: map[string]*taskMemory{}, adapting: map[string]*taskMemory{}, vecs: map[string][]float32{}}
	if deps.Chat != nil {
		m.ctrl = &LLMController{Chat: deps.Chat, Temperature: cfg.Temperature}
		m.gen = &LLMGenerator{Chat: deps.Chat, Temperature: cfg.Temperature, MaxTokens: cfg.MaxTokens}
		m.sel = &LLMSelector{Chat: deps.Chat, Temperature: cfg.Temperature}
		m.model = "llm"
	} else {
		if deps.Controller == nil || deps.Generator == nil {
			return nil, ErrNoRoles
		}
		m.ctrl, m.gen, m.model = deps.Controller, deps.Generator, "offline"
	}
	return m, nil
}

// Name implements agent.Method.
func (m *Method) Name() string { return m.cfg.Name }

// EvalTrials implements agent.EvalTrialer: with Config.GA a held-out task
// is played up to Config.Trials times, until it is solved (G+A); else once.
func (m *Method) EvalTrials() int {
	if m.cfg.GA {
		return m.cfg.Trials
	}
	return 1
}

// Size implements agent.Sizer: "abstractions" counts the items of every
// task's current memory, "tasks" the tasks with memory.
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, tm := range m.tasks {
		n += len(tm.current())
	}
	return map[string]int{"abstractions": n, "tasks": len(m.tasks)}
}

// Memory returns a copy of the memory the next trial of taskID would start
// from (nil when the task has none), for inspection and tests.
func (m *Method) Memory(taskID string) []Abstraction {
	m.mu.Lock()
	defer m.mu.Unlock()
	if tm := m.tasks[taskID]; tm != nil {
		return append([]Abstraction(nil), tm.current()...)
	}
	return nil
}

// genTaskOtherTypes says whether GEN-TASK's archive holds the other task
// types' memories in a world of style (see Config.GenTask).
func (m *Method) genTaskOtherTypes(style envbridge.Style) bool {
	return style != envbridge.StyleHousehold || m.cfg.GenTaskOtherTypes
}

// archive lists, best first, the best memories of the trained tasks of typ
// other than exclude, at most cfg.Archive of them; with otherTypes, those of
// every type but typ (GEN-TASK). The caller holds m.mu.
func (m *Method) archive(typ, exclude string, otherTypes bool) []Archived {
	var out []Archived
	for id, tm := range m.tasks {
		if id == exclude || (tm.Task.Type == typ) == otherTypes {
			continue
		}
		if b, ok := tm.best(); ok {
			out = append(out, Archived{Task: tm.Task, Reward: b.Reward, Items: append([]Abstraction(nil), b.Items...)})
		}
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	// Prioritised by reward (Sec. 3.4, after prioritised level replay);
	// ties by task id for a stable order.
	sort.Slice(idx, func(i, j int) bool {
		a, b := out[idx[i]], out[idx[j]]
		if a.Reward != b.Reward {
			return a.Reward > b.Reward
		}
		return a.Task.ID < b.Task.ID
	})
	sorted := make([]Archived, 0, len(out))
	for _, i := range idx {
		sorted = append(sorted, out[i])
	}
	if otherTypes {
		// GEN-TASK draws on several types: the best memory of each type
		// first, then the second best of each, ..., so that no type fills
		// the archive by the order of its task ids (the paper transfers
		// from one related task, Sec. 5C; a default of this project).
		rank := map[string]int{}
		ranks := make([]int, len(sorted))
		for i, a := range sorted {
			ranks[i] = rank[a.Task.Type]
			rank[a.Task.Type]++
		}
		order := make([]int, len(sorted))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(i, j int) bool { return ranks[order[i]] < ranks[order[j]] })
		balanced := make([]Archived, len(sorted))
		for i, k := range order {
			balanced[i] = sorted[k]
		}
		sorted = balanced
	}
	if len(sorted) > m.cfg.Archive {
		sorted = sorted[:m.cfg.Archive]
	}
	return sorted
}

// Start implements agent.Method. In Train mode the task's memory is created
// (with its meta-memory) on its first trial; in Eval mode nothing is stored.
func (m *Method) Start(ctx context.Context, s agent.Start) (agent.Episode, error) {
	mem, err := m.startMemory(ctx, s)
	if err != nil {
		return nil, err
	}
	return &episode{m: m, start: s, memory: mem, rng: s.Rand}, nil
}

func (m *Method) startMemory(ctx context.Context, s agent.Start) ([]Abstraction, error) {
	store := m.tasks
	if s.Mode.Evaluates() {
		store = m.adapting
	}
	m.mu.Lock()
	if tm := store[s.Task.ID]; tm != nil && (len(tm.Trials) > 0 || tm.HasMeta) && (!s.Mode.Evaluates() || s.Trial > 0) {
		// A later trial: the memory adapted after the last one (Eq. 2).
		mem := append([]Abstraction(nil), tm.current()...)
		m.mu.Unlock()
		return mem, nil
	}
	genTask := s.Mode.Evaluates() && m.cfg.GenTask
	arch := m.archive(s.Task.Type, s.Task.ID, genTask && m.genTaskOtherTypes(s.Style))
	m.mu.Unlock()
	if !s.Mode.Evaluates() && !m.cfg.MetaFirstTrial {
		arch = nil // ADAPT: the first trial starts with an empty memory
	}

	var meta []Abstraction
	// GEN-TASK asks even with an empty archive: Fig. 9's prompt says
	// "If PREVIOUS LEARNINGS says 'No learnings available', improvise".
	if len(arch) > 0 || genTask && m.model == "llm" {
		var err error
		meta, err = m.gen.Meta(ctx, MetaInput{Task: s.Task, Style: s.Style, Archive: arch, GenTask: genTask, Advice: m.cfg.Advice})
		if err != nil {
			return nil, fmt.Errorf("clin: meta-memory for %s: %w", s.Task.ID, err)
		}
	}
	if s.Mode.Evaluates() && !m.cfg.GA {
		return meta, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.Mode.Evaluates() {
		// G+A: the task's first trial starts a fresh scratch memory.
		tm := &taskMemory{Task: s.Task, Meta: nilIfEmpty(meta), HasMeta: true}
		m.adapting[s.Task.ID] = tm
		return append([]Abstraction(nil), tm.current()...), nil
	}
	tm := m.tasks[s.Task.ID]
	if tm == nil {
		tm = &taskMemory{Task: s.Task}
		m.tasks[s.Task.ID] = tm
	}
	if len(tm.Trials) == 0 && !tm.HasMeta {
		tm.Meta, tm.HasMeta = nilIfEmpty(meta), true
	}
	return append([]Abstraction(nil), tm.current()...), nil
}

// finish runs the memory generator after a training trial, or after a
// trial of a held-out task under G+A (Eq. 2): an evaluation trial's memory
// is the task's scratch memory (Method.adapting), a training trial's the
// task's memory that meta-memories are built from (Method.tasks).
func (m *Method) finish(ctx context.Context, s agent.Start, trace []Step, out agent.Outcome) error {
	store := m.tasks
	if s.Mode.Evaluates() {
		store = m.adapting
	}
	m.mu.Lock()
	tm := store[s.Task.ID]
	if tm == nil {
		tm = &taskMemory{Task: s.Task, HasMeta: true}
		store[s.Task.ID] = tm
	}
	trial := len(tm.Trials)
	if trial >= m.cfg.Trials {
		m.mu.Unlock()
		return nil // the task's trials are done (Config.Trials)
	}
	var prev []Memory
	if tm.HasMeta && trial < m.cfg.Window {
		prev = append(prev, Memory{Trial: -1, Items: tm.Meta})
	}
	prev = append(prev, tm.Trials...)
	if len(prev) > m.cfg.Window {
		prev = prev[len(prev)-m.cfg.Window:]
	}
	prev = append([]Memory(nil), prev...)
	m.mu.Unlock()

	reward := normReward(out.Won, out.Score, out.MaxScore)
	items, err := m.gen.Adapt(ctx, AdaptInput{
		Task: s.Task, Style: s.Style, Trial: trial, Trace: trace,
		Reward: reward, Won: out.Won, Previous: prev, Advice: m.cfg.Advice,
	})
	if err != nil {
		return fmt.Errorf("clin: memory for %s trial %d: %w", s.Task.ID, trial, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tm.Trials = append(tm.Trials, Memory{Trial: len(tm.Trials), Reward: reward, Items: nilIfEmpty(items)})
	return nil
}

// selectItems returns the TopK items most similar to query, in their memory
// order (seed 004 Sec. 3.3: only selected statements are shown).
func (m *Method) selectItems(ctx context.Context, items []Abstraction, query string) ([]Abstraction, error) {
	if len(items) <= m.cfg.TopK {
		return items, nil
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.String()
	}
	vecs, err := m.embedCached(ctx, texts)
	if err != nil {
		return nil, err
	}
	q, err := m.emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("clin: embed query: %w", err)
	}
	if len(q) != 1 {
		return nil, fmt.Errorf("clin: embed query: got %d vectors", len(q))
	}
	sims := make([]float64, len(items))
	idx := make([]int, len(items))
	for i, v := range vecs {
		sims[i], idx[i] = cosine(q[0], v), i
	}
	sort.SliceStable(idx, func(a, b int) bool { return sims[idx[a]] > sims[idx[b]] })
	keep := idx[:m.cfg.TopK]
	sort.Ints(keep)
	out := make([]Abstraction, 0, len(keep))
	for _, i := range keep {
		out = append(out, items[i])
	}
	return out, nil
}

func (m *Method) embedCached(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	var where []int
	m.vecMu.Lock()
	for i, t := range texts {
		if v, ok := m.vecs[t]; ok {
			out[i] = v
		} else {
			missing, where = append(missing, t), append(where, i)
		}
	}
	m.vecMu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	vecs, err := m.emb.Embed(ctx, missing)
	if err != nil {
		return nil, fmt.Errorf("clin: embed memory: %w", err)
	}
	if len(vecs) != len(missing) {
		return nil, fmt.Errorf("clin: embed memory: got %d vectors for %d texts", len(vecs), len(missing))
	}
	m.vecMu.Lock()
	defer m.vecMu.Unlock()
	// The cache holds item texts only, which are few (tens per task type).
	for i, v := range vecs {
		out[where[i]] = v
		m.vecs[missing[i]] = v
	}
	return out, nil
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(-1)
	}
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// nilIfEmpty stores empty memories as nil, the form a checkpoint reads back.
func nilIfEmpty(items []Abstraction) []Abstraction {
	if len(items) == 0 {
		return nil
	}
	return items
}
