package runner

import (
	"context"
	"fmt"
	"sort"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// EvalConfig describes an evaluation of one method on held-out tasks with
// frozen memory (seed 002 Sec. 3.3).
type EvalConfig struct {
	Method   agent.Method
	Suite    envbridge.Suite
	Tasks    []envbridge.Task
	Workers  int
	Seed     int64
	Stop     <-chan struct{}
	Progress Progress
}

// Evaluate plays every task once in Eval mode and returns the episodes in
// task order. Episodes that ended in an error are kept (errored, counted
// apart by Summarize); only a cancelled context or Stop ends it early, with the
// episodes played so far and ErrInterrupted.
func Evaluate(ctx context.Context, cfg EvalConfig) ([]Episode, error) {
	prog := cfg.Progress
	if prog == nil {
		prog = nopProgress{}
	}
	jobs := make([]job, len(cfg.Tasks))
	for i, t := range cfg.Tasks {
		// The evaluation's randomness is independent of training's: a
		// different stream of the same seed.
		jobs[i] = job{index: i, start: agent.Start{Task: t, Mode: agent.Eval, Style: cfg.Suite.Style(), Rand: EpisodeRand(cfg.Seed, -1, i)}}
	}
	prog.Begin(fmt.Sprintf("eval %s", cfg.Method.Name()), len(jobs))
	results := playAll(ctx, cfg.Suite, cfg.Method, jobs, max(1, cfg.Workers), cfg.Stop, func(r result) { prog.Done(r.episode) })
	sort.Slice(results, func(i, j int) bool { return results[i].index < results[j].index })
	eps := make([]Episode, len(results))
	for i, r := range results {
		eps[i] = r.episode
	}
	s := Summarize(eps, nil)
	prog.End(fmt.Sprintf("eval %s: success %.2f (%d/%d completed), avg steps %.1f, %d errored", cfg.Method.Name(), s.SuccessRate, s.Successes, s.Completed, s.AvgSteps, s.Errors))
	if len(eps) < len(cfg.Tasks) {
		return eps, fmt.Errorf("%w: evaluated %d of %d tasks", ErrInterrupted, len(eps), len(cfg.Tasks))
	}
	return eps, nil
}
