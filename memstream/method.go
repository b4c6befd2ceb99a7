package memstream

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/samem/trainer/actions"
	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

// Config configures the memory-stream method. Zero fields take the defaults.
type Config struct {
	K         int     `json:"k,omitempty"`         // memories retrieved per step; default defaultK (seed 000 Sec. 4.2)
	Recent    int     `json:"recent,omitempty"`    // recent steps in working memory; default 5 (seed 000 Sec. 4.2)
	Decay     float64 `json:"decay,omitempty"`     // recency decay per step; default DefaultDecay
	Threshold float64 `json:"threshold,omitempty"` // reflection threshold; default defaultThreshold
	Weights   Weights `json:"weights,omitzero"`    // default PaperWeights
	// Carry keeps one stream over every training episode and evaluates
	// with it (this project's option). Off by default: as the RAG
	// baseline of seed 000 Sec. 4.2 the stream replaces AriGraph's graph,
	// which every episode builds from empty (zero-shot, seed 000 Sec. 4),
	// so every episode starts with an empty stream and nothing persists.
	Carry bool `json:"carry,omitempty"`
	// Temperature of the model calls (the roles and the Ariadne decider);
	// default 0. The application sets it from -temperature.
	Temperature float64 `json:"-"`
}

// Deps are the models the method uses.
type Deps struct {
	Chat  llm.Chatter  // nil: Offline's roles
	Embed llm.Embedder // required
	// Offline are the roles without a model (package memstream/offline's
	// rules), used when Chat is nil.
	Offline Offline
}

// Offline starts the roles of an episode without a model.
type Offline interface {
	Begin(s agent.Start) OfflineEpisode
}

// OfflineEpisode is one episode's roles without a model: the stream's roles
// and Ariadne's planning and decision modules, which read the memories
// retrieved for the observation.
type OfflineEpisode interface {
	Roles
	// Decide picks the next action from the observation now, the memories
	// retrieved for it (best first; at most k) and the recent steps.
	Decide(obs envbridge.Observation, retrieved []Scored, recent []Step, k int) (reason, action string)
}

// Step is one pair of recent history: an observation and the action taken
// on it.
type Step struct {
	Action      string
	Observation string
}

// ErrConfig is returned by New for an invalid configuration.
var ErrConfig = errors.New("memstream: invalid configuration")

// Method is the memory-stream agent: Ariadne's loop (seed 000 Sec. 3) with
// the stream as its memory (seed 000 Sec. 4.2).
//
// What persists: by default nothing. Every episode, in Train and Eval,
// starts with an empty stream of its own and drops it at the end, as
// AriGraph's episodes start with an empty graph (so training is a no-op and
// the saved stream is empty). With Config.Carry, in Train (and in an online
// evaluation, agent.Online) every observation and reflection joins one
// shared stream, tagged with its task, and in Eval an episode reads the
// shared stream (retrieval does not even update its
// access times) and writes to a private copy dropped at the end.
// Placements are read only from memories of the episode's own task (its
// environment instance); memories of other tasks reach working memory as
// text, as in the paper's RAG baseline.
type Method struct {
	cfg   Config
	emb   llm.Embedder
	roles Roles
	plan  *Decider // nil offline
	off   Offline  // nil with a model
	mu    sync.Mutex
	s     *Stream
	clock int // steps taken in training, the stream's time
	// loadNotes are the memories the last Load skipped (LoadNotes).
	loadNotes []string
}

