package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/samem/trainer/envbridge"
)

var errCap = errors.New("cap reached")

// TestAdmitStopsAtEpisodeBoundary: an admission that refuses the fifth
// episode of a run stops it there: the four admitted episodes finish, a
// checkpoint holds them, Train returns the refusal naming it; with several
// workers, ErrWait holds episodes back until one ends and never lets more
// run at once than the admission allows; and the same run resumed without
// the cap plays only the remaining episodes.
func TestAdmitStopsAtEpisodeBoundary(t *testing.T) {
	tasks := make([]envbridge.Task, 6)
	for i := range tasks {
		tasks[i] = envbridge.Task{ID: fmt.Sprintf("t%d", i), MaxSteps: 3}
	}
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			dir := t.TempDir()
			var started, most atomic.Int64
			admit := func(running int) error {
				if running >= 2 {
					return ErrWait // at most two at once
				}
				if started.Load() == 4 {
					if running > 0 {
						return ErrWait // decide once the running ones end
					}
					return errCap
				}
				started.Add(1)
				if int64(running+1) > most.Load() {
					most.Store(int64(running + 1))
				}
				return nil
			}
			cfg := TrainConfig{Method: waitMethod{}, Suite: scriptSuite{}, Tasks: tasks, Iterations: 2, Workers: workers, Seed: 1, Dir: dir, Admit: admit}
			res, err := Train(context.Background(), cfg)
			if !errors.Is(err, errCap) || errors.Is(err, ErrInterrupted) {
				t.Fatalf("Train: %v, want the refusal (and not an interruption)", err)
			}
			if res.Checkpoint == "" || !strings.Contains(err.Error(), res.Checkpoint) || !strings.Contains(err.Error(), "4 of 6 episodes of iteration 1") {
				t.Errorf("error %q does not name checkpoint %q holding 4 of 6 episodes", err, res.Checkpoint)
			}
			if most.Load() > 2 {
				t.Errorf("%d episodes ran at once, the admission allowed 2", most.Load())
			}
			cfg.Admit = nil
			res, err = Train(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.History) != 2 || res.History[0].Episodes != 6 || res.History[1].Episodes != 6 {
				t.Errorf("history after resume: %+v, want 2 iterations of 6 episodes", res.History)
			}
		})
	}
}

// TestAdmitRefusesBeforeAnything: a refusal of the first episode of a pass
// commits nothing new: the checkpoint named is the one there was.
func TestAdmitRefusesBeforeAnything(t *testing.T) {
	tasks := []envbridge.Task{{ID: "a", MaxSteps: 2}, {ID: "b", MaxSteps: 2}}
	dir := t.TempDir()
	cfg := TrainConfig{Method: waitMethod{}, Suite: scriptSuite{}, Tasks: tasks, Iterations: 1, Workers: 1, Seed: 1, Dir: dir,
		Admit: func(int) error { return errCap }}
	res, err := Train(context.Background(), cfg)
	if !errors.Is(err, errCap) || res.Checkpoint != "" || !strings.Contains(err.Error(), "no checkpoint yet") {
		t.Fatalf("Train refused at once: %v, checkpoint %q; want the refusal and no checkpoint", err, res.Checkpoint)
	}
}
