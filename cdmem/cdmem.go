// Package cdmem is CDMem (Gao et al., NAACL 2025 Industry; spec
// ../shared/methods/cdmem.md, which follows the official code): a
// context-dependent memory keyed by the scene an episode plays in and by
// its task type. After every training episode three encodings run, each a
// model call: expert encoding (where items were, what containers can do,
// the condensed actions), short-term encoding (a reflection on this task,
// kept per task instance) and long-term encoding (the scene's summary of
// container functions, and per task type two numbered lists of action
// guidance, from successes and from failures, re-summarised in batches).
// At acting time the agent sees the scene's knowledge, up to six guidance
// items of its type, its own last three reflections on the task and two
// exemplar trajectories, preferring successes of its type in its scene.
//
// How the harness's modes map onto the code's online loop (spec Sec. 7):
//
//   - Train: every iteration is a trial of each training task not solved
//     yet (a solved task is played but learns nothing: the runner cannot
//     skip it); after it the encodings run and the memory is updated.
//   - Eval: the memory is frozen: scene knowledge (exact scene key),
//     guidance and exemplars from training; no reflections (every test task
//     is new); one attempt, no encoding calls.
//
// Offline (no model), the roles are the rules of package cdmem/offline.
package cdmem

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
const Name = "cdmem"

// Defaults of Config (spec Sec. 3, the code's values).
const (
	DefaultKeep        = 3   // local reflections shown
	DefaultExemplars   = 2   // exemplar trajectories
	DefaultMaxGuidance = 6   // guidance items recalled
	DefaultMaxSuccess  = 3   // of which from the success bucket at most
	DefaultBatch       = 1   // env_batch_size and task_batch_size
	DefaultMaxTokens   = 512 // encoding and summary replies
	// DefaultMaxHistory bounds the steps of a transcript in a prompt (the
	// first and the latest); our default.
	DefaultMaxHistory = 50
	// DefaultExemplarSteps bounds the steps of an exemplar shown to the
	// actor; our default (the code shows whole ALFWorld transcripts of at
	// most 20 actions).
	DefaultExemplarSteps = 30
)

// Config tunes CDMem. Zero fields take the defaults.
type Config struct {
	Keep          int `json:"keep,omitempty"`
	Exemplars     int `json:"exemplars,omitempty"`
	MaxGuidance   int `json:"max_guidance,omitempty"`
	MaxSuccess    int `json:"max_success,omitempty"`
	EnvBatch      int `json:"env_batch,omitempty"`
	TaskBatch     int `json:"task_batch,omitempty"`
	MaxTokens     int `json:"max_tokens,omitempty"`
	MaxHistory    int `json:"max_history,omitempty"`
	ExemplarSteps int `json:"exemplar_steps,omitempty"`
	// Temperature of every model call; the application sets it from
	// -temperature.
	Temperature float64 `json:"-"`
}

// Resolved is the configuration with its defaults filled in.
func (c Config) Resolved() Config {
	c.Keep = cmp.Or(c.Keep, DefaultKeep)
	c.Exemplars = cmp.Or(c.Exemplars, DefaultExemplars)
	c.MaxGuidance = cmp.Or(c.MaxGuidance, DefaultMaxGuidance)
	c.MaxSuccess = cmp.Or(c.MaxSuccess, DefaultMaxSuccess)
	c.EnvBatch = cmp.Or(c.EnvBatch, DefaultBatch)
	c.TaskBatch = cmp.Or(c.TaskBatch, DefaultBatch)
	c.MaxTokens = cmp.Or(c.MaxTokens, DefaultMaxTokens)
	c.MaxHistory = cmp.Or(c.MaxHistory, DefaultMaxHistory)
	c.ExemplarSteps = cmp.Or(c.ExemplarSteps, DefaultExemplarSteps)
	return c
}

// ErrConfig is returned by New for a configuration or dependencies it
// cannot run with.
var ErrConfig = errors.New("cdmem: bad configuration")

// Step is one entry of a transcript: the action (empty for the first
// observation) and the observation it led to.
type Step struct {
	Thought string
	Action  string
	Text    string
}

// Expert is the expert encoding of one episode.
type Expert struct {
	Locations string // which item was in which receptacle
	Functions string // what containers can do with items, or "None"
	Actions   string // the actions in order, thoughts dropped, repeats merged
}

// Record is one training episode as the long-term memory keeps it.
type Record struct {
	Trial      int
	Task       string // the task's ID
	Type       string
	Scene      string
	Goal       string
	Expert     Expert
	Reflection string
	Success    bool
	// Transcript is kept for successes only: they serve as exemplars.
	Transcript []Step
}

// Outcomes of the task memory's buckets.
const (
	Success = "success"
	Fail    = "fail"
)

// Deps are the models CDMem uses.
type Deps struct {
	// Chat is the language model; nil selects Offline's roles.
	Chat llm.Chatter
	// Embed maps a proposed action onto the admissible list when it is not
	// an exact match; nil: exact matches only.
	Embed llm.Embedder
	// Offline are the rule-based roles used when Chat is nil (package
	// cdmem/offline's Roles).
	Offline Offline
}

// Offline are CDMem's roles without a model.
type Offline interface {
	Expert(task envbridge.Task, steps []Step) Expert
	Reflect(task envbridge.Task, success bool, steps []Step, ex Expert, earlier []string) string
	SceneSummary(previous string, functions []string) string
	TaskSummary(previous []string, success bool, reflections []string) []string
	// Begin starts the actor of one episode.
	Begin(s agent.Start) Actor
}

// View is what the actor is shown at a step beside the observation.
type View struct {
	Scene       string   // the scene's knowledge of container functions
	Guidance    []string // action guidance of the task type
	Reflections []string // this task's last reflections (training)
	Exemplars   [][]Step // exemplar trajectories
}

