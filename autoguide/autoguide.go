// Package autoguide is AutoGuide (Fu et al., NeurIPS 2024; spec
// ../shared/methods/autoguide.md): context-aware guidelines extracted from
// pairs of trajectories of one task with different returns, stored in a
// dictionary keyed by a short, general description of the agent's
// situation (the context), and at every test step the guidelines of the
// context the agent is in are selected and put in the acting prompt.
//
// How the harness's modes map onto the paper:
//
//   - Train: every iteration is one ReAct + Reflexion trial of each training
//     task not solved yet (a solved task is played but learns nothing: the
//     runner has no way to skip it). A failed trial is reflected on, and the
//     task's last three reflections are shown in its next trials. When a
//     trial beats every earlier trial of its task (a win after failures on
//     the household world), it is paired with each earlier trial of lower
//     return (Algorithm 1): the first step where their actions differ, the
//     context of the shared prefix (model call "context"), the stored
//     context it matches (call "match") and a guideline contrasting the two
//     (call "extract") appended under that context. In the paper's mode (the
//     default) guidelines are not used while collecting; Config.Online uses
//     them as evaluation does.
//   - Eval: the dictionary is frozen. Before every action the context of the
//     trajectory so far is identified, matched to a stored context, and of
//     its guidelines up to K (2) are chosen (call "select", only when it
//     holds more than K); then the actor decides with the context and the
//     guidelines in its prompt (Algorithm 2). One attempt, no reflection.
//
// Offline (no model), the roles are the rules of package autoguide/offline,
// which reach the core through Deps.Offline.
package autoguide

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// Name is the method's name on the command line.
const Name = "autoguide"

// Defaults of Config (spec Sec. 4, Table 7 of the paper).
const (
	// DefaultK is how many guidelines are selected at a step (Table 7: top-k 2).
	DefaultK = 2
	// DefaultKeep is how many reflections of a task its next trials see
	// (Reflexion's last three).
	DefaultKeep = 3
	// DefaultExtractMaxTokens bounds the extraction reply (App. C: "at most
	// 128 tokens" on ALFWorld); an answer cut off is asked again with more
	// room (internal/reply).
	DefaultExtractMaxTokens = 128
	// DefaultMaxHistory bounds the steps of a trajectory shown in a prompt
	// (the first and the latest); our default, the paper shows whole
	// trajectories of at most 50 steps.
	DefaultMaxHistory = 50
)

// Config tunes AutoGuide. Zero fields take the defaults.
type Config struct {
	// K is how many guidelines are selected for a step; default DefaultK.
	K int `json:"k,omitempty"`
	// Online uses the guidelines while collecting training trajectories too
	// (what the CDMem re-implementation does); off (the paper): only
	// evaluation uses them.
	Online bool `json:"online,omitempty"`
	// Keep is how many reflections of a task are kept and shown; default
	// DefaultKeep.
	Keep int `json:"keep,omitempty"`
	// MaxHistory bounds the trajectory steps in a prompt; default
	// DefaultMaxHistory.
	MaxHistory int `json:"max_history,omitempty"`
	// ExtractMaxTokens bounds a guideline extraction reply; default
	// DefaultExtractMaxTokens.
	ExtractMaxTokens int `json:"extract_max_tokens,omitempty"`
	// Temperature of every model call; the application sets it from
	// -temperature.
	Temperature float64 `json:"-"`
}

// Resolved is the configuration with its defaults filled in.
func (c Config) Resolved() Config {
	c.K = cmp.Or(c.K, DefaultK)
	c.Keep = cmp.Or(c.Keep, DefaultKeep)
	c.MaxHistory = cmp.Or(c.MaxHistory, DefaultMaxHistory)
	c.ExtractMaxTokens = cmp.Or(c.ExtractMaxTokens, DefaultExtractMaxTokens)
	return c
}

// ErrConfig is returned by New for a configuration or dependencies it
// cannot run with.
var ErrConfig = errors.New("autoguide: bad configuration")

