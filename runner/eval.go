package runner

import (
	"context"
	"fmt"
	"sort"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// EvalConfig describes an evaluation of one method on held-out tasks, with
// frozen memory (seed 002 Sec. 3.3) or, with Online, memory that keeps
// learning (seed 002 App. B.1's Jericho protocol).
type EvalConfig struct {
	Method agent.Method
	Suite  envbridge.Suite
	Tasks  []envbridge.Task
	// Indices, when not nil, are the positions of Tasks in the whole list
	// of the evaluation (a shard plays part of it): each episode's
	// randomness and Episode.Index follow its task's position, so that a
	// task plays the same whichever part of the list it is played in.
	Indices  []int
	Workers  int
	Seed     int64
	Stop     <-chan struct{}
	Progress Progress
	// Online plays every episode in agent.Online mode: greedy as in Eval,
	// updating memory as in Train, and ends the pass as a training
	// iteration ends (agent.IterationEnder: SAMem's forgetting, ExpeL's
	// extraction, MemRL's batch update), so that the memory left is what
	// one more training iteration over these tasks would leave. With more
	// than one worker the order in which episodes update memory is the
	// order they finish in, which is not fixed; one worker plays and
	// learns in task order.
	Online bool
}

// OnlineIteration is the iteration number an online evaluation's pass
// passes to agent.IterationEnder (training's are 0 and up).
const OnlineIteration = -1

// Evaluate plays every task once in Eval mode (Online mode with
// cfg.Online) and returns the episodes in
// task order. Episodes that ended in an error are kept (errored, counted
// apart by Summarize); only a cancelled context or Stop ends it early, with the
// episodes played so far and ErrInterrupted.
//
// A method that is an agent.EvalTrialer with EvalTrials() > 1 (CLIN's G+A)
// plays trials in rounds: round k plays trial k of every task whose trial
// k-1 ended neither won nor errored. The episodes are then returned by task
// and trial (Episode.Trial); Final picks each task's result.
func Evaluate(ctx context.Context, cfg EvalConfig) ([]Episode, error) {
	prog := cfg.Progress
	if prog == nil {
		prog = nopProgress{}
	}
	trials := 1
	if t, ok := cfg.Method.(agent.EvalTrialer); ok {
		trials = max(1, t.EvalTrials())
	}
	if cfg.Indices != nil && len(cfg.Indices) != len(cfg.Tasks) {
		return nil, fmt.Errorf("evaluate: %d indices for %d tasks", len(cfg.Indices), len(cfg.Tasks))
	}
	mode := agent.Eval
	if cfg.Online {
		mode = agent.Online
	}
	jobs := make([]job, len(cfg.Tasks))
	for i, t := range cfg.Tasks {
		at := i
		if cfg.Indices != nil {
			at = cfg.Indices[i]
		}
		// The evaluation's randomness is independent of training's: a
		// different stream of the same seed (trial k: iteration -1-k).
		jobs[i] = job{index: at, start: agent.Start{Task: t, Mode: mode, Style: cfg.Suite.Style(), Rand: EpisodeRand(cfg.Seed, -1, at)}}
	}
	byIndex := make(map[int]job, len(jobs))
	for _, j := range jobs {
		byIndex[j.index] = j
	}
	var all []result
	pending := jobs
	interrupted := false
	for k := 0; k < trials && len(pending) > 0 && !interrupted; k++ {
		label := fmt.Sprintf("eval %s", cfg.Method.Name())
		if trials > 1 {
			label = fmt.Sprintf("eval %s trial %d of %d", cfg.Method.Name(), k+1, trials)
		}
		for i := range pending {
			pending[i].start.Trial = k
			pending[i].start.Rand = EpisodeRand(cfg.Seed, -1-k, pending[i].index)
		}
		prog.Begin(label, len(pending))
		results := playAll(ctx, cfg.Suite, cfg.Method, pending, max(1, cfg.Workers), nil, func(r result) { prog.Done(r.episode) }, cfg.Stop)
		interrupted = len(results) < len(pending)
		var next []job
		for i := range results {
			results[i].episode.Trial = k
			if o := results[i].episode.Outcome; !o.Won && o.Err == "" {
				next = append(next, byIndex[results[i].index])
			}
		}
		sort.Slice(next, func(i, j int) bool { return next[i].index < next[j].index })
		all = append(all, results...)
		pending = next
		if trials > 1 {
			rs := make([]Episode, len(results))
			for i, r := range results {
				rs[i] = r.episode
			}
			s := Summarize(rs, nil)
			prog.End(fmt.Sprintf("%s: %d of %d won, %d errored", label, s.Successes, s.Tasks, s.Errors))
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].index != all[j].index {
			return all[i].index < all[j].index
		}
		return all[i].episode.Trial < all[j].episode.Trial
	})
	eps := make([]Episode, len(all))
	tasks := map[int]bool{}
	for i, r := range all {
		eps[i] = r.episode
		tasks[r.index] = true
	}
	results := eps
	if trials > 1 {
		results = Final(eps)
	}
	s := Summarize(results, nil)
	prog.End(fmt.Sprintf("eval %s: success %.2f (%d/%d completed), avg steps %.1f, %d errored", cfg.Method.Name(), s.SuccessRate, s.Successes, s.Completed, s.AvgSteps, s.Errors))
	if len(tasks) < len(cfg.Tasks) || interrupted {
		return eps, fmt.Errorf("%w: evaluated %d of %d tasks", ErrInterrupted, len(tasks), len(cfg.Tasks))
	}
	if ie, ok := cfg.Method.(agent.IterationEnder); ok && cfg.Online {
		if err := ie.EndIteration(ctx, OnlineIteration); err != nil {
			return eps, fmt.Errorf("end of the online evaluation of %s: %w", cfg.Method.Name(), err)
		}
	}
	return eps, nil
}

// First returns each task's first trial (Trial 0), in order: what a
// method with several evaluation trials scores without adapting (seed 004
// Table 2's GEN-ENV / GEN-TASK start). Episodes of one trial each are
// returned as they are.
func First(eps []Episode) []Episode {
	var out []Episode
	for _, e := range eps {
		if e.Trial == 0 {
			out = append(out, e)
		}
	}
	return out
}

// Final returns each task's result over its trials, in the order the tasks
// first appear (seed 004 G+A, Table 2): the won trial when one was won (the
// runner stops retrying there); else the errored trial when one ended in an
// error (the task's G+A result is unknown: errored); else the trial with the
// best normalised score, the latest among ties. Episodes of one trial each
// are returned as they are.
func Final(eps []Episode) []Episode {
	idx := map[string]int{}
	var out []Episode
	for _, e := range eps {
		i, ok := idx[e.Task.ID]
		if !ok {
			idx[e.Task.ID] = len(out)
			out = append(out, e)
			continue
		}
		if better(e, out[i]) {
			out[i] = e
		}
	}
	return out
}

// better reports whether trial e replaces cur as its task's result.
func better(e, cur Episode) bool {
	switch {
	case cur.Outcome.Err != "" || cur.Outcome.Won && cur.Outcome.Err == "":
		return false
	case e.Outcome.Err != "" || e.Outcome.Won:
		return true
	}
	return normScore(e.Outcome) >= normScore(cur.Outcome)
}

func normScore(o agent.Outcome) float64 {
	if o.Lost && o.Score < 0 {
		return 0
	}
	if o.MaxScore > 0 {
		return o.Score / o.MaxScore
	}
	return o.Score
}
