package offline

import (
	"context"
	"flag"
	"reflect"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/autoguide"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/runner"
)

var showMemory = flag.Bool("memory", false, "log the trained memory's tables")

func newMethod(t testing.TB, cfg autoguide.Config) *autoguide.Method {
	t.Helper()
	m, err := autoguide.New(cfg, autoguide.Deps{Offline: Roles{}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// trainHousehold trains offline AutoGuide on perType training tasks of each
// type of the household world (seed 1) and returns it with the suite and
// the first evalN tasks of valid_unseen.
func trainHousehold(t *testing.T, cfg autoguide.Config, perType, iters, evalN int) (*autoguide.Method, envbridge.Suite, []envbridge.Task) {
	t.Helper()
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	unseen, err := suite.Tasks(envbridge.SplitValidUnseen)
	if err != nil {
		t.Fatal(err)
	}
	if evalN > 0 && evalN < len(unseen) {
		unseen = unseen[:evalN]
	}
	m := newMethod(t, cfg)
	if _, err := runner.Train(context.Background(), runner.TrainConfig{Method: m, Suite: suite, Tasks: runner.PerType(all, perType), Iterations: iters, Workers: 1, Seed: 1, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if *showMemory {
		for _, tb := range m.MemoryTables() {
			t.Logf("table %s %v", tb.Name, tb.Columns)
			for _, r := range tb.Rows {
				t.Logf("  %s", strings.Join(r, " | "))
			}
		}
	}
	return m, suite, unseen
}

func evaluate(t *testing.T, m agent.Method, suite envbridge.Suite, tasks []envbridge.Task) []runner.Episode {
	t.Helper()
	eps, err := runner.Evaluate(context.Background(), runner.EvalConfig{Method: m, Suite: suite, Tasks: tasks, Workers: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

// TestTrainedMemoryChangesEvaluation: the guidelines learnt on training
// tasks change what AutoGuide does on held-out tasks (the same evaluation
// with an empty memory decides otherwise), and the decisions they guided
// carry their Recall (the context, its match and the guidelines offered).
func TestTrainedMemoryChangesEvaluation(t *testing.T) {
	m, suite, unseen := trainHousehold(t, autoguide.Config{}, 2, 3, 12)
	if m.Size()["guidelines"] == 0 {
		t.Fatalf("training stored no guideline: %v", m.Size())
	}
	trained := evaluate(t, m, suite, unseen)
	empty := evaluate(t, newMethod(t, autoguide.Config{}), suite, unseen)
	differ, guided := false, 0
	for i := range trained {
		a, b := trained[i].Transitions, empty[i].Transitions
		if len(a) != len(b) {
			differ = true
		}
		for j := range min(len(a), len(b)) {
			if a[j].Decision.Action != b[j].Decision.Action {
				differ = true
			}
		}
		for _, tr := range a {
			d := tr.Decision
			if d.Recall == nil || d.Recall.State == "" {
				t.Fatalf("%s step %d: no recall with the context", trained[i].Task.ID, tr.Step)
			}
			if d.Guided {
				guided++
				used := 0
				for _, it := range d.Recall.Items {
					if it.Used {
						used++
					}
				}
				if d.Recall.Match == "" || used == 0 {
					t.Fatalf("%s step %d: guided without a matched context or a used guideline: %+v", trained[i].Task.ID, tr.Step, d.Recall)
				}
			}
		}
		for _, tr := range b {
			if tr.Decision.Guided || (tr.Decision.Recall != nil && tr.Decision.Recall.Match != "") {
				t.Fatalf("empty memory: %s step %d guided or matched", empty[i].Task.ID, tr.Step)
			}
		}
	}
	if !differ || guided == 0 {
		t.Errorf("trained memory: %d guided steps, decisions differ from the empty memory's: %v; want both", guided, differ)
	}
	ts, es := runner.Summarize(trained, nil), runner.Summarize(empty, nil)
	t.Logf("valid_unseen[:%d]: success %.2f trained (%d guided steps), %.2f empty; memory %v", len(unseen), ts.SuccessRate, guided, es.SuccessRate, m.Size())
}

var measure = flag.Bool("household", false, "measure offline AutoGuide on the whole household valid_unseen split")

// TestMeasureHousehold (-household): the offline roles' success on
// valid_unseen with the trained memory and with an empty one.
func TestMeasureHousehold(t *testing.T) {
	if !*measure {
		t.Skip("a measurement: run with -household")
	}
	for _, cfg := range []autoguide.Config{{}, {Online: true}} {
		m, suite, unseen := trainHousehold(t, cfg, 5, 9, 0)
		ts := runner.Summarize(evaluate(t, m, suite, unseen), nil)
		es := runner.Summarize(evaluate(t, newMethod(t, cfg), suite, unseen), nil)
		t.Logf("online=%v: valid_unseen success %.3f trained, %.3f empty; memory %v", cfg.Online, ts.SuccessRate, es.SuccessRate, m.Size())
	}
}

func TestContextIsGeneral(t *testing.T) {
	task := envbridge.Task{Goal: "put a clean knife in countertop."}
	steps := []autoguide.Step{
		{Text: "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a drawer 1, and a sinkbasin 1.\n\nYour task is to: put a clean knife in countertop."},
		{Action: "go to drawer 1", Text: "You arrive at drawer 1. The drawer 1 is closed."},
	}
	want := []string{StatusStart, StatusClosed}
	for i := range steps {
		got := Roles{}.Context(task, envbridge.StyleHousehold, steps[:i+1])
		if got != want[i] {
			t.Errorf("after %d steps: %q, want %q", i, got, want[i])
		}
		if strings.ContainsAny(got, "0123456789") || strings.Contains(got, "drawer") || strings.Contains(got, "knife") {
			t.Errorf("context %q names an object, a place or a number", got)
		}
	}
	if got := (Roles{}).Context(task, envbridge.StyleFiction, steps[:1]); got != StatusFirst {
		t.Errorf("fiction start: %q", got)
	}
}

func TestGuidelineRoundTrip(t *testing.T) {
	for _, st := range []string{"Search for the target object: go to a receptacle that has not been checked yet.", "Check what is being carried."} {
		g := Guideline(StatusSearching, st)
		if !strings.HasPrefix(g, "When searching for the object") || Strategy(g) != st {
			t.Errorf("Guideline(%q) = %q, Strategy = %q", st, g, Strategy(g))
		}
	}
	if Strategy("When in doubt, look around.") != "" || Strategy("You should look.") != "" {
		t.Error("Strategy read a guideline not of this package's form")
	}
}

func TestSelectMostFrequent(t *testing.T) {
	got := Roles{}.Select([]string{"a", "b", "b", "c", "c", "c", "a"}, "", nil, 2)
	if want := []int{3, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("Select = %v, want %v (c three times, then a before b)", got, want)
	}
}

func TestMatchFolds(t *testing.T) {
	if i := (Roles{}).Match([]string{"x", "The Object  is here."}, "the object is here."); i != 1 {
		t.Errorf("Match = %d, want 1", i)
	}
	if i := (Roles{}).Match([]string{"x"}, "y"); i != -1 {
		t.Errorf("Match = %d, want -1", i)
	}
}
