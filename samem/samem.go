// Package samem is SAMem, state-aware memory (seed 002): at each step the
// observation history is summarised into a state, the agent produces a
// thought and an action, states and thoughts are clustered online by cosine
// similarity, a tabular Q-value per (state, thought) is learned with the
// Bellman update, training explores with a decayed epsilon-greedy schedule,
// and a forgetting step prunes logically invalid low-valued thoughts.
//
// The Method implements agent.Method, agent.Saver, agent.IterationEnder and
// agent.Sizer. Its memory (clusters and Q-table) is shared by all episodes,
// which may run in parallel; updates are serialised by one lock.
package samem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/forget"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/qlearn"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// Name is the method's name on the command line.
const Name = "samem"

// Config holds SAMem's parameters. Zero values take the defaults noted.
type Config struct {
	// Threshold is the cosine similarity above which a state joins the most
	// similar state cluster; default 0.85 (seed 002 Sec. 4.4, Appendix A).
	Threshold float32 `json:"threshold"`
	// ThoughtThreshold is the same for thoughts; default 0.85 (Appendix C.1).
	ThoughtThreshold float32 `json:"thought_threshold"`
	// Alpha and Gamma of Eq. 4-5; defaults qlearn.DefaultAlpha, DefaultGamma.
	Alpha float64 `json:"alpha"`
	Gamma float64 `json:"gamma"`
	// Eps0 and Beta of the exploration schedule, Eq. 7; defaults 0.95 and 6.
	Eps0 float64 `json:"eps0"`
	Beta float64 `json:"beta"`
	// Schedule is what t and T of Eq. 7 count: ScheduleBudget (default:
	// epsilon decays after every step, as Algorithm 1 line 26, and reaches
	// eps0*exp(-beta) at the end of training), ScheduleStep or
	// ScheduleEpisode (options).
	Schedule Schedule `json:"schedule,omitempty"`
	// GuidePositive lets memory guide only when the chosen thought's Q is
	// above 0. Not in Eq. 6, which follows the argmax whatever its sign
	// (with ScienceWorld's negative rewards the gate silences whole
	// states); an option. It gates every variant alike: the "w/o
	// Q-learning" ablation reads the same learned values for the gate
	// while its guidance ignores them.
	GuidePositive bool `json:"guide_positive,omitempty"`
	// NoForgetting turns the forgetting step off (Fig. 6 compares the two).
	NoForgetting bool `json:"no_forgetting"`
	// MinThoughts is the forgetting trigger: a state with more non-zero
	// thoughts is checked; default 5 (Sec. 3.2).
	MinThoughts int `json:"min_thoughts"`
	// ForgetDropZero adds a clean-up to forgetting that seed 002 does not
	// have: every all-zero state row and thought column is removed with its
	// cluster, not only those the prunes emptied (forget.Forgetter.DropZero).
	// Reported apart in Stats.CleanedStates and CleanedThoughts.
	ForgetDropZero bool `json:"forget_drop_zero,omitempty"`

	// Ablations of Table 2.
	// NoQ: "w/o Q-learning": guidance is the stored thought of the matched
	// state most similar to the current state (retrieval by similarity
	// only, no values).
	NoQ bool `json:"no_q"`
	// NoClustering: "w/o situation processing" (with the raw summariser):
	// a state or thought joins only a cluster with exactly the same text.
	NoClustering bool `json:"no_clustering"`
	// NoDecay: "w/o decayed epsilon-greedy": training always explores, so
	// memory is built but never used during training.
	NoDecay bool `json:"no_decay"`

	// ActionLevel is the action-level memory of Table 3 (seed 002 Sec. 4.4,
	// "Action-Level Optimization vs. Thought-Level"): the table values
	// (state, action) pairs, the actions are clustered where thoughts are,
	// and the highest-valued action of the matched state is the guidance.
	ActionLevel bool `json:"action_level"`
	// RetryZero lets exploring steps retry a tried thought whose Q is still
	// 0 in a state that has a positive thought (episode.go, retryZero).
	// Off by default (docs/results/2026-11-24-samem-sweep.md has the measurement).
	RetryZero bool `json:"retry_zero,omitempty"`
	// TieMargin makes evaluation's argmax (Sec. 3.3) treat as tied the
	// thoughts of the matched state whose Q is within this fraction of the
	// best, and follow the most visited of them (qlearn.Table.BestWithin).
	// 0 (default) is the paper's plain argmax (ties by visits, then id).
	// Training is unchanged. Not in seed 002;
	// docs/results/2026-11-24-samem-sweep.md has the measurement.
	TieMargin float64 `json:"tie_margin,omitempty"`
	// SummaryHistory is read by the app for the model's summariser
	// (summarize.LLM.MaxHistory): the earlier steps its prompt carries, 0
	// (default) the whole history as Eq. 2 has it. SAMem itself does not use it.
	SummaryHistory int `json:"summary_history,omitempty"`
	// TaskProgress is read by the app for the offline summariser
	// (summarize/offline.Summarizer.TaskProgress): the task's progress is part of the
	// household state. SAMem itself does not use it.
	TaskProgress bool `json:"task_progress,omitempty"`
}

