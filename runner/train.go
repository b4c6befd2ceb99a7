package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// ErrInterrupted is returned by Train when it stopped early because Stop was
// closed or its context was cancelled; a checkpoint holding the progress made
// was saved first.
var ErrInterrupted = errors.New("training interrupted")

// ErrMismatch is returned by Train when a run directory holds a checkpoint of
// another schedule (other tasks, iterations, seed or method).
var ErrMismatch = errors.New("checkpoint is of another training schedule")

// Progress hears about a run as it goes. Implementations print progress bars
// or log lines; calls come from one goroutine at a time.
type Progress interface {
	// Begin announces a batch of n episodes (an iteration, an evaluation).
	Begin(label string, n int)
	// Done reports one finished episode.
	Done(ep Episode)
	// End closes the batch with a one-line summary.
	End(summary string)
}

// TrainConfig describes a training run of one method (seed 002 Algorithm 1).
type TrainConfig struct {
	Method     agent.Method
	Suite      envbridge.Suite
	Tasks      []envbridge.Task // training tasks, played in this order every iteration
	Iterations int              // default 9 (seed 002 Sec. 4.1.2)
	Workers    int              // parallel episodes; default 1
	Seed       int64
	// Dir is the method's directory in the run directory; checkpoints go to
	// Dir/checkpoints. Training resumes from the latest one there.
	Dir string
	// Meta fills the checkpoints' metadata (configuration JSON, embedder
	// model and dimension); a checkpoint of another embedder is refused.
	Meta checkpoints.Meta
	// Stop, when closed, lets running episodes finish, starts no new ones,
	// saves a checkpoint and returns ErrInterrupted.
	Stop     <-chan struct{}
	Progress Progress // may be nil
	// Resumed, when not nil, is called with the checkpoint directory once
	// training has resumed from it, before any episode runs.
	Resumed func(dir string)
	// Admit, when not nil, is asked before each episode starts, with the
	// number of episodes running: nil starts it; ErrWait (while others
	// run) waits for one of them to end and asks again; any other error
	// stops the run at this episode boundary as Stop does (running episodes
	// finish, a checkpoint is saved) and Train returns it, wrapped, naming
	// the checkpoint. A budget is an admission.
	Admit func(running int) error
	// Iterated, when not nil, is called once each iteration's checkpoint is
	// committed, with the history so far (the iteration last), for curves
	// written while training runs.
	Iterated func(history []IterationStats)
}

// IterationStats is one iteration of training, for learning curves
// (seed 002 Fig. 3) and memory-size curves (Fig. 6).
type IterationStats struct {
	Iteration   int            `json:"iteration"`
	Episodes    int            `json:"episodes"`
	Successes   int            `json:"successes"`
	SuccessRate float64        `json:"success_rate"`
	Steps       int            `json:"steps"`
	Errors      int            `json:"errors"`  // errored episodes (environment faults): not in SuccessRate
	Epsilon     float64        `json:"epsilon"` // of the iteration's first episode
	Size        map[string]int `json:"size,omitempty"`
	// Counters are the method's running counts at the end of the iteration
	// (agent.Counter; SAMem: forgetting checks and prunes, guided steps).
	Counters map[string]int `json:"counters,omitempty"`
	Seconds  float64        `json:"seconds"`
	// Tokens and CostUSD are the model usage of the iteration (its
	// episodes and the method's end-of-iteration work), as the meter in
	// the context counts it (llm.WithMeter): prompt, completion and cached
	// tokens, and the estimated cost.
	Tokens  int64   `json:"tokens,omitempty"`
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// usageNow is the tokens and cost the meter in ctx has counted so far.
func usageNow(ctx context.Context) (int64, float64) {
	t := llm.MeterFrom(ctx).Report().Total
	return t.PromptTokens + t.CompletionTokens + t.CachedTokens, t.CostUSD
}

// TrainResult is what Train did.
type TrainResult struct {
	History []IterationStats `json:"history"` // every completed iteration, resumed ones included
	// ResumedFrom is the checkpoint directory training resumed from, or "".
	ResumedFrom string `json:"resumed_from,omitempty"`
	// Checkpoint is the last checkpoint committed.
	Checkpoint string `json:"checkpoint"`
}

// progressFile is the runner's own state inside a checkpoint.
const progressFile = "runner.json"

// trainState is what the runner keeps in a checkpoint to resume exactly.
type trainState struct {
	Schedule  string           `json:"schedule"`  // fingerprint of method, tasks, iterations, seed
	Iteration int              `json:"iteration"` // the iteration in progress (== Iterations when done)
	Done      []int            `json:"done"`      // task indices finished in Iteration
	Partial   IterationStats   `json:"partial"`   // the stats of Iteration so far
	History   []IterationStats `json:"history"`
	Seq       int              `json:"seq"` // checkpoints committed so far
	Steps     int64            `json:"steps"`
}

// Schedule fingerprints what must not change across a resume.
func schedule(cfg TrainConfig) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%d|%d|", cfg.Method.Name(), cfg.Iterations, cfg.Seed)
	for _, t := range cfg.Tasks {
		fmt.Fprintf(h, "%s|", t.ID)
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// EpisodeRand is the random source of one episode: a function of the run
// seed, the iteration and the task's index only, so that a run is
// reproducible whatever the number of workers and the order episodes finish in.
func EpisodeRand(seed int64, iteration, task int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(iteration)<<32|uint64(uint32(task))))
}

