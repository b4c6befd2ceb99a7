package offline

import (
	"context"
	"flag"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/runner"
	sumoff "github.com/samem/trainer/summarize/offline"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

var measure = flag.Bool("measure", false, "measure every baseline's offline success on household valid_unseen (134 tasks)")

// TestMeasureHousehold measures the offline baselines on the household
// world's valid_unseen split (household.New(household.Config{Seed: 1}), 134
// tasks), evaluation seed 1. Reflexion first trains on the training schedule
// the trainer uses by default (5 tasks per type, 9 iterations, seed 1), with
// one worker so that its reflections arrive in a reproducible order. Run:
//
//	go test ./baseline/offline -run TestMeasureHousehold -measure -v
func TestMeasureHousehold(t *testing.T) {
	if !*measure {
		t.Skip("measurement; run with -measure")
	}
	ctx := context.Background()
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	train, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	test, err := suite.Tasks(envbridge.SplitValidUnseen)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := baseline.NewFullHistory(baseline.FullHistoryConfig{}, baseline.Deps{Offline: Roles()})
	sum, _ := baseline.NewSummary(baseline.SummaryConfig{}, baseline.Deps{Offline: Roles()})
	refl, _ := baseline.NewReflexion(baseline.ReflexionConfig{}, baseline.Deps{Offline: Roles()})
	res, err := runner.Train(ctx, runner.TrainConfig{Method: refl, Suite: suite, Tasks: runner.PerType(train, 5), Iterations: 9, Workers: 1, Seed: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.History {
		t.Logf("reflexion training iteration %d: success %.3f", h.Iteration, h.SuccessRate)
	}
	for _, r := range refl.Reflections() {
		t.Logf("reflection %d (%s): %s", r.Seq, r.Task, r.Text)
	}
	for _, m := range []agent.Method{baseline.NoMemory{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}}, full, sum, refl} {
		eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: suite, Tasks: test, Workers: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		s := runner.Summarize(eps, nil)
		t.Logf("%-12s valid_unseen success %.3f (%d/%d), avg steps %.1f", m.Name(), s.SuccessRate, s.Successes, s.Tasks, s.AvgSteps)
		types, groups := runner.ByType(eps)
		for _, typ := range types {
			g := runner.Summarize(groups[typ], nil)
			t.Logf("    %-32s %.3f (%d/%d)", typ, g.SuccessRate, g.Successes, g.Tasks)
		}
	}
}