// retryZeroShare is the share of exploring steps that retry a zero-valued
// thought of the state (when it has one) instead of exploring freely. One
// half keeps free exploration, which finds thoughts never proposed in the
// state, as frequent as the retries.
const retryZeroShare = 0.5

func (c Config) withDefaults() Config {
	if c.Threshold == 0 {
		c.Threshold = 0.85
	}
	if c.ThoughtThreshold == 0 {
		c.ThoughtThreshold = 0.85
	}
	if c.Alpha == 0 {
		c.Alpha = qlearn.DefaultAlpha
	}
	if c.Gamma == 0 {
		c.Gamma = qlearn.DefaultGamma
	}
	if c.Eps0 == 0 {
		c.Eps0 = qlearn.Eps0
	}
	if c.Beta == 0 {
		c.Beta = qlearn.Beta
	}
	if c.MinThoughts == 0 {
		c.MinThoughts = forget.DefaultMinThoughts
	}
	if c.Schedule == "" {
		c.Schedule = ScheduleBudget
	}
	return c
}

// Schedule is what t and T of the exploration schedule (Eq. 7) count. It
// is a flag.Value (-schedule) that refuses other values.
type Schedule string

func (s Schedule) String() string { return string(s) }

// Set implements flag.Value.
func (s *Schedule) Set(v string) error {
	if v := Schedule(v); v.Known() {
		*s = v
		return nil
	}
	return fmt.Errorf("unknown schedule %q (known: %s, %s, %s)", v, ScheduleBudget, ScheduleStep, ScheduleEpisode)
}

// Known reports whether s is one of the schedules.
func (s Schedule) Known() bool {
	return s == ScheduleBudget || s == ScheduleStep || s == ScheduleEpisode
}

// Exploration schedules: the units of t and T in Eq. 7.
const (
	// ScheduleBudget counts training steps against the step budget:
	// T is the number of training episodes times a task's step limit, and
	// t = (episode index) x (step limit) + (steps taken in this episode),
	// every earlier episode counted at its full budget. Epsilon decays
	// after every step (Algorithm 1 line 26) and the last step of training
	// reaches t = T - 1 when it runs to the limit, so epsilon ends at
	// eps0*exp(-beta) (0.0024 with the defaults) up to a factor
	// exp(beta/episodes) whenever the last episode ends. It depends only on
	// the episode and its own steps, so parallel workers and resumes see
	// the same schedule.
	ScheduleBudget Schedule = "budget"
	// ScheduleStep counts the transitions applied so far (the Q-table's
	// step clock) against the same budget. Episodes that end before their
	// limit leave t well below T at the end of training: on two default
	// household runs epsilon ended at 0.060 and 0.076 instead of 0.0024.
	// Kept as an option (the default before the budget schedule).
	ScheduleStep Schedule = "step"
	// ScheduleEpisode counts episodes: t is the episode's index in the
	// schedule and T the number of training episodes; epsilon is fixed
	// within an episode. Kept as an option
	// (docs/results/2026-11-24-samem-sweep.md has the measurement).
	ScheduleEpisode Schedule = "episode"
)

// defaultStepLimit is the step limit assumed for a task that gives none,
// as the runner does (runner.DefaultMaxSteps).
const defaultStepLimit = 50

// ErrConfig is returned by New for an unusable configuration.
var ErrConfig = errors.New("invalid samem configuration")

func (c Config) validate() error {
	switch {
	case c.Threshold <= -1 || c.Threshold > 1:
		return fmt.Errorf("%w: threshold %v is not in (-1, 1]", ErrConfig, c.Threshold)
	case c.ThoughtThreshold <= -1 || c.ThoughtThreshold > 1:
		return fmt.Errorf("%w: thought threshold %v is not in (-1, 1]", ErrConfig, c.ThoughtThreshold)
	case c.Eps0 < 0 || c.Eps0 > 1:
		return fmt.Errorf("%w: eps0 %v is not in [0, 1]", ErrConfig, c.Eps0)
	case c.Beta < 0:
		return fmt.Errorf("%w: beta %v is negative", ErrConfig, c.Beta)
	case !c.Schedule.Known():
		return fmt.Errorf("%w: schedule %q: want %q, %q or %q", ErrConfig, c.Schedule, ScheduleBudget, ScheduleStep, ScheduleEpisode)
	case !(c.TieMargin >= 0 && c.TieMargin < 1):
		return fmt.Errorf("%w: tie margin %v is not in [0, 1)", ErrConfig, c.TieMargin)
	case c.MinThoughts < 1:
		return fmt.Errorf("%w: min thoughts %d < 1", ErrConfig, c.MinThoughts)
	}
	return (qlearn.Params{Alpha: c.Alpha, Gamma: c.Gamma}).Validate()
}

