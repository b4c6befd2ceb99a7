package samem_test

import (
	"context"
	"flag"
	"testing"

	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/samem"
)

var seeds = flag.Int("seeds", 0, "TestSeedRobustness: train and evaluate with this many run seeds (a measurement; 0 skips it)")

// TestSeedRobustness measures how SAMem's offline result varies with the
// run seed: the paper's schedule, evaluated on valid_unseen. Training runs
// with one worker, so each seed's run is exactly reproducible and the
// verdict for a given -seeds never changes from one go test to the next
// (with several workers the order of memory updates, and so the result,
// depended on the scheduler). Run it with
// go test ./samem -run TestSeedRobustness -seeds 24 -v
func TestSeedRobustness(t *testing.T) {
	if *seeds <= 0 {
		t.Skip("a measurement: run with -seeds N")
	}
	ctx := context.Background()
	suite, train, test := suiteAndTasks(t)
	sum, low := 0.0, 1.0
	for seed := int64(1); seed <= int64(*seeds); seed++ {
		m := newOffline(t, samem.Config{})
		if _, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: train, Iterations: 9, Workers: 1, Seed: seed, Dir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: suite, Tasks: test, Workers: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		s := runner.Summarize(eps, nil).SuccessRate
		t.Logf("seed %d: valid_unseen success %.3f", seed, s)
		sum += s
		low = min(low, s)
	}
	t.Logf("%d seeds: mean %.3f, lowest %.3f", *seeds, sum/float64(*seeds), low)
	if low < 0.85 {
		t.Errorf("lowest success %.3f < 0.85", low)
	}
}