// New returns a memory-stream method.
func New(cfg Config, deps Deps) (*Method, error) {
	if deps.Embed == nil {
		return nil, fmt.Errorf("%w: no embedder", ErrConfig)
	}
	if cfg.K < 0 || cfg.Recent < 0 || cfg.Decay < 0 || cfg.Decay > 1 || cfg.Threshold < 0 || cfg.Temperature < 0 {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	cfg.K = cmp.Or(cfg.K, defaultK)
	cfg.Recent = cmp.Or(cfg.Recent, 5)
	cfg.Decay = cmp.Or(cfg.Decay, DefaultDecay)
	cfg.Threshold = cmp.Or(cfg.Threshold, defaultThreshold)
	if cfg.Weights == (Weights{}) {
		cfg.Weights = PaperWeights
	}
	m := &Method{cfg: cfg, emb: deps.Embed, s: NewStream()}
	if deps.Chat != nil {
		m.roles = &LLM{Chat: deps.Chat, Temperature: cfg.Temperature}
		m.plan = &Decider{Chat: deps.Chat, Temperature: cfg.Temperature}
	} else if m.off = deps.Offline; m.off == nil {
		return nil, fmt.Errorf("%w: no model and no offline roles", ErrConfig)
	}
	return m, nil
}

// Name implements agent.Method.
func (m *Method) Name() string { return "memstream" }

// Size implements agent.Sizer.
func (m *Method) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := 0
	for _, x := range m.s.mems {
		if x.Kind == KindReflection {
			r++
		}
	}
	return map[string]int{"memories": m.s.Len(), "reflections": r}
}

// Start implements agent.Method.
func (m *Method) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	rng := s.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(uint64(s.Task.Seed), 11))
	}
	e := &episode{m: m, s: s, rng: rng, roles: m.roles}
	if m.off != nil {
		e.off = m.off.Begin(s)
		e.roles = e.off
	}
	if !m.cfg.Carry {
		e.own = NewStream()
	} else if !s.Mode.Learns() {
		m.mu.Lock()
		e.own = m.s.Copy()
		e.clock = m.clock
		m.mu.Unlock()
	}
	return e, nil
}

type episode struct {
	m       *Method
	s       agent.Start
	rng     *rand.Rand
	roles   Roles
	off     OfflineEpisode // nil with a model
	own     *Stream        // the episode's own stream (a frozen evaluation, or without Carry); nil: the shared one
	clock   int
	lastObs string
	history []Step
	plan    string
}

// with runs f on the stream this episode writes to, under the method's lock in Train.
func (e *episode) with(f func(s *Stream, now int) error) error {
	if e.own != nil {
		return f(e.own, e.clock)
	}
	e.m.mu.Lock()
	defer e.m.mu.Unlock()
	return f(e.m.s, e.m.clock)
}

// Act implements agent.Episode.
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	imp, err := e.roles.Importance(ctx, e.s.Task.Goal, obs.Text)
	if err != nil {
		return agent.Decision{}, err
	}
	var got []Scored
	var reflect bool
	err = e.with(func(s *Stream, now int) error {
		s.Add(KindObservation, obs.Text, e.s.Task.ID, now, imp, nil)
		reflect = s.ShouldReflect(e.m.cfg.Threshold)
		var err error
		got, err = s.Retrieve(ctx, e.m.emb, e.s.Task.Goal+"\n"+obs.Text, now, e.m.cfg.K, e.m.cfg.Decay, e.m.cfg.Weights, nil)
		return err
	})
	if err != nil {
		return agent.Decision{}, fmt.Errorf("retrieve: %w", err)
	}
	if reflect {
		if err := e.reflect(ctx); err != nil {
			return agent.Decision{}, err
		}
	}
	var reason, action string
	if e.off != nil {
		reason, action = e.off.Decide(obs, got, e.history[max(0, len(e.history)-e.m.cfg.Recent):], e.m.cfg.K)
	} else {
		wm := e.ragMemory(obs, got)
		if e.plan, err = e.m.plan.Plan(ctx, wm); err != nil {
			return agent.Decision{}, err
		}
		wm.Plan = e.plan
		if reason, action, err = e.m.plan.Decide(ctx, wm); err != nil {
			return agent.Decision{}, err
		}
		if obs.Admissible != nil && !slices.Contains(obs.Admissible, action) {
			match, _, ok, err := actions.MatchAdmissible(ctx, e.m.emb, action, obs.Admissible)
			if err != nil {
				return agent.Decision{}, err
			}
			if ok {
				action = match
			} else {
				action = obs.Admissible[e.rng.IntN(len(obs.Admissible))]
			}
		}
		action = cmp.Or(action, "look")
	}
	e.lastObs = obs.Text
	return agent.Decision{Thought: reason, Action: action, Guided: len(got) > 0, Recall: recall(got, e.plan, imp, reflect)}, nil
}

