package scale

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/cluster"
	"github.com/samem/trainer/envbridge"
	forgetoff "github.com/samem/trainer/forget/offline"
	"github.com/samem/trainer/samem"
)

// StepConfig configures the per-step overhead measurement.
type StepConfig struct {
	Size  MemorySize // default TargetMemory
	Steps int        // steps timed (default 3000)
	// BaselineSteps are the steps whose state and thought are also decided
	// by an exact scan, the baseline (default 300).
	BaselineSteps int
	// Repeat is the share of states and thoughts whose text was seen a few
	// steps before (default 0.3): a model's states repeat within a task, and
	// the method's embedding cache serves them.
	Repeat float64
	Seed   uint64
	// Dir is where the synthetic checkpoint is written (default a temporary
	// directory, removed afterwards).
	Dir string
	// Profile, when not nil, is started just before the timed steps and
	// stopped after them (a CPU profile of the hot path).
	Profile func() (stop func())
	// LoadRuns is how many times each Load path is timed (default 3).
	LoadRuns int
}

// StepResult is what StepOverhead measured.
type StepResult struct {
	Median, P90 time.Duration // per step: Act + Observe, roles instant
	// Exact is the median time of the baseline: an exact scan deciding the
	// step's state and its thought (two decisions) over the same memory.
	Exact time.Duration
	// Save is the method's own checkpoint Save of the synthetic memory,
	// index files included. Load is the median of LoadRuns Loads of it with
	// the cluster indexes read from their index files; Rebuild
	// the median of as many Loads of the same checkpoint without its index
	// files (a checkpoint from before them: both indexes rebuilt), timed
	// alternately with the first.
	Save, Load, Rebuild time.Duration
	LoadRuns            int
	// Bytes is the size of the checkpoint's files without the index files,
	// IndexBytes that of the index files.
	Bytes, IndexBytes int64
	States            int // state clusters after the run
	Thoughts          int
	Entries           int
}

