package runner

import (
	"context"
	"fmt"
	"sync"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// job is one episode to play.
type job struct {
	index int // position in the batch
	start agent.Start
}

// result is a played job.
type result struct {
	index   int
	episode Episode
	err     error
}

// playAll plays jobs on workers goroutines, each with its own environment
// opened from suite. A worker whose environment fails (an error from Reset or
// Step: a dead interpreter, a broken connection) closes it and opens a fresh
// one for its next job, so a crash costs one episode. Jobs are taken in
// order; with one worker they run in order. onDone is called, from one
// goroutine at a time, for each finished job. It returns the results of the
// jobs that ran, in finishing order.
//
// Once one of stops (nil ones are ignored) is closed no new job starts: a
// worker checks them before it starts each job, so a stop closed by onDone
// (a progress callback that interrupts, a method failure that halts) is seen
// by the next job of that worker for certain. Waiting for the channel alone
// would not do: a select with both a job to hand out and a closed stop ready
// picks either at random, so a stopped run could go on starting episodes
// (TestEvalWarnsMidIteration saw a whole iteration finish after its stop,
// once in 20 runs).
func playAll(ctx context.Context, suite envbridge.Suite, m agent.Method, jobs []job, workers int, onDone func(result), stops ...<-chan struct{}) []result {
	workers = max(1, min(workers, len(jobs)))
	stopped := func() bool {
		for _, c := range stops {
			select {
			case <-c: // a nil channel is never ready
				return true
			default:
			}
		}
		return false
	}
	// The hand-out stops at a stop it sees; a job already waiting to be
	// handed out when the stop closes is skipped by the worker that takes it.
	next := make(chan job)
	go func() {
		defer close(next)
		for _, j := range jobs {
			if stopped() {
				return
			}
			select {
			case next <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	var (
		mu  sync.Mutex
		out []result
		wg  sync.WaitGroup
	)
	record := func(r result) {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, r)
		onDone(r)
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var env envbridge.Env
			defer func() {
				if env != nil {
					env.Close()
				}
			}()
			for j := range next {
				if stopped() {
					continue // drain: the hand-out stops at its next job
				}
				if env == nil {
					var err error
					if env, err = suite.Open(ctx); err != nil {
						env = nil
						r := result{index: j.index, episode: Episode{Task: j.start.Task, Mode: j.start.Mode.String(), Iteration: j.start.Iteration, Index: j.index}, err: envError{fmt.Errorf("open environment: %w", err)}}
						r.episode.Outcome.Err = r.err.Error()
						record(r)
						continue
					}
				}
				// The episode's model calls go to one server of each role
				// (its prefix cache), consecutive jobs to different ones.
				ectx, _ := llm.WithEpisode(ctx, uint64(j.index))
				ep, err := Run(ectx, env, m, j.start)
				ep.Index = j.index
				if err != nil {
					// The error may have left the environment unusable (a
					// dead interpreter, a broken connection); replacing a
					// healthy one costs little.
					env.Close()
					env = nil
				}
				record(result{index: j.index, episode: ep, err: err})
			}
		}()
	}
	wg.Wait()
	return out
}
