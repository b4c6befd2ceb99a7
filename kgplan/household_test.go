package kgplan

import (
	"context"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/runner"
)

// sceneUpdate is the test-only full observation: the household world's start
// state as a graph update.
func sceneUpdate(dom interface {
	HasType(string) bool
	IsA(string, string) bool
}, sc household.Scene) Update {
	u := Update{Entities: map[string]string{}}
	d, _ := Household()
	for _, r := range sc.Receptacles {
		u.Entities[r.Name] = entityType(d, r.Name, "receptacle")
		if r.Openable {
			u.Add = append(u.Add, Triplet{r.Name, "openable", True}, Triplet{r.Name, "opened", False})
		} else {
			u.Add = append(u.Add, Triplet{r.Name, "opened", True})
		}
	}
	for _, o := range sc.Objects {
		u.Entities[o.Name] = entityType(d, o.Name, "item")
		u.Add = append(u.Add, Triplet{o.Name, "in", o.Location})
	}
	return u
}

func newSuite(t testing.TB) *household.Suite {
	t.Helper()
	s, err := household.New(household.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// play runs every task of a split in evaluation and returns the episodes.
func play(t testing.TB, s *household.Suite, m *Method, tasks []envbridge.Task) []runner.Episode {
	t.Helper()
	return playMode(t, s, m, tasks, agent.Eval)
}

// playMode runs every task in the given mode and returns the episodes.
func playMode(t testing.TB, s *household.Suite, m *Method, tasks []envbridge.Task, mode agent.Mode) []runner.Episode {
	t.Helper()
	ctx := context.Background()
	env, err := s.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	var eps []runner.Episode
	for i, task := range tasks {
		ep, err := runner.Run(ctx, env, m, agent.Start{Task: task, Mode: mode, Style: envbridge.StyleHousehold,
			Rand: rand.New(rand.NewPCG(1, uint64(i)))})
		if err != nil {
			t.Fatalf("task %s: %v", task.ID, err)
		}
		eps = append(eps, ep)
	}
	return eps
}

// TestFullObservation: with the start state given, the built-in planner
// wins every valid_unseen task with no more steps than the expert.
func TestFullObservation(t *testing.T) {
	s := newSuite(t)
	tasks, err := s.Tasks(envbridge.SplitValidUnseen)
	if err != nil {
		t.Fatal(err)
	}
	dom, _ := Household()
	m, err := New(Config{Prior: func(task envbridge.Task) (Update, error) {
		sc, err := s.Scene(task.ID)
		if err != nil {
			return Update{}, err
		}
		return sceneUpdate(dom, sc), nil
	}}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	eps := play(t, s, m, tasks)
	for _, ep := range eps {
		expert, err := s.Expert(ep.Task.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !ep.Outcome.Won {
			var acts []string
			for _, tr := range ep.Transitions {
				acts = append(acts, tr.Decision.Action+" => "+tr.Result.Text)
			}
			t.Errorf("task %s (%s) not won in %d steps; expert %v; actions:\n%q", ep.Task.ID, ep.Task.Goal, ep.Outcome.Steps, expert, acts)
			continue
		}
		if ep.Outcome.Steps > len(expert) {
			t.Errorf("task %s: %d steps, expert %d", ep.Task.ID, ep.Outcome.Steps, len(expert))
		}
	}
}

var noHint = flag.Bool("nohint", false, "explore without the placement facts (Config.CanHold nil)")

var measure = flag.Bool("measure", false, "report kgplan's offline success on household valid_unseen in normal play")

// TestNormalPlay plays valid_unseen with partial observation (exploration
// until the goal's objects are known) and the offline roles. With -measure
// it logs the success rate; without, it checks a small slice.
func TestNormalPlay(t *testing.T) {
	s := newSuite(t)
	tasks, err := s.Tasks(envbridge.SplitValidUnseen)
	if err != nil {
		t.Fatal(err)
	}
	if !*measure {
		tasks = tasks[:12]
	}
	cfg := Config{CanHold: household.CanHold}
	if *noHint {
		cfg.CanHold = nil
	}
	m, err := New(cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	eps := play(t, s, m, tasks)
	won, steps := 0, 0
	byType := map[string][2]int{}
	for _, ep := range eps {
		c := byType[ep.Task.Type]
		c[1]++
		if ep.Outcome.Won {
			won++
			c[0]++
			steps += ep.Outcome.Steps
		}
		byType[ep.Task.Type] = c
	}
	t.Logf("kgplan offline normal play: won %d/%d (%.1f%%), mean steps of wins %.1f; by type %v; stats %+v",
		won, len(eps), 100*float64(won)/float64(len(eps)), float64(steps)/float64(max(won, 1)), byType, m.Stats())
	if won == 0 {
		t.Errorf("no task won")
	}
}
