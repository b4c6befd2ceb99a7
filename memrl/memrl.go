// Package memrl is MemRL (Zhang et al. 2026, arXiv:2601.03192): a frozen
// agent that learns which of its episodic memories to retrieve. Memory is a
// set of Intent-Experience-Utility triplets: the embedding of a task
// description (the intent key), an experience (a high-level script and the
// trajectory after a success, a reflection and the trajectory after a
// failure) and a utility Q.
//
// An episode retrieves once, at its start, with its task description as the
// query: Phase A recalls every memory under the K1 intent keys most similar
// to the query above the similarity gate Delta; Phase B re-ranks those
// candidates by (1-Lambda)*z(sim) + Lambda*z(Q) and injects the top K2 into
// the acting prompt. After training episodes, the Q of every injected
// memory moves toward the episode's reward, Q <- Q + Alpha*(r - Q) (a
// one-step return, gamma 0), and the episode is written as a new triplet
// with Q 0, under the intent key it recalled at similarity >= 0.90 or a key
// of its own.
//
// The paper runs mini-batches of 32 parallel episodes that see the memory
// as of the batch start; here a batch is one training iteration: Q updates
// and writes wait for EndIteration, where they are applied in the order of
// the episodes in the schedule, so that a run decides the same with any
// number of workers. The memory is a plain slice behind one lock; model
// calls are made outside it.
package memrl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// Name is MemRL's name on the command line.
const Name = "memrl"

// NoQName is the ablation without the Q re-rank: Phase B ranks by
// similarity alone (Lambda 0), which is how MemRL's authors describe MemP.
const NoQName = "memrl-no-q"

// ErrConfig is returned (wrapped) by New for an invalid configuration.
var ErrConfig = errors.New("memrl: invalid configuration")

// Defaults: the paper's ALFWorld configuration (configs/rl_alf_config.yaml
// and the runner's defaults at commit 7c3beba; spec Sec. 3).
const (
	DefaultK1             = 5
	DefaultK2             = 3
	DefaultDelta          = 0.5
	DefaultLambda         = 0.5
	DefaultAlpha          = 0.3
	DefaultMergeThreshold = 0.90
	DefaultQMin           = -10
	// DefaultSimMean and DefaultSimStd are the code's z-norm constants of
	// similarity, used only when no training task was seen to estimate
	// them from (spec Sec. 7).
	DefaultSimMean = 0.1857
	DefaultSimStd  = 0.0941
	// DefaultMaxMemoryChars bounds one injected memory's text (about 1,500
	// tokens, spec Sec. 7): the trajectory's middle is cut.
	DefaultMaxMemoryChars = 6000
	// maxIntentChars is the paper's truncation of an intent text.
	maxIntentChars = 4096
)

// Config configures MemRL. Zero fields take the defaults.
type Config struct {
	// Name is the method's name ("" = Name); variants set theirs.
	Name string `json:"name,omitempty"`
	// NoQ ranks Phase B by similarity alone (the memrl-no-q ablation).
	NoQ bool `json:"no_q,omitempty"`
	// K1 intent keys recalled in Phase A; K2 memories injected.
	K1 int `json:"k1,omitempty"`
	K2 int `json:"k2,omitempty"`
	// Delta is Phase A's similarity gate.
	Delta float64 `json:"delta,omitempty"`
	// Lambda weighs z(Q) against z(sim) in Phase B.
	Lambda float64 `json:"lambda,omitempty"`
	// Alpha is the step of the Monte Carlo update of Q.
	Alpha float64 `json:"alpha,omitempty"`
	// Epsilon: with this probability a training episode injects a random
	// K2-subset of the candidates (0 in the paper's ALFWorld runs).
	Epsilon float64 `json:"epsilon,omitempty"`
	// MergeThreshold: a new memory joins a recalled intent key at least
	// this similar; otherwise it gets a key of its own.
	MergeThreshold float64 `json:"merge_threshold,omitempty"`
	// QMin drops candidates whose Q is below it (0: DefaultQMin, -10,
	// which drops none since Q stays in [-1, 1]).
	QMin float64 `json:"q_min,omitempty"`
	// SimMean and SimStd are the z-norm constants of similarity; 0: the
	// mean and standard deviation of the pairwise similarities of the
	// first iteration's training task descriptions, estimated once.
	SimMean float64 `json:"sim_mean,omitempty"`
	SimStd  float64 `json:"sim_std,omitempty"`
	// BinaryReward uses r = +1 / -1 also where the environment has a
	// score; off, r = 2*score/max - 1 for a trial not won (spec Sec. 7).
	BinaryReward bool `json:"binary_reward,omitempty"`
	// MaxMemoryChars bounds each injected memory's text.
	MaxMemoryChars int `json:"max_memory_chars,omitempty"`
	// MaxHistory bounds the steps of the acting conversation (the first
	// and the latest are kept); default 50.
	MaxHistory int `json:"max_history,omitempty"`
	// ActMaxTokens, ScriptMaxTokens and ReflectMaxTokens bound the replies.
	ActMaxTokens     int `json:"act_max_tokens,omitempty"`
	ScriptMaxTokens  int `json:"script_max_tokens,omitempty"`
	ReflectMaxTokens int `json:"reflect_max_tokens,omitempty"`
	// MaxAttempts bounds the acting calls of one step (first answer and
	// retries after an action not admissible); default 3.
	MaxAttempts int `json:"max_attempts,omitempty"`
	// Temperature of the acting and script calls (-temperature; the paper
	// 0); the reflection asks at ReflectTemperature (0.3, the code's).
	Temperature        float64 `json:"-"`
	ReflectTemperature float64 `json:"reflect_temperature,omitempty"`
}