// StepOverhead measures the trainer's own work per step of SAMem (seed 002
// Algorithm 1, lines 8-25: embedding lookups through the method's cache,
// clustering the state and the thought, the guide's argmax, the Q update,
// and the locks around them) with a memory of cfg.Size loaded from a
// checkpoint. The summariser, thinker and embedder are stubs that answer
// instantly, so model latency is excluded by construction; the environment
// is not involved.
//
// Profile (go run ./cmd/bench -only step -profile DIR, 2026-11-22): 86 to
// 94 % of a step's CPU is cluster.Index.Assign for the state and the thought
// (the HNSW candidate search a third to a half of it, the list scans most of
// the rest); the method's own code (its lock, the embedding cache, the guide's
// argmax, the Q update) is under 5 %. So the step figure is two clustering
// decisions at 10,000 clusters, and is improved in package cluster, not
// here; the baseline is therefore the same two decisions by exact scan.
func StepOverhead(ctx context.Context, cfg StepConfig) (StepResult, error) {
	var res StepResult
	if cfg.Size == (MemorySize{}) {
		cfg.Size = TargetMemory
	}
	if cfg.Steps <= 0 {
		cfg.Steps = 3000
	}
	if cfg.BaselineSteps <= 0 {
		cfg.BaselineSteps = 300
	}
	if cfg.Repeat == 0 {
		cfg.Repeat = 0.3
	}
	if cfg.LoadRuns <= 0 {
		cfg.LoadRuns = 3
	}
	mem, err := NewMemory(ctx, cfg.Size, cfg.Seed)
	if err != nil {
		return res, err
	}
	dir := cfg.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bench-step-"); err != nil {
			return res, err
		}
		defer os.RemoveAll(dir)
	}

	// Queries: each step a state and a thought, from the streams that made
	// the memory (about a third found new clusters, the rest revisit), with
	// a share of texts repeated from recent steps.
	emb := newStubEmbedder(cfg.Size.Dim)
	rng := rand.New(rand.NewPCG(cfg.Seed, 4))
	stateTexts := queries(rng, cfg.Steps+1, cfg.Repeat, "state", mem.States.Next, emb)
	thoughtTexts := queries(rng, cfg.Steps, cfg.Repeat, "thought", mem.Thoughts.Next, emb)
	sf, tf := &feed{texts: stateTexts}, &feed{texts: thoughtTexts}

	m, err := samem.New(samem.Config{NoForgetting: true}, samem.Deps{
		Summarizer: stubSummarizer{sf}, Thinker: stubThinker{tf}, Checker: forgetoff.Checker{}, Embedder: emb, Log: io.Discard})
	if err != nil {
		return res, err
	}
	// A checkpoint of the synthetic memory: Save writes the method's step
	// clock beside the (empty) tables, which are then replaced by the
	// synthetic ones; the index files of the empty memory are removed, so
	// that the first Load rebuilds the indexes, and Save then writes them.
	if err := m.Save(ctx, dir); err != nil {
		return res, err
	}
	if err := checkpoints.SaveSAMem(ctx, dir, mem.State); err != nil {
		return res, err
	}
	if err := hideIndexes(dir, true); err != nil {
		return res, err
	}
	if err := load(ctx, m, dir, false); err != nil {
		return res, err
	}
	os.RemoveAll(filepath.Join(dir, hiddenIndexes))
	t0 := time.Now()
	if err := m.Save(ctx, dir); err != nil {
		return res, err
	}
	res.Save = time.Since(t0)
	if res.Bytes, res.IndexBytes, err = dirBytes(dir); err != nil {
		return res, err
	}
	// The two Load paths, alternately, so that a change in the machine's
	// load falls on both. The last Load reads the index files: the steps
	// below run on restored indexes.
	var loads, rebuilds []time.Duration
	for range cfg.LoadRuns {
		for _, restored := range []bool{false, true} {
			if err := hideIndexes(dir, !restored); err != nil {
				return res, err
			}
			runtime.GC()
			t0 := time.Now()
			if err := load(ctx, m, dir, restored); err != nil {
				return res, err
			}
			d := time.Since(t0)
			if restored {
				loads = append(loads, d)
			} else {
				rebuilds = append(rebuilds, d)
			}
		}
	}
	if err := hideIndexes(dir, false); err != nil {
		return res, err
	}
	res.Load, res.Rebuild, res.LoadRuns = median(loads), median(rebuilds), cfg.LoadRuns

	// Baseline: the exact scan's two decisions per step on the same store.
	exS, exT, err := exactOf(mem.State)
	if err != nil {
		return res, err
	}
	var exact []time.Duration
	for i := range min(cfg.BaselineSteps, cfg.Steps) {
		sv, _ := emb.Embed(ctx, []string{stateTexts[i]})
		tv, _ := emb.Embed(ctx, []string{thoughtTexts[i]})
		t := time.Now()
		if _, _, _, err := exS.Decide(sv[0], 0.85); err != nil {
			return res, err
		}
		if _, _, _, err := exT.Decide(tv[0], 0.85); err != nil {
			return res, err
		}
		exact = append(exact, time.Since(t))
	}
	res.Exact = median(exact)
	exS, exT = nil, nil

	// The timed steps: episodes of 50 steps, in training mode half-way
	// through the schedule (epsilon 0.95·e^-3 ≈ 0.05, so most steps look
	// up guidance).
	var stop func()
	if cfg.Profile != nil {
		stop = cfg.Profile()
	}
	obs := envbridge.Observation{Text: "You see a cabinet.", Admissible: []string{"advance"}}
	task := envbridge.Task{ID: "bench", Goal: "find the object", MaxSteps: 50}
	times := make([]time.Duration, 0, cfg.Steps)
	var ep agent.Episode
	for i := range cfg.Steps {
		if i%50 == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			ep, err = m.Start(ctx, agent.Start{Task: task, Mode: agent.Train, Style: envbridge.StyleHousehold,
				Rand: rand.New(rand.NewPCG(cfg.Seed, uint64(i))), Episode: 500, Episodes: 1000})
			if err != nil {
				return res, err
			}
		}
		t := time.Now()
		d, err := ep.Act(ctx, obs)
		if err != nil {
			return res, fmt.Errorf("step %d: %w", i, err)
		}
		tr := agent.Transition{Step: i % 50, Decision: d, Result: envbridge.StepResult{Observation: obs, Reward: float64(i%7) / 10}}
		if err := ep.Observe(ctx, tr); err != nil {
			return res, fmt.Errorf("step %d: %w", i, err)
		}
		times = append(times, time.Since(t))
	}
	if stop != nil {
		stop()
	}
	res.Median = median(times)
	res.P90 = quantile(times, 0.9)
	sz := m.Size()
	res.States, res.Thoughts, res.Entries = sz["states"], sz["thoughts"], sz["entries"]
	return res, nil
}

