package offline

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/runner"
	sumoff "github.com/samem/trainer/summarize/offline"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// runAll plays tasks with m through runner.Run, one seeded random source
// per task, and fails on any error or inadmissible action.
func runAll(t *testing.T, s *household.Suite, m agent.Method, tasks []envbridge.Task, mode agent.Mode, seed uint64) []runner.Episode {
	t.Helper()
	ctx := context.Background()
	env, err := s.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	var out []runner.Episode
	for i, task := range tasks {
		ep, err := runner.Run(ctx, env, m, agent.Start{Task: task, Mode: mode, Style: s.Style(), Rand: rand.New(rand.NewPCG(seed, uint64(i)))})
		if err != nil {
			t.Fatalf("%s on %s: %v", m.Name(), task.ID, err)
		}
		if ep.Outcome.Steps == 0 || ep.Outcome.Steps > task.MaxSteps {
			t.Errorf("%s on %s: %d steps (limit %d)", m.Name(), task.ID, ep.Outcome.Steps, task.MaxSteps)
		}
		for j := 1; j < len(ep.Transitions); j++ {
			if a := ep.Transitions[j].Decision.Action; !slices.Contains(ep.Transitions[j-1].Result.Admissible, a) {
				t.Errorf("%s on %s step %d: %q is not admissible", m.Name(), task.ID, j, a)
			}
		}
		out = append(out, ep)
	}
	return out
}

