package runner

import (
	"context"
	"errors"
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
//
// admit, when not nil, is asked (under a lock, with the number of jobs
// running) before each job starts: nil starts it; ErrWait, while other jobs
// run, waits until one of them ends and asks again; any other answer (or
// ErrWait with nothing running) starts the job not, and no job after it:
// it is the caller's to close one of stops then (Train's admission does).
func playAll(ctx context.Context, suite envbridge.Suite, m agent.Method, jobs []job, workers int, admit func(running int) error, onDone func(result), stops ...<-chan struct{}) []result {
	workers = max(1, min(workers, len(jobs)))
	gate := newGate(admit)
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
				if stopped() || !gate.enter(stopped) {
					continue // drain: the hand-out stops at its next job
				}
				if env == nil {
					var err error
					if env, err = suite.Open(ctx); err != nil {
						env = nil
						r := result{index: j.index, episode: Episode{Task: j.start.Task, Mode: j.start.Mode.String(), Iteration: j.start.Iteration, Index: j.index}, err: envError{fmt.Errorf("open environment: %w", err)}}
						r.episode.Outcome.Err = r.err.Error()
						record(r)
						gate.leave()
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
				gate.leave()
			}
		}()
	}
	wg.Wait()
	return out
}

// ErrWait is what an admission answers when a job may start only after one
// of those running has ended (its cost is then known).
var ErrWait = errors.New("wait for a running episode to end")

// gate asks an admission before each job and counts the jobs running.
type gate struct {
	admit   func(running int) error
	mu      sync.Mutex
	ended   *sync.Cond
	running int
	closed  bool // the admission refused: no job starts any more
}

func newGate(admit func(int) error) *gate {
	g := &gate{admit: admit}
	g.ended = sync.NewCond(&g.mu)
	return g
}

// enter reports whether a job may start now, waiting while the admission
// says ErrWait; stopped is checked again after every wait.
func (g *gate) enter(stopped func() bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if g.closed || stopped() {
			return false
		}
		if g.admit == nil {
			g.running++
			return true
		}
		err := g.admit(g.running)
		switch {
		case err == nil:
			g.running++
			return true
		case errors.Is(err, ErrWait) && g.running > 0:
			g.ended.Wait()
		default:
			g.closed = true
			g.ended.Broadcast()
			return false
		}
	}
}

// leave ends a job that enter started.
func (g *gate) leave() {
	g.mu.Lock()
	g.running--
	g.ended.Broadcast()
	g.mu.Unlock()
}