// Deps are the roles SAMem calls.
type Deps struct {
	Summarizer summarize.Summarizer
	Thinker    thought.Thinker
	Checker    forget.Checker
	Embedder   llm.Embedder
	// Log receives the method's notes (a cluster index rebuilt on Load);
	// nil means os.Stderr.
	Log io.Writer
}

// Method is SAMem.
type Method struct {
	cfg  Config
	deps Deps

	mu        sync.Mutex // guards everything below
	states    clusters
	thoughts  clusters
	table     *qlearn.Table
	forgetter *forget.Forgetter
	step      int64             // training transitions applied (the Q-table's step clock)
	pruned    map[[2]int64]bool // (state, thought) pairs forgetting rejected; never retried
	stats     Stats             // of training, saved with the memory
	// evalStats counts evaluation steps apart from stats, so that
	// evaluating leaves the saved memory as it was (agenttest's
	// eval-frozen clause); it is never saved.
	evalStats Stats
	vecs      vecCache
	loadNotes []string // of the last Load (LoadNotes)
}

// Stats counts what the method did; reports print them.
type Stats struct {
	Checks, Prunes  int // forgetting: logical checks made, thoughts pruned
	RemovedStates   int // forgetting: state clusters dropped (emptied by prunes)
	RemovedThoughts int // forgetting: thought clusters dropped (emptied by prunes)
	// CleanedStates and CleanedThoughts are the clusters removed by the
	// optional clean-up (Config.ForgetDropZero), beyond the paper's step.
	CleanedStates, CleanedThoughts int
	Guided, Free                   int // training steps with and without guidance from memory
	Unmatched                      int // evaluation steps whose state matched no cluster
}

// New returns an empty SAMem.
func New(cfg Config, deps Deps) (*Method, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if deps.Summarizer == nil || deps.Thinker == nil || deps.Checker == nil || deps.Embedder == nil {
		return nil, fmt.Errorf("%w: every role (summarizer, thinker, checker, embedder) must be set", ErrConfig)
	}
	m := &Method{cfg: cfg, deps: deps}
	if err := m.reset(); err != nil {
		return nil, err
	}
	return m, nil
}

// reset empties the memory.
func (m *Method) reset() error {
	var err error
	if m.states, err = newClusters(m.cfg.NoClustering, m.cfg.Threshold, m.deps.Embedder.Dim()); err != nil {
		return err
	}
	if m.thoughts, err = newClusters(m.cfg.NoClustering, m.cfg.ThoughtThreshold, m.deps.Embedder.Dim()); err != nil {
		return err
	}
	if m.table, err = qlearn.New(qlearn.Params{Alpha: m.cfg.Alpha, Gamma: m.cfg.Gamma}); err != nil {
		return err
	}
	m.forgetter = forget.New(m.deps.Checker)
	m.forgetter.MinThoughts = m.cfg.MinThoughts
	m.forgetter.DropZero = m.cfg.ForgetDropZero
	m.vecs = vecCache{}
	m.pruned = map[[2]int64]bool{}
	return nil
}

// Name implements agent.Method.
func (m *Method) Name() string { return Name }

// Config returns the resolved configuration.
func (m *Method) Config() Config { return m.cfg }

// Stats returns a copy of the method's counters.
func (m *Method) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.stats
	st.Unmatched = m.evalStats.Unmatched
	return st
}

// Counters implements agent.Counter: the forgetting step's checks and
// prunes (seed 002 Sec. 3.2, Fig. 6) and how many steps memory guided.
func (m *Method) Counters() map[string]int {
	st := m.Stats()
	return map[string]int{
		"checks": st.Checks, "prunes": st.Prunes,
		"removed_states": st.RemovedStates, "removed_thoughts": st.RemovedThoughts,
		"cleaned_states": st.CleanedStates, "cleaned_thoughts": st.CleanedThoughts,
		"guided": st.Guided, "free": st.Free, "unmatched": st.Unmatched,
	}
}