// Step is one entry of a trajectory: the context identified before the
// action (empty when none was identified), the thought and action taken
// (both empty for the first observation) and the observation that followed.
type Step struct {
	Context string
	Thought string
	Action  string
	Text    string
}

// Trajectory is one trial of a training task.
type Trajectory struct {
	Task  string
	Trial int
	Won   bool
	Score float64
	Steps []Step
}

// better reports whether a has a strictly higher return than b: a win
// beats a failure, and among equals a higher score wins.
func better(a, b Trajectory) bool {
	if a.Won != b.Won {
		return a.Won
	}
	return a.Score > b.Score
}

// Guideline is one stored guideline.
type Guideline struct {
	Text      string
	Task      string // the task of the pair it was extracted from
	Iteration int    // the training iteration that extracted it
}

// Deps are the models AutoGuide uses.
type Deps struct {
	// Chat is the language model; nil selects Offline's roles.
	Chat llm.Chatter
	// Embed maps a proposed action onto the admissible list when it is not
	// an exact match; nil: exact matches only.
	Embed llm.Embedder
	// Offline are the rule-based roles used when Chat is nil (package
	// autoguide/offline's Roles).
	Offline Offline
}

// Offline are AutoGuide's roles without a model.
type Offline interface {
	// Context is the status of the agent at the end of steps.
	Context(task envbridge.Task, style envbridge.Style, steps []Step) string
	// Match is the index of the context of known that describes the same
	// status as c, or -1.
	Match(known []string, c string) int
	// Extract is the guideline for context c from the better and the worse
	// trajectory, which first differ at action t; "" when it has none.
	Extract(task envbridge.Task, c string, pos, neg Trajectory, t int) string
	// Select picks at most k of guides (indices) for the step after steps.
	Select(guides []string, c string, steps []Step, k int) []int
	// Reflect is the reflection on a failed trial, "" when it has none.
	Reflect(task envbridge.Task, steps []Step) string
	// Begin starts the actor of one episode.
	Begin(s agent.Start) Actor
}

// Actor is the offline actor of one episode.
type Actor interface {
	// Act decides from the latest observation, shown the context, the
	// selected guidelines and the task's reflections.
	Act(ctx context.Context, obs envbridge.Observation, context string, guides, reflections []string) (agent.Decision, error)
	// Observe is told what the decided action led to.
	Observe(action, text string)
}

// taskMemory is what training keeps of one training task.
type taskMemory struct {
	solved      bool
	trials      int
	reflections []string     // the last Keep
	attempts    []Trajectory // the trials kept for pairing (a solved task keeps none)
}

// Method is AutoGuide. It is safe for concurrent use.
type Method struct {
	cfg   Config
	chat  llm.Chatter
	emb   llm.Embedder
	off   Offline
	roles roles

	mu       sync.Mutex
	contexts []string      // the keys of G in insertion order
	guides   [][]Guideline // guides[i] are the guidelines of contexts[i]
	tasks    map[string]*taskMemory
	counts   map[string]int
}

// New returns AutoGuide with an empty memory.
func New(cfg Config, deps Deps) (*Method, error) {
	if cfg.K < 0 || cfg.Keep < 0 || cfg.MaxHistory < 0 || cfg.ExtractMaxTokens < 0 || cfg.Temperature < 0 {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	cfg = cfg.Resolved()
	if deps.Chat == nil && deps.Offline == nil {
		return nil, fmt.Errorf("%w: no model and no offline roles", ErrConfig)
	}
	m := &Method{cfg: cfg, chat: deps.Chat, emb: deps.Embed, off: deps.Offline, tasks: map[string]*taskMemory{}, counts: map[string]int{}}
	if deps.Chat != nil {
		m.roles = &llmRoles{chat: deps.Chat, emb: deps.Embed, cfg: cfg}
	} else {
		m.roles = offlineRoles{off: deps.Offline}
	}
	return m, nil
}

// Name implements agent.Method.
func (*Method) Name() string { return Name }

// Config is the configuration in use, defaults filled in.
func (m *Method) Config() Config { return m.cfg }

// Size implements agent.Sizer.
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, g := range m.guides {
		n += len(g)
	}
	return map[string]int{"contexts": len(m.contexts), "guidelines": n}
}

