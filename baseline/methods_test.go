package baseline

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// Compile-time checks of the optional abilities.
var (
	_ agent.Method = (*FullHistory)(nil)
	_ agent.Method = (*Summary)(nil)
	_ agent.Method = (*Reflexion)(nil)
	_ agent.Saver  = (*Reflexion)(nil)
	_ agent.Sizer  = (*Reflexion)(nil)
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

func mustFull(t *testing.T, cfg FullHistoryConfig, d Deps) *FullHistory {
	m, err := NewFullHistory(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustReflexion(t *testing.T, cfg ReflexionConfig, d Deps) *Reflexion {
	m, err := NewReflexion(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestConfigErrors(t *testing.T) {
	if _, err := NewFullHistory(FullHistoryConfig{MaxHistory: -1}, Deps{}); !errors.Is(err, ErrConfig) {
		t.Errorf("negative MaxHistory: %v", err)
	}
	if _, err := NewSummary(SummaryConfig{Actor: ActorConfig{Temperature: -1}}, Deps{}); !errors.Is(err, ErrConfig) {
		t.Errorf("negative temperature: %v", err)
	}
	if _, err := NewReflexion(ReflexionConfig{Keep: -3}, Deps{}); !errors.Is(err, ErrConfig) {
		t.Errorf("negative Keep: %v", err)
	}
	for _, m := range []interface{ Name() string }{mustFull(t, FullHistoryConfig{}, Deps{}), mustReflexion(t, ReflexionConfig{}, Deps{})} {
		if m.Name() != FullHistoryName && m.Name() != ReflexionName {
			t.Errorf("name %q", m.Name())
		}
	}
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
	full, fullWon := repeats(mustFull(t, FullHistoryConfig{}, Deps{}))
	none, noneWon := repeats(NoMemory{Summarizer: summarize.Offline{}, Thinker: thought.Offline{}})
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
	sum, err := NewSummary(SummaryConfig{}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	a := runAll(t, s, sum, tasks[:6], agent.Eval, 9)
	b := runAll(t, s, NoMemory{Summarizer: summarize.Offline{}, Thinker: thought.Offline{}}, tasks[:6], agent.Eval, 9)
	for i := range a {
		if !reflect.DeepEqual(a[i].Transitions, b[i].Transitions) {
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
	m := mustReflexion(t, ReflexionConfig{}, Deps{})
	eps := runAll(t, s, m, tasks[:8], agent.Train, 1)
	failed := 0
	for _, ep := range eps {
		if !ep.Outcome.Won {
			failed++
		}
	}
	refl := m.Reflections()
	t.Logf("%d of %d trials failed; kept %d reflections", failed, len(eps), len(refl))
	if failed < 4 || len(refl) != DefaultKeep || m.Size()["reflections"] != DefaultKeep {
		t.Fatalf("after %d failures: %d reflections kept (size %v), want %d", failed, len(refl), m.Size(), DefaultKeep)
	}
	for i, r := range refl {
		if r.Text == "" || (i > 0 && r.Seq <= refl[i-1].Seq) || slices.IndexFunc(refl[:i], func(x Reflection) bool { return x.Text == r.Text }) >= 0 {
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
// the first step of a new episode a guided search.
func TestReflexionGuidesSearch(t *testing.T) {
	s := smallSuite(t, 0)
	task := taskOf(t, s, envbridge.SplitValidUnseen, "pick_and_place_simple")
	ctx := context.Background()
	for _, tc := range []struct {
		refl   []string
		guided bool
	}{{nil, false}, {[]string{LessonFind}, true}} {
		m := mustReflexion(t, ReflexionConfig{}, Deps{})
		for _, r := range tc.refl {
			m.add("earlier", r)
		}
		obs, err := s.NewEnv().Reset(ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := m.Start(ctx, agent.Start{Task: task, Mode: agent.Eval, Style: s.Style(), Rand: rand.New(rand.NewPCG(1, 1))})
		if err != nil {
			t.Fatal(err)
		}
		d, err := ep.Act(ctx, obs)
		if err != nil {
			t.Fatal(err)
		}
		if d.Guided != tc.guided || (tc.guided && d.Thought != thought.Search) {
			t.Errorf("reflections %v: first decision %+v, want guided %v by %q", tc.refl, d, tc.guided, thought.Search)
		}
	}
}

func TestReflexionKeepAndDedupe(t *testing.T) {
	m := mustReflexion(t, ReflexionConfig{Keep: 2}, Deps{})
	for _, r := range []string{"a", "b", "a", "c", "c"} {
		m.add("task", r)
	}
	want := []Reflection{{Seq: 2, Task: "task", Text: "a"}, {Seq: 4, Task: "task", Text: "c"}}
	if got := m.Reflections(); !reflect.DeepEqual(got, want) {
		t.Errorf("reflections %+v, want %+v", got, want)
	}
}

func TestReflexionSaveLoad(t *testing.T) {
	ctx := context.Background()
	m := mustReflexion(t, ReflexionConfig{}, Deps{})
	for _, r := range []string{LessonFind, "Checking the inventory" + repeatSuffix, "Ünïcode, \"quotes\" and\ttabs", LessonPlace} {
		m.add("train-"+r[:3], r)
	}
	dir := t.TempDir()
	if err := m.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	back := mustReflexion(t, ReflexionConfig{}, Deps{})
	if err := back.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Reflections(), m.Reflections()) {
		t.Errorf("read back %+v, want %+v", back.Reflections(), m.Reflections())
	}
	m.add("next", "after save")
	back.add("next", "after save")
	if !reflect.DeepEqual(back.Reflections(), m.Reflections()) {
		t.Errorf("sequence numbers diverge after load: %+v vs %+v", back.Reflections(), m.Reflections())
	}
	// A smaller Keep keeps the latest.
	one := mustReflexion(t, ReflexionConfig{Keep: 1}, Deps{})
	if err := one.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if got := one.Reflections(); len(got) != 1 || got[0].Text != LessonPlace {
		t.Errorf("Keep 1 loaded %+v, want the last", got)
	}
	// An empty memory round-trips too.
	empty, dir2 := mustReflexion(t, ReflexionConfig{}, Deps{}), t.TempDir()
	if err := empty.Save(ctx, dir2); err != nil {
		t.Fatal(err)
	}
	if err := back.Load(ctx, dir2); err != nil || back.Reflections() != nil || back.Size()["reflections"] != 0 {
		t.Errorf("loading an empty save: %v, %+v", err, back.Reflections())
	}
}

func TestReflexionLoadErrors(t *testing.T) {
	ctx := context.Background()
	bad := func(rows []Reflection) string {
		dir := t.TempDir()
		if err := checkpoints.WriteFile(ctx, filepath.Join(dir, reflectionsFile), rows, checkpoints.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	garbage := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbage, reflectionsFile), []byte("not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dir  string
		want error
	}{
		{"missing", t.TempDir(), checkpoints.ErrMissing},
		{"garbage", garbage, checkpoints.ErrNotParquet},
		{"out of order", bad([]Reflection{{Seq: 2, Text: "a"}, {Seq: 1, Text: "b"}}), ErrBadReflections},
		{"empty text", bad([]Reflection{{Seq: 0, Text: ""}}), ErrBadReflections},
		{"negative seq", bad([]Reflection{{Seq: -1, Text: "a"}}), ErrBadReflections},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mustReflexion(t, ReflexionConfig{}, Deps{})
			m.add("kept", "kept")
			err := m.Load(ctx, tc.dir)
			if !errors.Is(err, tc.want) {
				t.Errorf("Load = %v, want %v", err, tc.want)
			}
			if got := m.Reflections(); len(got) != 1 || got[0].Text != "kept" {
				t.Errorf("a failed Load changed the memory: %+v", got)
			}
		})
	}
}

// TestReflexionTrainParallel trains through runner.Train with two workers
// (race detector) and its checkpoints, which call Save.
func TestReflexionTrainParallel(t *testing.T) {
	s := smallSuite(t, 8)
	tasks, _ := s.Tasks(envbridge.SplitTrain)
	dir := t.TempDir()
	m := mustReflexion(t, ReflexionConfig{}, Deps{})
	res, err := runner.Train(context.Background(), runner.TrainConfig{Method: m, Suite: s, Tasks: tasks[:6], Iterations: 2, Workers: 2, Seed: 1, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.History) != 2 || res.History[1].Size["reflections"] != len(m.Reflections()) || len(m.Reflections()) == 0 {
		t.Fatalf("history %+v, reflections %d", res.History, len(m.Reflections()))
	}
}
