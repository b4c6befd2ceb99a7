package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/samem/trainer/agent"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/runner"
)

// TrainResult is what Train reports per method (printed with -json).
type TrainResult struct {
	Method      string                  `json:"method"`
	Seed        int64                   `json:"seed"`
	History     []runner.IterationStats `json:"history"`
	Checkpoint  string                  `json:"checkpoint"`
	ResumedFrom string                  `json:"resumed_from,omitempty"`
	Usage       llm.Report              `json:"usage"`
}

// Streams are where a command writes: results to Out, progress and
// messages to Err.
type Streams struct {
	Out, Err io.Writer
	// TTY says whether Err is a terminal (progress bars) .
	TTY bool
	// Stop, when closed, asks for a graceful stop: running episodes finish,
	// a checkpoint is saved.
	Stop <-chan struct{}
}

// Train trains every method of cfg (baselines are skipped: they learn
// nothing) into cfg.Run, each under its own name, resuming where a run
// stopped.
func Train(ctx context.Context, cfg Config, io Streams) (results []TrainResult, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Resolved()
	// One writer per run directory, from before anything costs or writes.
	// The shards of a run over seeds (-seeds with -shard) train the
	// parent's seeds side by side, each seed's sub-run under its own lock.
	if len(cfg.Seeds) == 0 || !cfg.Shard.Active() {
		unlock, err := lockDir(filepath.Join(cfg.Run, TrainLockFile), "run directory "+cfg.Run, io.Err)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	// A run directory's config.json describes its memories: training them
	// further with settings that change what they learn is refused before
	// anything is written.
	prev, err := LoadConfig(cfg.Run)
	switch {
	case err == nil:
		if err := CheckResume(cfg.Run, prev, cfg, TrainedMethods(cfg.Run)); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if len(cfg.Seeds) > 0 {
		return trainSeeds(ctx, cfg, io)
	}
	suite, err := NewSuite(ctx, cfg.Env, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	// Methods that cannot run on the environment are refused (or, with
	// -method all, left out) before anything is written.
	if err := fitMethods(&cfg, suite, io.Err); err != nil {
		return nil, err
	}
	if err := IdentifySuite(ctx, suite, cfg.Run); err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	tasks, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		return nil, fmt.Errorf("environment %s: %w", suite.Name(), err)
	}
	tasks = TrainingTasks(suite, tasks, cfg.PerType, cfg.Seed, cfg.TaskOrder)
	if cfg.Tasks > 0 && cfg.Tasks < len(tasks) {
		tasks = tasks[:cfg.Tasks] // a short run (tests of real models)
	}
	backend, err := NewBackend(ctx, cfg, io.Err)
	if err != nil {
		return nil, err
	}
	defer backend.Close()
	if err := os.MkdirAll(cfg.Run, 0o755); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	fmt.Fprintf(io.Err, "training %v on %s: %d tasks x %d iterations, %d workers, %s, run directory %s\n",
		cfg.Methods, suite.Name(), len(tasks), cfg.Iterations, cfg.Workers, cfg.LLM.Describe(), cfg.Run)
	// What earlier train commands spent here counts against the caps.
	before, err := spentBefore(cfg)
	if err != nil {
		return nil, err
	}
	capped := cfg.Budget > 0 || cfg.MaxRequests > 0
	if capped {
		fmt.Fprintln(io.Err, budgetNote(cfg, before))
	}
	var episodes atomic.Int64 // ended in this command, every method
	// The usage account is printed and saved at the end of every run that
	// started a method, whether it succeeded or not.
	acct := newAccount("train", cfg)
	// It is saved once the run has changed the run directory (a committed
	// checkpoint) or sent a request: a run refused before that leaves the
	// directory as it was.
	started, save := false, false
	defer func() {
		if !started {
			return
		}
		acct.Run = backend.Meter.Report()
		spent := before.add(Spent{Requests: acct.Run.Total.Requests, CostUSD: acct.Run.Total.CostUSD, Episodes: episodes.Load()})
		acct.Spent = &spent
		path := ""
		if save || acct.Run.Total.Requests > 0 {
			path = trainUsagePath(cfg)
		}
		if werr := acct.finish(io.Err, path); werr != nil && err == nil {
			err = werr
		}
		if save {
			// What made the memories: the code, the environment, the models
			// as the servers named them, the prompts, the settings.
			warns, werr := recordTraining(cfg.Run, NewProvenance(ctx, "train", cfg, suite, backend.Embedder, acct.Run.Served))
			for _, w := range warns {
				fmt.Fprintf(io.Err, "warning: this training of %s differs from an earlier one: %s\n", cfg.Run, w)
			}
			if werr != nil && err == nil {
				err = werr
			}
		}
	}()
	wroteConfig := false
	for _, name := range cfg.Methods {
		if IsBaseline(name) {
			fmt.Fprintf(io.Err, "%s learns nothing: nothing to train\n", name)
			continue
		}
		meter := llm.NewMeter(mustPrices(cfg))
		m, err := NewMethod(name, cfg, backend.ForMethod(meter))
		if err != nil {
			return results, fmt.Errorf("method %s: %w", name, err)
		}
		started = true
		prog := NewProgress(io.Err, io.TTY)
		prog.Meter = meter
		prog.Every = cfg.ProgressEvery
		var gate *spendGate
		var admit func(int) error
		if capped {
			gate = &spendGate{maxUSD: cfg.Budget, maxReq: cfg.MaxRequests, before: before, run: backend.Meter, method: meter}
			admit = gate.admit
		}
		var progress runner.Progress = prog
		var rec *recorder
		if recordsTraining(cfg.RecordTrain, len(tasks)*cfg.Iterations) {
			if rec, err = newRecorder(prog, filepath.Join(cfg.Run, name), name, cfg.Seed); err != nil {
				return results, err
			}
			progress = rec
		}
		res, err := runner.Train(llm.WithMeter(ctx, meter), runner.TrainConfig{
			Method: m, Suite: suite, Tasks: tasks,
			Iterations: cfg.Iterations, Workers: cfg.Workers, Seed: cfg.Seed,
			Dir: filepath.Join(cfg.Run, name),
			Meta: checkpoints.Meta{
				ConfigJSON:    cfg.Resolved().JSON(),
				EmbedderModel: backend.Embedder.Model(),
				EmbedDim:      int32(backend.Embedder.Dim()),
			},
			Stop:     io.Stop,
			Progress: countingProgress{Progress: progress, n: &episodes, gate: gate},
			Admit:    admit,
			Iterated: func(h []runner.IterationStats) {
				for _, run := range []string{cfg.Run, cfg.metricsAlso} {
					if run == "" {
						continue
					}
					if err := appendMetrics(run, name, cfg.Seed, h); err != nil {
						fmt.Fprintf(io.Err, "warning: %v\n", err)
					}
				}
			},
			Resumed: func(dir string) {
				fmt.Fprintf(io.Err, "%s resumed from %s\n", name, dir)
				if lr, ok := m.(agent.LoadReporter); ok {
					for _, n := range lr.LoadNotes() {
						fmt.Fprintf(io.Err, "warning: %s\n", n)
					}
				}
			},
		})
		if rec != nil {
			if rerr := rec.Close(); rerr != nil {
				fmt.Fprintf(io.Err, "warning: %v\n", rerr)
			}
		}
		acct.Methods[name] = meter.Report()
		save = save || res.Checkpoint != "" && res.Checkpoint != res.ResumedFrom
		results = append(results, TrainResult{Method: name, Seed: cfg.Seed, History: res.History, Checkpoint: res.Checkpoint, ResumedFrom: res.ResumedFrom, Usage: acct.Methods[name]})
		// The configuration is recorded once this run has committed a
		// checkpoint of its own: a run refused before (a damaged or
		// incompatible checkpoint, another schedule), or one that resumed a
		// finished run and trained nothing, leaves the run directory as it was.
		if res.Checkpoint != "" && res.Checkpoint != res.ResumedFrom && !wroteConfig {
			wroteConfig = true
			if werr := writeConfig(cfg, prev.Methods); werr != nil && err == nil {
				err = werr
			}
		}
		if err != nil {
			return results, fmt.Errorf("train %s: %w", name, err)
		}
		fmt.Fprintf(io.Err, "%s: checkpoint %s\n", name, res.Checkpoint)
	}
	return results, nil
}

// writeConfig records the resolved configuration in the run directory,
// atomically. Train calls it only once a checkpoint of this configuration
// is committed, so a configuration the runner refuses (another schedule,
// another embedder) never replaces the one the checkpoints were made with.
// The methods recorded are those of earlier runs into the directory
// (earlier) and this run's, so that a method added to a run keeps the
// others on record.
func writeConfig(cfg Config, earlier []string) error {
	path := filepath.Join(cfg.Run, ConfigFile)
	methods := slices.Clone(earlier)
	for _, m := range cfg.Methods {
		if !slices.Contains(methods, m) {
			methods = append(methods, m)
		}
	}
	cfg.Methods = methods
	tmp, err := os.CreateTemp(cfg.Run, ".config-*.json")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	b, _ := json.MarshalIndent(cfg.Resolved(), "", "  ")
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// IsInterrupted reports whether err is a graceful stop (a checkpoint was saved).
func IsInterrupted(err error) bool { return errors.Is(err, runner.ErrInterrupted) }

// ResumeError refuses to train a run further with settings that change
// what its memories learn: its config.json would no longer describe them.
// It wraps ErrConfig (exit code 2).
type ResumeError struct {
	Run         string
	Differences []Difference // Old: the run's value, New: this command's
}

func (e *ResumeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: -run %s was trained with other settings; training it further with these would leave memories its %s does not describe:\n", ErrConfig, e.Run, ConfigFile)
	var orig []string
	for _, d := range e.Differences {
		fmt.Fprintf(&b, "  -%s: %s in the run, %s now\n", d.Flag, quoteValue(d.Old), quoteValue(d.New))
		orig = append(orig, flagArg(d.Setting, d.Old))
	}
	fmt.Fprintf(&b, "Train with these settings into a new run directory (another -run), or resume %s with its own: %s", e.Run, strings.Join(orig, " "))
	return b.String()
}

// Unwrap makes errors.Is(err, ErrConfig) true.
func (e *ResumeError) Unwrap() error { return ErrConfig }

// CheckResume compares the configuration a run was recorded with (prev,
// its config.json) with the one a train command brings (cfg). Every
// setting that changes what is learned (Effect ChangesResult) and concerns
// a method trained in the run must be the same; settings that only change
// how the run executes may differ. With no method trained, the record
// describes no memory and anything goes. The differences are returned as a
// *ResumeError, each named by its flag with both values.
func CheckResume(run string, prev, cfg Config, trained []string) error {
	if len(trained) == 0 {
		return nil
	}
	diffs := differences(prev, cfg, func(s Setting) bool {
		return s.Cmds&CmdTrain != 0 && s.Effect == ChangesResult && s.concerns(trained)
	})
	if len(diffs) == 0 {
		return nil
	}
	return &ResumeError{Run: run, Differences: diffs}
}

// quoteValue shows an empty value or one with spaces in quotes.
func quoteValue(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\"'") {
		return strconv.Quote(v)
	}
	return v
}

// flagArg is the command-line argument that sets s to v.
func flagArg(s Setting, v string) string {
	if _, ok := s.Field(&Config{}).(*bool); ok {
		return "-" + s.Flag + "=" + v
	}
	return "-" + s.Flag + " " + quoteValue(v)
}