// recall is what a decision read from the stream: the retrieved memories,
// best first, with their score and its three min-max normalised components
// (seed 001 Sec. 4.1) and their importance on its 1-10 scale; the plan;
// the importance given to the observation now stored, and whether it set
// off a reflection.
func recall(got []Scored, plan string, imp float64, reflected bool) *agent.Recall {
	r := &agent.Recall{Plan: plan, Notes: []string{"observation stored with importance " + strconv.FormatFloat(imp, 'g', -1, 64)}}
	if reflected {
		r.Notes = append(r.Notes, "importance since the last reflection passed the threshold: reflected")
	}
	for _, g := range got {
		r.Items = append(r.Items, agent.RecallItem{
			ID: strconv.Itoa(g.ID), Kind: g.Kind, Text: g.Text,
			Scores: map[string]float64{
				"score": g.Score, "relevance": g.Relevance, "recency": g.Recency, "importance": g.Importance,
				"importance (1-10)": g.Memory.Importance, "created": float64(g.Created),
			},
		})
	}
	return r
}

// ragMemory is seed 000 Sec. 4.2's RAG working memory, what the model's
// planner and decider see: the goal, the last Recent observations with their
// actions, the observation now, the K retrieved memories and the plan. No
// graph facts and no unexplored exits (TestRAGPromptsCarryNoGraph).
func (e *episode) ragMemory(obs envbridge.Observation, got []Scored) RAGMemory {
	hist := e.history[max(0, len(e.history)-e.m.cfg.Recent):]
	wm := RAGMemory{Goal: e.s.Task.Goal, History: hist, Observation: obs.Text, K: e.m.cfg.K, Actions: obs.Admissible, Plan: e.plan}
	for _, g := range got {
		wm.Episodes = append(wm.Episodes, g.Text)
	}
	return wm
}

// reflect is seed 001 Sec. 4.2: questions from the 100 most recent
// memories, retrieval per question, insights citing evidence, stored as
// reflection memories.
func (e *episode) reflect(ctx context.Context) error {
	var recent []string
	e.with(func(s *Stream, _ int) error {
		for _, m := range s.Recent(defaultRecent) {
			recent = append(recent, m.Text)
		}
		s.Reflected()
		return nil
	})
	qs, err := e.roles.Questions(ctx, recent)
	if err != nil {
		return err
	}
	for _, q := range qs {
		var got []Scored
		err := e.with(func(s *Stream, now int) error {
			var err error
			got, err = s.Retrieve(ctx, e.m.emb, q, now, 10, e.m.cfg.Decay, e.m.cfg.Weights, nil)
			return err
		})
		if err != nil {
			return fmt.Errorf("reflect: %w", err)
		}
		texts := make([]string, len(got))
		for i, g := range got {
			texts[i] = g.Text
		}
		ins, err := e.roles.Insights(ctx, e.s.Task.Goal, texts)
		if err != nil {
			return err
		}
		for _, in := range ins {
			if replyfmt.Junk(in.Text) {
				continue // nothing that failed to parse becomes memory
			}
			var ev []int
			for _, n := range in.Evidence {
				ev = append(ev, got[n-1].ID)
			}
			imp, err := e.roles.Importance(ctx, e.s.Task.Goal, in.Text)
			if err != nil {
				return err
			}
			e.with(func(s *Stream, now int) error {
				s.Add(KindReflection, in.Text, e.s.Task.ID, now, imp, ev)
				return nil
			})
		}
	}
	return nil
}

// Observe implements agent.Episode; the stream's clock advances one per step.
func (e *episode) Observe(_ context.Context, tr agent.Transition) error {
	e.history = append(e.history, Step{Observation: e.lastObs, Action: tr.Decision.Action})
	if e.own != nil {
		e.clock++
		return nil
	}
	e.m.mu.Lock()
	e.m.clock++
	e.m.mu.Unlock()
	return nil
}

