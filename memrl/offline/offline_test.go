package offline

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	llmoff "github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/memrl"
	"github.com/samem/trainer/runner"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

func newMethod(t *testing.T, cfg memrl.Config) *memrl.Method {
	t.Helper()
	m, err := memrl.New(cfg, memrl.Deps{Embed: llmoff.New(256), Offline: Agent{}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func suite(t *testing.T) (*household.Suite, []envbridge.Task, []envbridge.Task) {
	t.Helper()
	s, err := household.New(household.Config{Seed: 5, Train: 12, ValidSeen: 6, ValidUnseen: 12, MaxSteps: 30})
	if err != nil {
		t.Fatal(err)
	}
	train, err := s.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	eval, err := s.Tasks(envbridge.SplitValidUnseen)
	if err != nil {
		t.Fatal(err)
	}
	return s, train, eval
}

func evaluate(t *testing.T, s envbridge.Suite, m agent.Method, tasks []envbridge.Task) []runner.Episode {
	t.Helper()
	eps, err := runner.Evaluate(context.Background(), runner.EvalConfig{Method: m, Suite: s, Tasks: tasks, Workers: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range eps {
		if ep.Outcome.Err != "" {
			t.Fatalf("%s errored: %s", ep.Task.ID, ep.Outcome.Err)
		}
	}
	return eps
}

func wins(eps []runner.Episode) int {
	n := 0
	for _, ep := range eps {
		if ep.Outcome.Won {
			n++
		}
	}
	return n
}

// The trained memory changes what MemRL does on held-out tasks: with it,
// retrieval injects memories and the agent follows the strategies they
// name; with an empty memory it explores. Offline, one worker, fixed seeds.
func TestTrainedMemoryChangesHeldOut(t *testing.T) {
	s, train, eval := suite(t)
	trained := newMethod(t, memrl.Config{})
	if _, err := runner.Train(context.Background(), runner.TrainConfig{Method: trained, Suite: s, Tasks: train, Iterations: 2, Workers: 1, Seed: 1, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if n := trained.Size()["triplets"]; n != 2*len(train) {
		t.Fatalf("%d triplets after 2 iterations of %d tasks, want one per episode", n, len(train))
	}
	withMem := evaluate(t, s, trained, eval)
	empty := evaluate(t, s, newMethod(t, memrl.Config{}), eval)
	differ, injected, guided := 0, 0, 0
	for i := range eval {
		a, b := withMem[i], empty[i]
		if !reflect.DeepEqual(actions(a), actions(b)) {
			differ++
		}
		if r := a.Transitions[0].Decision.Recall; r != nil {
			for _, it := range r.Items {
				for _, k := range []string{"similarity", "z_similarity", "q", "z_q", "score", "visits"} {
					if _, ok := it.Scores[k]; !ok {
						t.Fatalf("%s: recalled triplet %s has no %s: %v", a.Task.ID, it.ID, k, it.Scores)
					}
				}
			}
			for _, it := range r.Items {
				if it.Used {
					injected++
					break
				}
			}
		}
		for _, tr := range a.Transitions {
			if tr.Decision.Guided {
				guided++
			}
		}
		for _, tr := range b.Transitions {
			if tr.Decision.Guided || len(tr.Decision.Recall.Items) > 0 {
				t.Fatalf("%s: the empty memory guided or recalled something", b.Task.ID)
			}
		}
	}
	t.Logf("held-out: %d/%d tasks decided differently; memories injected in %d; %d guided steps; wins %d trained vs %d empty",
		differ, len(eval), injected, guided, wins(withMem), wins(empty))
	if differ == 0 || injected == 0 || guided == 0 {
		t.Fatalf("trained memory changed nothing: %d tasks differ, %d with memories injected, %d guided steps", differ, injected, guided)
	}
	if wins(withMem) <= wins(empty) {
		t.Errorf("trained memory won %d of %d held-out tasks, the empty one %d: the offline agent should profit from its memories", wins(withMem), len(eval), wins(empty))
	}
}

func actions(ep runner.Episode) []string {
	out := make([]string, len(ep.Transitions))
	for i, tr := range ep.Transitions {
		out[i] = tr.Decision.Action
	}
	return out
}

// A won episode's script lists the strategies that changed the situation,
// first use first; a failed episode's reflection names the first stage
// missed and the strategies it needs, which guide a later episode.
func TestScriptAndReflection(t *testing.T) {
	s, train, _ := suite(t)
	env, err := s.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	m := newMethod(t, memrl.Config{})
	var won, lost int
	for it := range 2 {
		for i, task := range train {
			ep, err := runner.Run(context.Background(), env, m, agent.Start{Task: task, Mode: agent.Train, Style: s.Style(), Rand: runner.EpisodeRand(9, it, i), Iteration: it, Episode: it*len(train) + i})
			if err != nil {
				t.Fatal(err)
			}
			if ep.Outcome.Won {
				won++
			} else {
				lost++
			}
		}
		if err := m.EndIteration(context.Background(), it); err != nil {
			t.Fatal(err)
		}
	}
	for _, it := range m.Items() {
		named := strategiesIn(it.Lesson)
		switch {
		case it.Success && (len(named) < 2 || !strings.HasPrefix(it.Lesson, "1. ")):
			t.Errorf("task %s won, script %q names %d strategies", it.Task, it.Lesson, len(named))
		case !it.Success && it.Lesson != "" && (!strings.Contains(it.Lesson, "Next time: ") || len(named) == 0):
			t.Errorf("task %s failed, reflection %q names no strategy", it.Task, it.Lesson)
		}
		if it.Trajectory == "" || (it.Iteration == 1 && (it.Q != 0 || it.Visits != 0)) {
			t.Errorf("triplet %d: trajectory %q, Q %g, visits %d (want the episode; a new triplet has Q 0)", it.ID, it.Trajectory, it.Q, it.Visits)
		}
	}
	if won == 0 || lost == 0 {
		t.Errorf("%d won, %d lost: one kind of memory not exercised", won, lost)
	}
}

// In the household world the stage's strategy guides a step only when a
// shown memory names it.
func TestGuideNeedsANamedStrategy(t *testing.T) {
	_, _, eval := suite(t)
	task := eval[0]
	obs := "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a drawer 1, and a countertop 1.\n\nYour task is to: " + task.Goal
	start := agent.Start{Task: task, Mode: agent.Eval, Style: envbridge.StyleHousehold, Rand: runner.EpisodeRand(1, -1, 0)}
	plain := Agent{}.Begin(start, nil)
	d, err := plain.Act(context.Background(), envbridge.Observation{Text: obs, Admissible: []string{"go to cabinet 1", "go to drawer 1", "go to countertop 1", "inventory", "look"}})
	if err != nil || d.Guided {
		t.Fatalf("no memory: %+v, %v", d, err)
	}
	shown := []memrl.Shown{{Success: true, Lesson: memrl.FormatScript([]string{thoughtoff.Search, thoughtoff.TakeHere})}}
	g := Agent{}.Begin(start, shown)
	d, err = g.Act(context.Background(), envbridge.Observation{Text: obs, Admissible: []string{"go to cabinet 1", "go to drawer 1", "go to countertop 1", "inventory", "look"}})
	if err != nil || !d.Guided || d.Thought != thoughtoff.Search || !strings.HasPrefix(d.Action, "go to ") {
		t.Fatalf("a script naming the search: %+v, %v", d, err)
	}
}

// A checkpoint taken in the middle of an iteration keeps its finished
// episodes (pending until the iteration's end): loading it and playing the
// rest ends the iteration with the memory an uninterrupted run has.
func TestResumeMidIteration(t *testing.T) {
	ctx := context.Background()
	s, train, _ := suite(t)
	env, err := s.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	play := func(m *memrl.Method, it int, from, to int) {
		for i := from; i < to; i++ {
			if _, err := runner.Run(ctx, env, m, agent.Start{Task: train[i], Mode: agent.Train, Style: s.Style(),
				Rand: runner.EpisodeRand(4, it, i), Iteration: it, Episode: it*len(train) + i}); err != nil {
				t.Fatal(err)
			}
		}
	}
	whole := newMethod(t, memrl.Config{})
	cut := newMethod(t, memrl.Config{})
	play(whole, 0, 0, len(train))
	play(cut, 0, 0, len(train))
	for _, m := range []*memrl.Method{whole, cut} {
		if err := m.EndIteration(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	play(whole, 1, 0, len(train))
	play(cut, 1, 0, 5)
	dir := t.TempDir()
	if err := cut.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	resumed := newMethod(t, memrl.Config{})
	if err := resumed.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	play(resumed, 1, 5, len(train))
	for _, m := range []*memrl.Method{whole, resumed} {
		if err := m.EndIteration(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := whole.Items(), resumed.Items(); !reflect.DeepEqual(a, b) {
		t.Errorf("resumed memory differs: %d triplets, then %d", len(a), len(b))
	}
	m1, s1, _ := whole.SimNorm()
	m2, s2, _ := resumed.SimNorm()
	if m1 != m2 || s1 != s2 {
		t.Errorf("z-norm constants %g/%g, resumed %g/%g", m1, s1, m2, s2)
	}
}
