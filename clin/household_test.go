package clin

import (
	"context"
	"flag"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/runner"
)

var (
	householdFull  = flag.Bool("household", false, "measure offline CLIN on the household world's valid_unseen split (slow)")
	householdIters = flag.Int("household.iters", 4, "training iterations for -household")
)

// measureHousehold trains offline CLIN on perType training tasks of each type
// for iters iterations and evaluates it, and CLIN-BASE (no memory), on the
// first evalN tasks of valid_unseen (all when 0).
func measureHousehold(t *testing.T, perType, iters, evalN int) (curve []float64, trained, base runner.Summary) {
	t.Helper()
	ctx := context.Background()
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	train := runner.PerType(all, perType)
	unseen, err := suite.Tasks(envbridge.SplitValidUnseen)
	if err != nil {
		t.Fatal(err)
	}
	if evalN > 0 && evalN < len(unseen) {
		unseen = unseen[:evalN]
	}
	m := newOffline(t)
	res, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: train, Iterations: iters, Workers: 1, Seed: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.History {
		curve = append(curve, h.SuccessRate)
	}
	eval := func(m *Method) runner.Summary {
		eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: suite, Tasks: unseen, Workers: 2, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		types, groups := runner.ByType(eps)
		for _, typ := range types {
			s := runner.Summarize(groups[typ], nil)
			t.Logf("  %-32s %3d tasks, success %.2f", typ, s.Tasks, s.SuccessRate)
		}
		return runner.Summarize(eps, household.PaperOracleSteps())
	}
	return curve, eval(m), eval(newOffline(t))
}

// TestHouseholdSmall: on the real household world, training on one task per
// type for three iterations raises success over the iterations and the
// trained memory beats CLIN-BASE on held-out tasks.
func TestHouseholdSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("household run")
	}
	curve, trained, base := measureHousehold(t, 2, 3, 24)
	t.Logf("train success by iteration %.2f; valid_unseen[:24] success %.2f (CLIN-BASE %.2f)", curve, trained.SuccessRate, base.SuccessRate)
	if curve[len(curve)-1] <= curve[0] {
		t.Errorf("training success did not rise: %.2f", curve)
	}
	if trained.SuccessRate <= base.SuccessRate {
		t.Errorf("valid_unseen success %.2f with memory, %.2f without: want higher with", trained.SuccessRate, base.SuccessRate)
	}
}

// TestHouseholdValidUnseen is the measurement of CLIN on the household
// world's valid_unseen split: run with
//
//	go test ./clin -run TestHouseholdValidUnseen -household -household.iters 4 -v
func TestHouseholdValidUnseen(t *testing.T) {
	if !*householdFull {
		t.Skip("run with -household")
	}
	curve, trained, base := measureHousehold(t, 5, *householdIters, 0)
	t.Logf("5 tasks per type, %d iterations: train success by iteration %.3f", *householdIters, curve)
	t.Logf("valid_unseen (%d tasks): CLIN success %.3f, SPL %v, avg steps %.1f; CLIN-BASE success %.3f",
		trained.Tasks, trained.SuccessRate, deref(trained.SPL), trained.AvgSteps, base.SuccessRate)
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}