// Finish implements agent.Episode. Nothing to do: with Carry, Train
// episodes wrote to the shared stream as they went; every other episode
// drops its own stream.
func (e *episode) Finish(context.Context, agent.Outcome) error { return nil }

const (
	fileMemories  = "memstream_memories.parquet"
	fileMeta      = "memstream_meta.parquet"
	formatVersion = 1
)

type metaRow struct {
	FormatVersion int     `parquet:"format_version"`
	EmbedModel    string  `parquet:"embed_model"`
	Clock         int     `parquet:"clock"`
	SinceReflect  float64 `parquet:"since_reflect"`
}

// ErrFormat is returned by Load for files of another format version or
// embedder, or with memories out of order.
var ErrFormat = errors.New("memstream: unsupported saved stream")

// Save implements agent.Saver: the memories and one metadata row, each
// written atomically by checkpoints.WriteFile (the metadata last).
func (m *Method) Save(ctx context.Context, dir string) error {
	m.mu.Lock()
	mems, meta := m.s.Memories(), metaRow{formatVersion, m.emb.Model(), m.clock, m.s.sinceReflect}
	m.mu.Unlock()
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, fileMemories), mems, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("save memstream: %w", err)
	}
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, fileMeta), []metaRow{meta}, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("save memstream: %w", err)
	}
	return nil
}

// Load implements agent.Saver. Files are read by checkpoints.ReadFile, so a
// missing, damaged or foreign file gives an error naming it (wrapping
// checkpoints.ErrMissing, ErrNotParquet, ErrCorrupt or ErrSchema); another
// format version or embedder, or memories out of order, give ErrFormat. The
// method is left unchanged on error.
func (m *Method) Load(ctx context.Context, dir string) error {
	metaPath, memPath := filepath.Join(dir, fileMeta), filepath.Join(dir, fileMemories)
	meta, err := checkpoints.ReadFile[metaRow](ctx, metaPath)
	if err != nil {
		return fmt.Errorf("load memstream: %w", err)
	}
	if len(meta) != 1 || meta[0].FormatVersion != formatVersion || meta[0].EmbedModel != m.emb.Model() {
		return fmt.Errorf("load memstream %s: %d rows %+v, want version %d and embedder %q: %w",
			metaPath, len(meta), meta, formatVersion, m.emb.Model(), ErrFormat)
	}
	mems, err := checkpoints.ReadFile[Memory](ctx, memPath)
	if err != nil {
		return fmt.Errorf("load memstream: %w", err)
	}
	for i := range mems {
		if len(mems[i].Evidence) == 0 {
			mems[i].Evidence = nil
		}
		// Add numbers memories in increasing order; retrieval and
		// reflection evidence rely on unique IDs.
		if i > 0 && mems[i].ID <= mems[i-1].ID {
			return fmt.Errorf("load memstream %s: memory id %d after %d: %w", memPath, mems[i].ID, mems[i-1].ID, ErrFormat)
		}
	}
	// A memory made of a reply's decoration (a fence line, a chat preamble,
	// an empty text), saved by an earlier version, is reported and skipped:
	// it would be embedded as nothing and stop every resume.
	kept := mems[:0:0]
	var notes []string
	for _, mem := range mems {
		if replyfmt.Junk(mem.Text) {
			notes = append(notes, fmt.Sprintf("memstream %s: skipped memory %d (%s) %q: not content (a reply's decoration or empty)", memPath, mem.ID, mem.Kind, mem.Text))
			continue
		}
		kept = append(kept, mem)
	}
	s := restoreStream(kept, meta[0].SinceReflect)
	m.mu.Lock()
	m.s, m.clock, m.loadNotes = s, meta[0].Clock, notes
	m.mu.Unlock()
	return nil
}

// LoadNotes implements agent.LoadReporter: the memories the last Load
// skipped, one line each.
func (m *Method) LoadNotes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.loadNotes)
}
