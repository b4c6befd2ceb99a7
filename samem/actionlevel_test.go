package samem_test

import (
	"context"
	"testing"

	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/samem"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// TestActionLevelStoresActions checks seed 002 Table 3's action-level
// variant: after training, the memory's second axis holds the actions the
// agent took (not thoughts), and in evaluation the stored action guides the
// agent, which takes it wherever it can be taken.
func TestActionLevelStoresActions(t *testing.T) {
	ctx := context.Background()
	suite, train, _ := suiteAndTasks(t)
	m := newOffline(t, samem.Config{ActionLevel: true})
	_, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: train[:12], Iterations: 2, Workers: 1, Seed: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	taken := map[string]bool{}
	thoughts := map[string]bool{}
	for _, s := range thoughtoff.HouseholdStrategies {
		thoughts[s.Thought] = true
	}
	snap := m.Snapshot()
	if len(snap.Thoughts) == 0 {
		t.Fatal("no memory entries")
	}
	for _, r := range snap.Thoughts {
		if thoughts[r.Text] || r.Text == thoughtoff.FollowRemembered {
			t.Errorf("action-level memory stored the thought %q", r.Text)
		}
		taken[r.Text] = true
	}
	// Evaluated on the training tasks, where remembered actions can be
	// taken again: some steps are guided and take exactly a stored action.
	ev, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: suite, Tasks: train[:12], Workers: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	guided, followed := 0, 0
	for _, ep := range ev {
		for _, tr := range ep.Transitions {
			if tr.Decision.Guided {
				guided++
				if tr.Decision.Thought == thoughtoff.FollowRemembered && taken[tr.Decision.Action] {
					followed++
				}
			}
		}
	}
	if guided == 0 || followed == 0 {
		t.Errorf("evaluation: %d guided steps, %d took a stored action", guided, followed)
	}
}