// Actor is the offline actor of one episode.
type Actor interface {
	Act(ctx context.Context, obs envbridge.Observation, v View) (agent.Decision, error)
	Observe(action, text string)
}

type local struct {
	solved      bool
	trials      int
	reflections []string
}

type scene struct {
	known   string
	summed  bool // summarised at least once
	pending []int
	all     []int
}

type bucket struct {
	guidance []string
	summed   bool
	pending  []int
	all      []int
}

type bucketKey struct{ typ, outcome string }

// Method is CDMem. It is safe for concurrent use.
type Method struct {
	cfg   Config
	off   Offline
	roles roles

	enc sync.Mutex // serialises the long-term encodings (read-modify-write summaries)

	mu      sync.Mutex
	locals  map[string]*local
	records []Record
	scenes  map[string]*scene
	buckets map[bucketKey]*bucket
	counts  map[string]int
}

// New returns CDMem with an empty memory.
func New(cfg Config, deps Deps) (*Method, error) {
	if cfg.Keep < 0 || cfg.Exemplars < 0 || cfg.MaxGuidance < 0 || cfg.MaxSuccess < 0 || cfg.EnvBatch < 0 || cfg.TaskBatch < 0 || cfg.MaxTokens < 0 || cfg.MaxHistory < 0 || cfg.ExemplarSteps < 0 || cfg.Temperature < 0 {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	cfg = cfg.Resolved()
	if deps.Chat == nil && deps.Offline == nil {
		return nil, fmt.Errorf("%w: no model and no offline roles", ErrConfig)
	}
	m := &Method{cfg: cfg, off: deps.Offline, locals: map[string]*local{}, scenes: map[string]*scene{}, buckets: map[bucketKey]*bucket{}, counts: map[string]int{}}
	if deps.Chat != nil {
		m.roles = &llmRoles{chat: deps.Chat, emb: deps.Embed, cfg: cfg}
	} else {
		m.roles = offlineRoles{off: deps.Offline}
	}
	return m, nil
}

// Name implements agent.Method.
func (*Method) Name() string { return Name }

// SceneKey is the scene of an episode: the first non-empty line of its
// first observation (ALFWorld's room description, ScienceWorld's and
// Jericho's room title; spec Sec. 2, 7).
func SceneKey(first string) string {
	for _, l := range strings.Split(first, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// Size implements agent.Sizer.
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	items := 0
	for _, b := range m.buckets {
		items += len(b.guidance)
	}
	return map[string]int{"scenes": len(m.scenes), "guidance": items, "records": len(m.records)}
}

// Counters implements agent.Counter.
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

// MemoryTables implements agent.Shower: the scene memories, the task-type
// memories (guidance items by type and outcome), the training tasks' local
// memories and the episodes recorded.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	sc := agent.Table{Name: "scenes", Columns: []string{"scene", "functions", "episodes", "pending"}}
	for _, k := range sortedKeys(m.scenes) {
		s := m.scenes[k]
		sc.Rows = append(sc.Rows, []string{k, s.known, strconv.Itoa(len(s.all)), strconv.Itoa(len(s.pending))})
	}
	tt := agent.Table{Name: "task types", Columns: []string{"type", "outcome", "position", "guidance", "episodes"}}
	for _, k := range m.bucketKeys() {
		b := m.buckets[k]
		for i, g := range b.guidance {
			tt.Rows = append(tt.Rows, []string{k.typ, k.outcome, strconv.Itoa(i), g, strconv.Itoa(len(b.all))})
		}
	}
	lt := agent.Table{Name: "task reflections", Columns: []string{"task", "solved", "trials", "reflections"}}
	for _, id := range sortedKeys(m.locals) {
		l := m.locals[id]
		lt.Rows = append(lt.Rows, []string{id, strconv.FormatBool(l.solved), strconv.Itoa(l.trials), strings.Join(l.reflections, " | ")})
	}
	rt := agent.Table{Name: "episodes", Columns: []string{"index", "trial", "task", "type", "scene", "success", "locations", "functions", "actions", "reflection"}}
	for i, r := range m.records {
		rt.Rows = append(rt.Rows, []string{strconv.Itoa(i), strconv.Itoa(r.Trial), r.Task, r.Type, r.Scene, strconv.FormatBool(r.Success), r.Expert.Locations, r.Expert.Functions, r.Expert.Actions, r.Reflection})
	}
	return []agent.Table{sc, tt, lt, rt}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// bucketKeys are the task memory's keys, sorted; m.mu is held.
func (m *Method) bucketKeys() []bucketKey {
	out := make([]bucketKey, 0, len(m.buckets))
	for k := range m.buckets {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].typ != out[j].typ {
			return out[i].typ < out[j].typ
		}
		return out[i].outcome > out[j].outcome // success first
	})
	return out
}

// guidance is the action guidance recalled for a task type: up to
// MaxSuccess success items, then fail items, MaxGuidance in all (spec
// Sec. 4.2), with the bucket of each; m.mu is held.
func (m *Method) guidance(typ string) (items []string, outcomes []string) {
	if b := m.buckets[bucketKey{typ, Success}]; b != nil {
		for _, g := range b.guidance {
			if len(items) >= m.cfg.MaxSuccess {
				break
			}
			items, outcomes = append(items, g), append(outcomes, Success)
		}
	}
	if b := m.buckets[bucketKey{typ, Fail}]; b != nil {
		for _, g := range b.guidance {
			if len(items) >= m.cfg.MaxGuidance {
				break
			}
			items, outcomes = append(items, g), append(outcomes, Fail)
		}
	}
	return items, outcomes
}