// queries returns n texts with their vectors registered in emb: new texts
// with a vector from next, or (with probability repeat) a text of the last
// 50.
func queries(rng *rand.Rand, n int, repeat float64, kind string, next func() []float32, emb *stubEmbedder) []string {
	out := make([]string, n)
	for i := range out {
		if i > 0 && rng.Float64() < repeat {
			out[i] = out[max(0, i-1-rng.IntN(min(i, 50)))]
			continue
		}
		out[i] = fmt.Sprintf("query %s %d: the agent looks around the room and considers what to do next.", kind, i)
		emb.add(out[i], next())
	}
	return out
}

func exactOf(st checkpoints.SAMemState) (*cluster.Exact, *cluster.Exact, error) {
	var out [2]*cluster.Exact
	for k, rows := range [][]checkpoints.ClusterRow{st.States, st.Thoughts} {
		ex, err := cluster.NewExact(len(rows[0].Embedding))
		if err != nil {
			return nil, nil, err
		}
		for _, r := range rows {
			if err := ex.Add(r.ID, r.Embedding); err != nil {
				return nil, nil, err
			}
		}
		out[k] = ex
	}
	return out[0], out[1], nil
}

func median(xs []time.Duration) time.Duration { return quantile(xs, 0.5) }

func quantile(xs []time.Duration, q float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// hiddenIndexes is where hideIndexes keeps a checkpoint's index files.
const hiddenIndexes = "hidden-indexes"

// hideIndexes moves the index files of the checkpoint in dir aside (hide)
// or back.
func hideIndexes(dir string, hide bool) error {
	aside := filepath.Join(dir, hiddenIndexes)
	if err := os.MkdirAll(aside, 0o755); err != nil {
		return err
	}
	for _, f := range []string{checkpoints.StatesIndexFile, checkpoints.ThoughtsIndexFile} {
		from, to := filepath.Join(dir, f), filepath.Join(aside, f)
		if !hide {
			from, to = to, from
		}
		if err := os.Rename(from, to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// load loads dir into m and checks that the indexes took the path the
// figure claims: read from their files (restored) or rebuilt.
func load(ctx context.Context, m *samem.Method, dir string, restored bool) error {
	if err := m.Load(ctx, dir); err != nil {
		return err
	}
	notes := m.LoadNotes()
	if restored && len(notes) > 0 {
		return fmt.Errorf("load with index files rebuilt an index: %s", strings.Join(notes, "; "))
	}
	if !restored && len(notes) != 2 {
		return fmt.Errorf("load without index files: notes %q, want both indexes rebuilt", notes)
	}
	return nil
}

// dirBytes returns the size of the checkpoint's files in dir (not below
// it), without and with only the index files.
func dirBytes(dir string) (files, index int64, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			return 0, 0, err
		}
		if checkpoints.IsDerived(e.Name()) {
			index += fi.Size()
		} else {
			files += fi.Size()
		}
	}
	return files, index, nil
}