// Train runs Algorithm 1 of seed 002 for any method: iterations over the
// training tasks, episodes on parallel workers, the method's end-of-iteration
// work (SAMem's forgetting), and an atomic checkpoint after every iteration.
// It resumes from the latest checkpoint in cfg.Dir.
//
// An episode whose environment fails (a crashed or hung process, a broken
// connection) is recorded with its error and training goes on on a fresh
// environment. An episode that fails in the method (a model call that
// failed after its retry budget) stops training: running episodes finish,
// a checkpoint of the progress is committed (the failed episode is replayed
// on resume) and the method's error is returned.
func Train(ctx context.Context, cfg TrainConfig) (TrainResult, error) {
	if cfg.Iterations <= 0 {
		cfg.Iterations = 9
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if len(cfg.Tasks) == 0 {
		return TrainResult{}, errors.New("train: no training tasks")
	}
	prog := cfg.Progress
	if prog == nil {
		prog = nopProgress{}
	}
	store, err := checkpoints.Open(cfg.Dir, 0)
	if err != nil {
		return TrainResult{}, fmt.Errorf("train: %w", err)
	}
	defer store.Close()
	st := trainState{Schedule: schedule(cfg)}
	var res TrainResult
	if dir, meta, err := store.Latest(ctx); err == nil {
		if err := resume(ctx, cfg, dir, meta, &st); err != nil {
			return res, err
		}
		res.ResumedFrom = dir
		// A finished method resumes into no iteration at all: its last
		// checkpoint is the one it resumed from.
		res.Checkpoint = dir
		if cfg.Resumed != nil {
			cfg.Resumed(dir)
		}
	} else if !errors.Is(err, checkpoints.ErrNoCheckpoint) {
		return res, fmt.Errorf("train: %w", err)
	}

	n := len(cfg.Tasks)
	total := cfg.Iterations * n
	stop := cfg.Stop
	for st.Iteration < cfg.Iterations {
		it := st.Iteration
		began := time.Now()
		tokens0, cost0 := usageNow(ctx)
		done := make(map[int]bool, len(st.Done))
		for _, i := range st.Done {
			done[i] = true
		}
		var jobs []job
		for i, t := range cfg.Tasks {
			if done[i] {
				continue
			}
			jobs = append(jobs, job{index: i, start: agent.Start{
				Task: t, Mode: agent.Train, Style: cfg.Suite.Style(),
				Rand:    EpisodeRand(cfg.Seed, it, i),
				Episode: it*n + i, Episodes: total, Iteration: it, Trial: it,
			}})
		}
		if len(st.Done) == 0 {
			st.Partial = IterationStats{Iteration: it, Epsilon: epsilonOf(cfg.Method, jobs)}
		}
		prog.Begin(fmt.Sprintf("%s iteration %d/%d", cfg.Method.Name(), it+1, cfg.Iterations), len(jobs))
		// A method error (a model call that failed after its retry budget)
		// halts the iteration: no new episode starts, and the run saves what
		// it learned and reports the error instead of playing on with every
		// episode failing. Environment errors cost one episode only.
		halt := make(chan struct{})
		var fatal error
		// The admission's refusal (under playAll's lock; read after it).
		var refused error
		var admit func(int) error
		if cfg.Admit != nil {
			admit = func(running int) error {
				err := cfg.Admit(running)
				if err != nil && (!errors.Is(err, ErrWait) || running == 0) && refused == nil {
					refused = err
				}
				return err
			}
		}
		results := playAll(ctx, cfg.Suite, cfg.Method, jobs, cfg.Workers, admit, func(r result) {
			prog.Done(r.episode)
			if r.err != nil && !isEnvError(r.err) && ctx.Err() == nil && fatal == nil {
				fatal = fmt.Errorf("episode %d (%s): %w", r.index, r.episode.Task.ID, r.err)
				close(halt)
			}
		}, stop, halt)
		// An episode cut short (by a method failure or a cancellation) may
		// have written part of its effects into the method's memory; it is
		// replayed on resume, so a checkpoint now would count those effects
		// twice. Such an iteration is not checkpointed:
		// the last checkpoint holds only whole episodes, and resume replays
		// what came after it (free from the response cache).
		cut := 0
		for _, r := range results {
			if r.err != nil && (ctx.Err() != nil || !isEnvError(r.err)) {
				cut++
			}
		}
		if cut > 0 {
			prog.End(fmt.Sprintf("%s iteration %d/%d stopped: %d episodes cut short, nothing of this run since the last checkpoint is kept", cfg.Method.Name(), it+1, cfg.Iterations, cut))
			res.History = st.History
			last := res.Checkpoint
			where := "no checkpoint yet: the same command starts over"
			if last != "" {
				where = fmt.Sprintf("checkpoint %s holds %d of %d episodes of iteration %d: run the same command again to resume", last, len(st.Done), n, it+1)
			}
			if fatal != nil {
				return res, fmt.Errorf("train: %w; %s", fatal, where)
			}
			return res, fmt.Errorf("%w: %s", ErrInterrupted, where)
		}
		if refused != nil && len(results) == 0 {
			// Stopped before this pass played anything: the last
			// checkpoint already holds where the run stands.
			prog.End(fmt.Sprintf("%s iteration %d/%d: not started, %v", cfg.Method.Name(), it+1, cfg.Iterations, refused))
			res.History = st.History
			where := "no checkpoint yet"
			if res.Checkpoint != "" {
				where = fmt.Sprintf("checkpoint %s holds %d of %d episodes of iteration %d", res.Checkpoint, len(st.Done), n, it+1)
			}
			return res, fmt.Errorf("%w; %s", refused, where)
		}
		for _, r := range results {
			st.Done = append(st.Done, r.index)
			p := &st.Partial
			p.Episodes++
			p.Steps += r.episode.Outcome.Steps
			st.Steps += int64(r.episode.Outcome.Steps)
			if r.episode.Outcome.Won && r.err == nil {
				p.Successes++
			}
			if r.err != nil {
				p.Errors++
			}
		}
		slices.Sort(st.Done)
		p := &st.Partial
		p.Seconds += time.Since(began).Seconds()
		if done := p.Episodes - p.Errors; done > 0 {
			// Errored episodes are neither successes nor failures.
			p.SuccessRate = float64(p.Successes) / float64(done)
		}
		interrupted := len(st.Done) < n
		if !interrupted {
			if ie, ok := cfg.Method.(agent.IterationEnder); ok {
				if err := ie.EndIteration(ctx, it); err != nil {
					// Save what was learned, then report.
					_, _ = commit(context.WithoutCancel(ctx), store, cfg, &st)
					return res, fmt.Errorf("train: end of iteration %d: %w", it, err)
				}
			}
			if sz, ok := cfg.Method.(agent.Sizer); ok {
				p.Size = sz.Size()
			}
			tokens, cost := usageNow(ctx)
			p.Tokens += tokens - tokens0
			p.CostUSD += cost - cost0
			if c, ok := cfg.Method.(agent.Counter); ok {
				p.Counters = c.Counters()
			}
			st.History = append(st.History, *p)
			line := fmt.Sprintf("%s iteration %d/%d: success %.2f (%d/%d), %d steps, %d errored, memory %s",
				cfg.Method.Name(), it+1, cfg.Iterations, p.SuccessRate, p.Successes, p.Episodes-p.Errors, p.Steps, p.Errors, FormatSize(p.Size))
			if n, ok := p.Counters["checks"]; ok {
				line += fmt.Sprintf(", forgetting %d checks %d prunes", n, p.Counters["prunes"])
			}
			prog.End(fmt.Sprintf("%s, %.1fs", line, p.Seconds))
			st.Iteration++
			st.Done = nil
			st.Partial = IterationStats{}
		} else {
			tokens, cost := usageNow(ctx)
			p.Tokens += tokens - tokens0
			p.CostUSD += cost - cost0
			how := "interrupted"
			if refused != nil {
				how = "stopped before its cap"
			}
			prog.End(fmt.Sprintf("%s iteration %d/%d %s after %d of %d episodes", cfg.Method.Name(), it+1, cfg.Iterations, how, len(st.Done), n))
		}
		dir, err := commit(context.WithoutCancel(ctx), store, cfg, &st)
		if err != nil {
			return res, fmt.Errorf("train: %w", err)
		}
		res.Checkpoint = dir
		if !interrupted && cfg.Iterated != nil {
			cfg.Iterated(st.History)
		}
		if fatal != nil {
			res.History = st.History
			return res, fmt.Errorf("train: %w; checkpoint %s holds %d of %d episodes of iteration %d: run the same command again to resume", fatal, dir, len(st.Done), n, it+1)
		}
		if interrupted {
			res.History = st.History
			if refused != nil {
				return res, fmt.Errorf("%w; checkpoint %s holds %d of %d episodes of iteration %d", refused, dir, len(st.Done), n, it+1)
			}
			return res, fmt.Errorf("%w: checkpoint %s holds %d of %d episodes of iteration %d; run the same command again to resume", ErrInterrupted, dir, len(st.Done), n, it+1)
		}
	}
	res.History = st.History
	return res, nil
}

func epsilonOf(m agent.Method, jobs []job) float64 {
	type epser interface{ Epsilon(agent.Start) float64 }
	if e, ok := m.(epser); ok && len(jobs) > 0 {
		return e.Epsilon(jobs[0].start)
	}
	return 0
}

// commit saves the method and the runner's state as the next checkpoint.
func commit(ctx context.Context, store *checkpoints.Store, cfg TrainConfig, st *trainState) (string, error) {
	pending, err := store.Begin(st.Seq)
	if err != nil {
		return "", err
	}
	defer pending.Abort()
	if s, ok := cfg.Method.(agent.Saver); ok {
		dir, err := pending.MethodDir(cfg.Method.Name())
		if err != nil {
			return "", err
		}
		if err := s.Save(ctx, dir); err != nil {
			return "", err
		}
	}
	st.Seq++
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(pending.Dir(), progressFile), b, 0o644); err != nil {
		return "", err
	}
	meta := cfg.Meta
	meta.Method = cfg.Method.Name()
	meta.Seed = cfg.Seed
	meta.GlobalStep = st.Steps
	meta.Epsilon = st.Partial.Epsilon
	if len(st.History) > 0 && len(st.Done) == 0 {
		meta.Epsilon = st.History[len(st.History)-1].Epsilon
	}
	return pending.Commit(ctx, meta)
}