// Counters implements agent.Counter: steps guided by guidelines, pairs
// extracted, and contexts matched or not at a step.
func (m *Method) Counters() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int, len(m.counts))
	for k, v := range m.counts {
		out[k] = v
	}
	return out
}

func (m *Method) count(name string) {
	m.mu.Lock()
	m.counts[name]++
	m.mu.Unlock()
}

// Contexts returns the stored contexts in insertion order.
func (m *Method) Contexts() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.contexts...)
}

// Guidelines returns the guidelines of context i (a copy).
func (m *Method) Guidelines(i int) []Guideline {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i < 0 || i >= len(m.guides) {
		return nil
	}
	return append([]Guideline(nil), m.guides[i]...)
}

// MemoryTables implements agent.Shower: the guidelines by context, the
// contexts, and the training tasks' reflections and state.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	ctxs := agent.Table{Name: "contexts", Columns: []string{"id", "context", "guidelines"}}
	gl := agent.Table{Name: "guidelines", Columns: []string{"context_id", "context", "position", "guideline", "task", "iteration"}}
	for i, c := range m.contexts {
		ctxs.Rows = append(ctxs.Rows, []string{strconv.Itoa(i), c, strconv.Itoa(len(m.guides[i]))})
		for j, g := range m.guides[i] {
			gl.Rows = append(gl.Rows, []string{strconv.Itoa(i), c, strconv.Itoa(j), g.Text, g.Task, strconv.Itoa(g.Iteration)})
		}
	}
	tasks := agent.Table{Name: "training tasks", Columns: []string{"task", "solved", "trials", "kept_trials", "reflections"}}
	for _, id := range m.taskIDs() {
		t := m.tasks[id]
		tasks.Rows = append(tasks.Rows, []string{id, strconv.FormatBool(t.solved), strconv.Itoa(t.trials), strconv.Itoa(len(t.attempts)), strings.Join(t.reflections, " | ")})
	}
	return []agent.Table{gl, ctxs, tasks}
}

// taskIDs are the training tasks' ids, sorted; m.mu is held.
func (m *Method) taskIDs() []string {
	ids := make([]string, 0, len(m.tasks))
	for id := range m.tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// snapshot is what an episode reads of the memory at its start.
type snapshot struct {
	solved      bool
	reflections []string
}

func (m *Method) taskSnapshot(id string) snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tasks[id]
	if t == nil {
		return snapshot{}
	}
	return snapshot{solved: t.solved, reflections: append([]string(nil), t.reflections...)}
}

// book is the guideline dictionary as a step reads it.
func (m *Method) book() ([]string, [][]Guideline) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.contexts...), append([][]Guideline(nil), m.guides...)
}

// Start implements agent.Method.
func (m *Method) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	e := &episode{m: m, start: s}
	if !s.Mode.Evaluates() {
		snap := m.taskSnapshot(s.Task.ID)
		e.solved, e.reflections = snap.solved, snap.reflections
	}
	e.guided = s.Mode.Evaluates() || m.cfg.Online
	if m.roles.offline() {
		e.actor = m.off.Begin(s)
	}
	return e, nil
}

// addGuideline stores g under context c: under the stored context matched
// (index >= 0, when it still exists) or, when none matched, under c itself
// (an equal context stored since the match was asked is reused). It
// returns the context's index.
func (m *Method) addGuideline(c string, match int, g Guideline) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := match
	if i < 0 || i >= len(m.contexts) {
		i = -1
		for j, k := range m.contexts {
			if k == c {
				i = j
				break
			}
		}
	}
	if i < 0 {
		m.contexts = append(m.contexts, c)
		m.guides = append(m.guides, nil)
		i = len(m.contexts) - 1
	}
	m.guides[i] = append(m.guides[i], g)
	m.counts["guidelines_added"]++
	return i
}
