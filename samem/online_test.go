package samem_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/samem"
)

// An online evaluation (seed 002 App. B.1's Jericho protocol) of a trained
// memory acts greedily (Eq. 6 with epsilon 0: no step explores), applies
// the Bellman updates of Eq. 4-5 and clusters new states and thoughts as
// training does (the end of the pass is runner's, TestEvaluateOnline); a
// frozen evaluation of the same memory leaves it as it was.
func TestOnlineEvaluationLearns(t *testing.T) {
	ctx := context.Background()
	suite, train, test := suiteAndTasks(t)
	test = test[:8]
	trained := newOffline(t, samem.Config{})
	if _, err := runner.Train(ctx, runner.TrainConfig{Method: trained, Suite: suite, Tasks: train, Iterations: 2, Workers: 1, Seed: 1, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := trained.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	before := trained.Snapshot()
	load := func() *samem.Method {
		m := newOffline(t, samem.Config{})
		if err := m.Load(ctx, dir); err != nil {
			t.Fatal(err)
		}
		return m
	}

	frozen := load()
	if _, err := runner.Evaluate(ctx, runner.EvalConfig{Method: frozen, Suite: suite, Tasks: test, Workers: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(frozen.Snapshot(), before) {
		t.Error("a frozen evaluation changed the memory")
	}

	online := load()
	eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: online, Suite: suite, Tasks: test, Workers: 1, Seed: 1, Online: true})
	if err != nil {
		t.Fatal(err)
	}
	guided := 0
	for _, ep := range eps {
		guided += ep.Use.GuidedSteps
		for _, tr := range ep.Transitions {
			if tr.Decision.Recall != nil && tr.Decision.Recall.Explored {
				t.Fatalf("%s step %d explored in an online evaluation", ep.Task.ID, tr.Step)
			}
		}
	}
	after := online.Snapshot()
	if reflect.DeepEqual(after.QTable, before.QTable) {
		t.Error("the online evaluation left the Q-table as training left it")
	}
	if reflect.DeepEqual(after.States, before.States) {
		t.Error("the online evaluation assigned no state to a cluster")
	}
	if guided == 0 {
		t.Error("memory guided no step of the online evaluation")
	}
	t.Logf("memory %d -> %d Q entries, %d -> %d states; %d guided steps", len(before.QTable), len(after.QTable), len(before.States), len(after.States), guided)
}