// Resolved returns the configuration with every default made explicit.
func (c Config) Resolved() Config {
	c.Name = cmp.Or(c.Name, Name)
	c.K1 = cmp.Or(c.K1, DefaultK1)
	c.K2 = cmp.Or(c.K2, DefaultK2)
	c.Delta = cmp.Or(c.Delta, DefaultDelta)
	if !c.NoQ {
		c.Lambda = cmp.Or(c.Lambda, DefaultLambda)
	} else {
		c.Lambda = 0
	}
	c.Alpha = cmp.Or(c.Alpha, DefaultAlpha)
	c.MergeThreshold = cmp.Or(c.MergeThreshold, DefaultMergeThreshold)
	c.QMin = cmp.Or(c.QMin, DefaultQMin)
	c.MaxMemoryChars = cmp.Or(c.MaxMemoryChars, DefaultMaxMemoryChars)
	c.MaxHistory = cmp.Or(c.MaxHistory, 50)
	c.ActMaxTokens = cmp.Or(c.ActMaxTokens, 200)
	c.ScriptMaxTokens = cmp.Or(c.ScriptMaxTokens, 300)
	c.ReflectMaxTokens = cmp.Or(c.ReflectMaxTokens, 300)
	c.MaxAttempts = cmp.Or(c.MaxAttempts, 3)
	c.ReflectTemperature = cmp.Or(c.ReflectTemperature, 0.3)
	return c
}

func (c Config) valid() error {
	switch {
	case c.K1 < 0, c.K2 < 0, c.MaxMemoryChars < 0, c.MaxHistory < 0, c.ActMaxTokens < 0,
		c.ScriptMaxTokens < 0, c.ReflectMaxTokens < 0, c.MaxAttempts < 0:
		return fmt.Errorf("%w: negative bound in %+v", ErrConfig, c)
	case c.Delta < -1 || c.Delta > 1, c.MergeThreshold < -1 || c.MergeThreshold > 1:
		return fmt.Errorf("%w: delta %g and merge threshold %g must be cosine similarities in [-1, 1]", ErrConfig, c.Delta, c.MergeThreshold)
	case c.Lambda < 0 || c.Lambda > 1:
		return fmt.Errorf("%w: lambda %g not in [0, 1]", ErrConfig, c.Lambda)
	case c.Alpha < 0 || c.Alpha > 1:
		return fmt.Errorf("%w: alpha %g not in [0, 1]", ErrConfig, c.Alpha)
	case c.Epsilon < 0 || c.Epsilon > 1:
		return fmt.Errorf("%w: epsilon %g not in [0, 1]", ErrConfig, c.Epsilon)
	case c.SimStd < 0, c.Temperature < 0 || c.Temperature > 2, c.ReflectTemperature < 0 || c.ReflectTemperature > 2:
		return fmt.Errorf("%w: sim std %g, temperatures %g and %g", ErrConfig, c.SimStd, c.Temperature, c.ReflectTemperature)
	}
	return nil
}

// Deps are the models MemRL uses.
type Deps struct {
	// Chat is the language model; nil selects Offline.
	Chat llm.Chatter
	// Embed embeds task descriptions (required) and maps a proposed action
	// onto the admissible list.
	Embed llm.Embedder
	// Offline is the rule-based agent used when Chat is nil (package
	// memrl/offline).
	Offline Offline
}

// Offline starts the rule-based stand-in for the model in one episode.
type Offline interface {
	// Begin starts an episode shown the injected memories' texts, as the
	// model's acting prompt shows them.
	Begin(s agent.Start, memories []Shown) Session
}

// Shown is one memory as the acting prompt presents it.
type Shown struct {
	Success bool
	// Lesson is the script (success) or the reflection (failure);
	// Trajectory the cleaned trajectory, cut to the bound.
	Lesson, Trajectory string
}

// Session is one offline episode: it acts, sees every step, and writes
// the script of a won episode or the reflection on a failed one.
type Session interface {
	Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error)
	Observe(action, text string)
	// Script is the high-level plan of the episode as a won one.
	Script() string
	// Reflect is the reflection on the episode as a failed one.
	Reflect() string
}