func mustFull(t *testing.T, cfg baseline.FullHistoryConfig, d baseline.Deps) *baseline.FullHistory {
	m, err := baseline.NewFullHistory(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustReflexion(t *testing.T, cfg baseline.ReflexionConfig, d baseline.Deps) *baseline.Reflexion {
	m, err := baseline.NewReflexion(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// spentRepeats replays an episode with a fresh tracker and counts the
// actions taken in a situation where they had had no effect before, while
// some admissible action had not.
func spentRepeats(task envbridge.Task, first string, ep runner.Episode) int {
	tr := newTracker(task, envbridge.StyleHousehold)
	tr.observe("", first)
	n := 0
	var adm []string
	for i, x := range ep.Transitions {
		if i > 0 {
			adm = ep.Transitions[i-1].Result.Admissible
		}
		if tr.isSpent(x.Decision.Action) && !allSpent(tr, adm) {
			n++
		}
		tr.observe(x.Decision.Action, x.Result.Text)
	}
	return n
}

func allSpent(tr *tracker, adm []string) bool {
	for _, a := range adm {
		if !tr.isSpent(a) {
			return false
		}
	}
	return len(adm) > 0
}

// TestFullHistoryOffline: the offline full-history agent never repeats an
// action where it had no effect (while another action is left), which the
// no-memory agent with the same thinker does on the same tasks.
func TestFullHistoryOffline(t *testing.T) {
	s := smallSuite(t, 30)
	tasks, _ := s.Tasks(envbridge.SplitValidUnseen)
	first := func(task envbridge.Task) string {
		obs, err := s.NewEnv().Reset(context.Background(), task)
		if err != nil {
			t.Fatal(err)
		}
		return obs.Text
	}
	repeats := func(m agent.Method) (n, won int) {
		for i, ep := range runAll(t, s, m, tasks, agent.Eval, 5) {
			n += spentRepeats(tasks[i], first(tasks[i]), ep)
			if ep.Outcome.Won {
				won++
			}
		}
		return n, won
	}
	full, fullWon := repeats(mustFull(t, baseline.FullHistoryConfig{}, baseline.Deps{Offline: Roles()}))
	none, noneWon := repeats(baseline.NoMemory{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}})
	t.Logf("repeats without effect: fullhistory %d, nomemory %d; won %d and %d of %d", full, none, fullWon, noneWon, len(tasks))
	if full != 0 {
		t.Errorf("fullhistory repeated %d actions where they had had no effect", full)
	}
	if none == 0 {
		t.Error("nomemory never repeated an action without effect: the check above proves nothing")
	}
}

// TestSummaryOfflineIsNoMemory pins what Summary's doc comment says: offline,
// the summary baseline decides exactly as the no-memory agent.
func TestSummaryOfflineIsNoMemory(t *testing.T) {
	s := smallSuite(t, 20)
	tasks, _ := s.Tasks(envbridge.SplitValidUnseen)
	sum, err := baseline.NewSummary(baseline.SummaryConfig{}, baseline.Deps{Offline: Roles()})
	if err != nil {
		t.Fatal(err)
	}
	a := runAll(t, s, sum, tasks[:6], agent.Eval, 9)
	b := runAll(t, s, baseline.NoMemory{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}}, tasks[:6], agent.Eval, 9)
	// The summary baseline records its running summary as the state it
	// read (Decision.Recall); what it did must be nomemory's.
	acts := func(trs []agent.Transition) []agent.Transition {
		out := slices.Clone(trs)
		for j := range out {
			out[j].Decision.Recall = nil
		}
		return out
	}
	for i := range a {
		if !reflect.DeepEqual(acts(a[i].Transitions), acts(b[i].Transitions)) {
			t.Errorf("task %s: summary and nomemory trajectories differ", tasks[i].ID)
		}
	}
}

// TestReflexionOffline trains on tasks cut short so that they fail: a
// reflection follows each failure, the last three are kept, evaluation adds
// none, and a later episode is guided by them.
func TestReflexionOffline(t *testing.T) {
	s := smallSuite(t, 6)
	tasks, _ := s.Tasks(envbridge.SplitTrain)
	m := mustReflexion(t, baseline.ReflexionConfig{}, baseline.Deps{Offline: Roles()})
	eps := runAll(t, s, m, tasks[:8], agent.Train, 1)
	failed := 0
	for _, ep := range eps {
		if !ep.Outcome.Won {
			failed++
		}
	}
	refl := m.Reflections()
	t.Logf("%d of %d trials failed; kept %d reflections", failed, len(eps), len(refl))
	if failed < 4 || len(refl) != baseline.DefaultKeep || m.Size()["reflections"] != baseline.DefaultKeep {
		t.Fatalf("after %d failures: %d reflections kept (size %v), want %d", failed, len(refl), m.Size(), baseline.DefaultKeep)
	}
	for i, r := range refl {
		if r.Text == "" || (i > 0 && r.Seq <= refl[i-1].Seq) || slices.IndexFunc(refl[:i], func(x baseline.Reflection) bool { return x.Text == r.Text }) >= 0 {
			t.Errorf("reflection %d %+v: empty, out of order or duplicated", i, r)
		}
	}
	if refl[len(refl)-1].Seq != int64(failed-1) {
		t.Errorf("last Seq %d after %d reflections, want %d", refl[len(refl)-1].Seq, failed, failed-1)
	}
	test, _ := s.Tasks(envbridge.SplitValidUnseen)
	evalEps := runAll(t, s, m, test[:4], agent.Eval, 2)
	if !reflect.DeepEqual(m.Reflections(), refl) {
		t.Error("evaluation changed the reflections")
	}
	guided := 0
	for _, ep := range evalEps {
		for _, x := range ep.Transitions {
			if x.Decision.Guided {
				guided++
			}
		}
	}
	if guided == 0 {
		t.Errorf("no evaluation step was guided by the reflections %+v", refl)
	}
}

// TestReflexionGuidesSearch: a stored lesson about finding the target makes
// the first step of a new episode of the history actor a guided search.
func TestReflexionGuidesSearch(t *testing.T) {
	s := smallSuite(t, 0)
	task := taskOf(t, s, envbridge.SplitValidUnseen, "pick_and_place_simple")
	ctx := context.Background()
	for _, tc := range []struct {
		refl   []string
		guided bool
	}{{nil, false}, {[]string{lessonFind}, true}} {
		obs, err := s.NewEnv().Reset(ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		ep := historyActor{}.Begin(agent.Start{Task: task, Mode: agent.Eval, Style: s.Style(), Rand: rand.New(rand.NewPCG(1, 1))}, tc.refl)
		d, err := ep.Act(ctx, obs)
		if err != nil {
			t.Fatal(err)
		}
		if d.Guided != tc.guided || (tc.guided && d.Thought != thoughtoff.Search) {
			t.Errorf("reflections %v: first decision %+v, want guided %v by %q", tc.refl, d, tc.guided, thoughtoff.Search)
		}
	}
}
