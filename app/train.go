package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/samem/trainer/agent"
	"io"
	"os"
	"path/filepath"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/runner"
)

// TrainResult is what Train reports per method (printed with -json).
type TrainResult struct {
	Method      string                  `json:"method"`
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
		path := ""
		if save || acct.Run.Total.Requests > 0 {
			path = trainUsagePath(cfg)
		}
		if werr := acct.finish(io.Err, path); werr != nil && err == nil {
			err = werr
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
			Progress: prog,
			Resumed: func(dir string) {
				fmt.Fprintf(io.Err, "%s resumed from %s\n", name, dir)
				if lr, ok := m.(agent.LoadReporter); ok {
					for _, n := range lr.LoadNotes() {
						fmt.Fprintf(io.Err, "warning: %s\n", n)
					}
				}
			},
		})
		acct.Methods[name] = meter.Report()
		save = save || res.Checkpoint != "" && res.Checkpoint != res.ResumedFrom
		results = append(results, TrainResult{Method: name, History: res.History, Checkpoint: res.Checkpoint, ResumedFrom: res.ResumedFrom, Usage: acct.Methods[name]})
		// The configuration is recorded once this run has committed a
		// checkpoint: a run refused before (a damaged or incompatible
		// checkpoint, another schedule) leaves the run directory as it was.
		if res.Checkpoint != "" && !wroteConfig {
			wroteConfig = true
			if werr := writeConfig(cfg); werr != nil && err == nil {
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
func writeConfig(cfg Config) error {
	path := filepath.Join(cfg.Run, ConfigFile)
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