// Size implements agent.Sizer: the state and thought clusters, the Q-table
// entries, and of those the entries with a non-zero Q ("nonzero"). The
// forgetting step zeroes the entries it prunes and removes only the rows
// and columns this empties (Sec. 3.2), so what it removed shows in
// "nonzero" (and in the counters' "prunes"), not always in "entries".
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return map[string]int{"states": m.states.Len(), "thoughts": m.thoughts.Len(), "entries": m.table.Len(), "nonzero": m.table.NonZeroLen()}
}

// Epsilon is the exploration rate (Eq. 7) at the start of an episode of the
// schedule (epsilonAt with no step taken yet).
func (m *Method) Epsilon(s agent.Start) float64 { return m.epsilonAt(s, 0) }

// epsilonAt is the exploration rate of Eq. 7 before step k (0-based) of the
// episode s: with ScheduleBudget t = s.Episode * limit + k against
// T = s.Episodes * limit; with ScheduleStep t is the training transitions
// applied so far (the Q-table's step clock, which checkpoints keep) against
// the same T; with ScheduleEpisode t = s.Episode against T = s.Episodes.
func (m *Method) epsilonAt(s agent.Start, k int) float64 {
	if m.cfg.NoDecay {
		return 1
	}
	if m.cfg.Schedule == ScheduleEpisode {
		return qlearn.Epsilon(m.cfg.Eps0, m.cfg.Beta, s.Episode, s.Episodes)
	}
	limit := s.Task.MaxSteps
	if limit <= 0 {
		limit = defaultStepLimit
	}
	if m.cfg.Schedule == ScheduleBudget {
		return qlearn.Epsilon(m.cfg.Eps0, m.cfg.Beta, s.Episode*limit+min(k, limit-1), s.Episodes*limit)
	}
	m.mu.Lock()
	t := m.step
	m.mu.Unlock()
	return qlearn.Epsilon(m.cfg.Eps0, m.cfg.Beta, int(t), s.Episodes*limit)
}

// Start implements agent.Method.
func (m *Method) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	return &episode{
		m: m, s: s,
		sum: m.deps.Summarizer.Begin(s.Task, s.Style),
		th:  m.deps.Thinker.Begin(s.Task, s.Style, s.Rand),
	}, nil
}

// EndIteration implements agent.IterationEnder: the forgetting step.
func (m *Method) EndIteration(ctx context.Context, _ int) error {
	if m.cfg.NoForgetting {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	res, err := m.forgetter.Run(ctx, m.table, m.states.Text, m.thoughts.Text)
	for _, p := range res.PrunedPairs {
		m.pruned[p] = true
	}
	m.stats.Checks += res.Checked
	m.stats.Prunes += res.Pruned
	m.states.Remove(res.RemovedStates...)
	m.thoughts.Remove(res.RemovedThoughts...)
	m.stats.RemovedStates += len(res.RemovedStates)
	m.stats.RemovedThoughts += len(res.RemovedThoughts)
	m.states.Remove(res.CleanedStates...)
	m.thoughts.Remove(res.CleanedThoughts...)
	m.stats.CleanedStates += len(res.CleanedStates)
	m.stats.CleanedThoughts += len(res.CleanedThoughts)
	return err
}

// embed returns the vector of text, from the method's cache when it has it.
func (m *Method) embed(ctx context.Context, text string) ([]float32, error) {
	m.mu.Lock()
	v, ok := m.vecs.get(text)
	m.mu.Unlock()
	if ok {
		return v, nil
	}
	vs, err := m.deps.Embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(vs) != 1 || len(vs[0]) != m.deps.Embedder.Dim() {
		return nil, fmt.Errorf("embed: got %d vectors, want 1 of dimension %d", len(vs), m.deps.Embedder.Dim())
	}
	m.mu.Lock()
	m.vecs.put(text, vs[0])
	m.mu.Unlock()
	return vs[0], nil
}

// vecCache keeps the vectors of recent texts: offline states repeat a few
// sentences, and a model's states repeat often within a task. Bounded; it is
// emptied when full.
type vecCache map[string][]float32

const vecCacheSize = 1 << 14

func (c vecCache) get(text string) ([]float32, bool) { v, ok := c[text]; return v, ok }

func (c vecCache) put(text string, v []float32) {
	if len(c) >= vecCacheSize {
		clear(c)
	}
	c[text] = v
}

// Resolved is the configuration with the defaults New applies made explicit
// (thresholds, alpha, gamma, eps0, beta, min thoughts), for records such as
// a run's config.json.
func (c Config) Resolved() Config { return c.withDefaults() }