// Item is one triplet of the memory (the intent is its key's).
type Item struct {
	ID  int64
	Key int64 // the intent key it is retrieved by
	// Task is the ID of the task whose episode wrote it; Iteration when.
	Task      string
	Iteration int
	Success   bool
	// Lesson is the script or the reflection, Trajectory the episode.
	Lesson, Trajectory string
	Q                  float64
	// Visits counts Q updates (injections into training episodes);
	// Retrievals the training episodes whose Phase A recalled it.
	Visits, Retrievals int64
	LastReward         float64
	RewardMA           float64
	// Related are the memories injected into the episode that wrote it.
	Related []int64
}

// Intent is an intent key: a task description and its embedding.
type Intent struct {
	ID     int64
	Text   string
	Vector []float32
}

// pending is a finished training episode waiting for the iteration's end.
type pending struct {
	Episode    int
	Task       string
	Iteration  int
	Intent     string
	Vector     []float32
	Success    bool
	Reward     float64
	Injected   []int64
	Candidates []int64
	// MergeKey is the recalled key at similarity >= MergeThreshold, -1
	// for none.
	MergeKey           int64
	Lesson, Trajectory string
}

// Method is MemRL. It is safe for concurrent use.
type Method struct {
	cfg     Config
	chat    llm.Chatter
	emb     llm.Embedder
	offline Offline

	mu      sync.Mutex
	items   []Item
	intents []Intent
	pend    []pending
	// simMean, simStd are the z-norm constants in force (0 std: not
	// estimated yet); estimated says they came from the training tasks.
	simMean, simStd float64
	estimated       bool
	nextItem        int64
	nextIntent      int64
}

// New returns MemRL with an empty memory.
func New(cfg Config, deps Deps) (*Method, error) {
	cfg = cfg.Resolved()
	if err := cfg.valid(); err != nil {
		return nil, err
	}
	if deps.Embed == nil {
		return nil, fmt.Errorf("%w: %s needs an embedder", ErrConfig, cfg.Name)
	}
	if deps.Chat == nil && deps.Offline == nil {
		return nil, fmt.Errorf("%w: %s: no model and no offline roles", ErrConfig, cfg.Name)
	}
	m := &Method{cfg: cfg, chat: deps.Chat, emb: deps.Embed, offline: deps.Offline}
	if cfg.SimStd > 0 {
		m.simMean, m.simStd = cfg.SimMean, cfg.SimStd
	}
	return m, nil
}

// Name implements agent.Method.
func (m *Method) Name() string { return m.cfg.Name }

// Config is the resolved configuration.
func (m *Method) Config() Config { return m.cfg }

// Size implements agent.Sizer.
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return map[string]int{"triplets": len(m.items), "intents": len(m.intents)}
}

// Counters implements agent.Counter.
func (m *Method) Counters() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	succ := 0
	for _, it := range m.items {
		if it.Success {
			succ++
		}
	}
	return map[string]int{"success_memories": succ, "failure_memories": len(m.items) - succ}
}

// Items returns a copy of the triplets, in the order written.
func (m *Method) Items() []Item {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Item, len(m.items))
	for i, it := range m.items {
		it.Related = slices.Clone(it.Related)
		out[i] = it
	}
	return out
}

// SimNorm returns the similarity z-norm constants in force and whether
// they were estimated from the training tasks.
func (m *Method) SimNorm() (mean, std float64, estimated bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.simMean, m.simStd, m.estimated
}

// MemoryTables implements agent.Shower: the triplets with their Q, visits
// and retrievals, and the intent keys.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	keyText := map[int64]string{}
	members := map[int64]int{}
	for _, k := range m.intents {
		keyText[k.ID] = k.Text
	}
	trip := agent.Table{Name: "triplets", Columns: []string{"id", "intent", "task", "iteration", "success", "q", "visits", "retrievals", "last_reward", "reward_ma", "lesson"}}
	for _, it := range m.items {
		members[it.Key]++
		trip.Rows = append(trip.Rows, []string{
			strconv.FormatInt(it.ID, 10), strconv.FormatInt(it.Key, 10), it.Task, strconv.Itoa(it.Iteration),
			strconv.FormatBool(it.Success), f(it.Q), strconv.FormatInt(it.Visits, 10), strconv.FormatInt(it.Retrievals, 10),
			f(it.LastReward), f(it.RewardMA), it.Lesson,
		})
	}
	keys := agent.Table{Name: "intents", Columns: []string{"id", "triplets", "text"}}
	for _, k := range m.intents {
		keys.Rows = append(keys.Rows, []string{strconv.FormatInt(k.ID, 10), strconv.Itoa(members[k.ID]), k.Text})
	}
	return []agent.Table{trip, keys}
}

// reward is the episode's reward r in [-1, 1] (spec Sec. 3 and 7).
func (m *Method) reward(out agent.Outcome) float64 {
	switch {
	case out.Won:
		return 1
	case m.cfg.BinaryReward || out.MaxScore <= 0:
		return -1
	}
	return max(-1, min(1, 2*out.Score/out.MaxScore-1))
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
	return dot / math.Sqrt(na*nb)
}
