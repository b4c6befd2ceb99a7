package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// TestStopStartsNothingNew: a stop closed by onDone as the k-th episode
// finishes lets no further episode start on that worker. Before the worker
// checked the stops itself, the job hand-out's select picked at random
// between a waiting job and the closed stop, so a stopped run went on
// starting episodes (TestEvalWarnsMidIteration). Repeated, since
// the old fault showed only in some schedules; with one worker the count is
// exact in every one.
func TestStopStartsNothingNew(t *testing.T) {
	tasks := make([]envbridge.Task, 8)
	jobs := make([]job, len(tasks))
	for i := range tasks {
		tasks[i] = envbridge.Task{ID: fmt.Sprintf("t%d", i), MaxSteps: 3}
		jobs[i] = job{index: i, start: agent.Start{Task: tasks[i], Mode: agent.Eval, Style: envbridge.StyleHousehold, Rand: EpisodeRand(1, 0, i)}}
	}
	for _, k := range []int{1, 2, 5} {
		for _, second := range []bool{false, true} {
			for rep := 0; rep < 200; rep++ {
				first, other := make(chan struct{}), make(chan struct{})
				stop := first
				if second {
					stop = other // the stop may be any of the channels given
				}
				n := 0
				res := playAll(context.Background(), scriptSuite{}, waitMethod{}, jobs, 1, nil, func(result) {
					if n++; n == k {
						close(stop)
					}
				}, nil, first, other)
				if len(res) != k {
					t.Fatalf("stop after %d (channel %v), repetition %d: %d episodes ran", k, second, rep, len(res))
				}
				for i, r := range res {
					if r.index != i {
						t.Fatalf("stop after %d: episode %d is job %d; one worker plays in order", k, i, r.index)
					}
				}
			}
		}
	}
	// No stop closed: every job runs, with several workers too.
	res := playAll(context.Background(), scriptSuite{}, waitMethod{}, jobs, 3, nil, func(result) {}, make(chan struct{}))
	if len(res) != len(jobs) {
		t.Errorf("no stop: %d of %d episodes ran", len(res), len(jobs))
	}
}
