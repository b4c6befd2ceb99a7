package arigraph

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
)

// stubOffline reads the same two triplets from every observation and looks:
// the core's tests need an agent without a model, not the rules of package
// arigraph/offline.
type stubOffline struct{}

func (stubOffline) Read(envbridge.Style, string, string, string) []Triplet {
	return []Triplet{{"apple 1", "is in", "fridge 1"}, {"kitchen", RelHasExit, "north"}}
}

func (stubOffline) Outdated(context.Context, []Triplet, []Triplet) ([]Replacement, error) {
	return nil, nil
}

func (stubOffline) Decide(_ envbridge.Style, wm WorkingMemory, _ map[string]int, _ *rand.Rand) (string, string) {
	if slices.Contains(wm.Actions, "look") || wm.Actions == nil {
		return "stub", "look"
	}
	return "stub", wm.Actions[0]
}

func (stubOffline) GoalQueries(string) []string { return nil }

// TestCarry checks what persists between episodes: by default (seed 000's
// setting) an episode of a task played before starts with an empty graph
// and no placements; with Config.Carry it starts from the task's map and
// the placements of training.
func TestCarry(t *testing.T) {
	suite, _ := household.New(household.Config{Seed: 1})
	train, _ := suite.Tasks(envbridge.SplitTrain)
	for _, carry := range []bool{false, true} {
		m, err := New(Config{Carry: carry}, Deps{Embed: offline.New(256), Offline: stubOffline{}})
		if err != nil {
			t.Fatal(err)
		}
		env, _ := suite.Open(context.Background())
		s := agent.Start{Task: train[0], Mode: agent.Train, Style: suite.Style(), Rand: rand.New(rand.NewPCG(1, 1))}
		if _, err := runner.Run(context.Background(), env, m, s); err != nil {
			t.Fatal(err)
		}
		env.Close()
		ep, err := m.Start(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		e := ep.(*episode)
		if got := e.g.Len() > 0 || len(e.priors) > 0; got != carry {
			t.Errorf("carry %v: second episode of %s starts with %d triplets and %d priors", carry, train[0].ID, e.g.Len(), len(e.priors))
		}
	}
}

func TestNewNeedsRoles(t *testing.T) {
	if _, err := New(Config{}, Deps{Embed: offline.New(8)}); err == nil {
		t.Error("New without a model and without offline roles succeeded")
	}
}

// TestGraphNamed: the vertices a text names, by name or by kind.
func TestGraphNamed(t *testing.T) {
	g := NewGraph()
	g.Add(Triplet{"golden key", "is in", "chest 1"}, Triplet{"apple 1", "is in", "fridge 1"}, Triplet{"lamp", "is", "off"})
	got := g.Named("Find the golden key, then open the chest. Put an Apple in the fridge.")
	if want := []string{"golden key", "chest 1", "apple 1", "fridge 1"}; !slices.Equal(got, want) {
		t.Errorf("Named = %q, want %q", got, want)
	}
}

// TestModelPathGoalQueries: with a model, the goal of a world other than
// the household (whose goals the offline rules read) still gives the
// entities it names as retrieval queries.
func TestModelPathGoalQueries(t *testing.T) {
	m, err := New(Config{}, Deps{Chat: llmtest.NewChatter(t), Embed: offline.New(8)})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := m.Start(context.Background(), agent.Start{Task: envbridge.Task{Goal: "Unlock the wooden chest with the brass key."}, Style: envbridge.StyleFiction})
	if err != nil {
		t.Fatal(err)
	}
	e := ep.(*episode)
	e.g.Add(Triplet{"brass key", "is on", "table"}, Triplet{"wooden chest", "is", "locked"}, Triplet{"table", "is in", "hall"})
	got := e.queries(nil)
	if want := []string{"Unlock the wooden chest with the brass key.", "brass key", "wooden chest"}; !slices.Equal(got, want) {
		t.Errorf("queries = %q, want %q", got, want)
	}
}