// resume loads the method and the runner's state from a checkpoint.
func resume(ctx context.Context, cfg TrainConfig, dir string, meta checkpoints.Meta, st *trainState) error {
	if meta.Method != cfg.Method.Name() {
		return fmt.Errorf("train: resume from %s: %w: it is of method %q, not %q", dir, ErrMismatch, meta.Method, cfg.Method.Name())
	}
	if err := checkpoints.CheckCompatible(meta, cfg.Meta.EmbedderModel, int(cfg.Meta.EmbedDim)); err != nil {
		return fmt.Errorf("train: resume from %s: %w", dir, err)
	}
	path := filepath.Join(dir, progressFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	var saved trainState
	if err := json.Unmarshal(b, &saved); err != nil {
		return fmt.Errorf("train: resume: %s: %w", path, err)
	}
	if saved.Schedule != st.Schedule {
		return fmt.Errorf("train: resume from %s: %w (the tasks, iterations, seed or method differ); use a new -run directory or the original flags", dir, ErrMismatch)
	}
	if s, ok := cfg.Method.(agent.Saver); ok {
		if err := s.Load(ctx, filepath.Join(dir, cfg.Method.Name())); err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
	}
	*st = saved
	return nil
}

type nopProgress struct{}

func (nopProgress) Begin(string, int) {}
func (nopProgress) Done(Episode)      {}
func (nopProgress) End(string)        {}

// CheckpointProgress reads the runner's state in a training checkpoint
// directory: the iterations completed, and the episodes done in the
// iteration in progress (0 when the checkpoint was committed at the end of
// an iteration). eval uses it to say that a memory is mid-iteration.
func CheckpointProgress(dir string) (iterations, episodesInProgress int, err error) {
	path := filepath.Join(dir, progressFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var st trainState
	if err := json.Unmarshal(b, &st); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	return st.Iteration, len(st.Done), nil
}
