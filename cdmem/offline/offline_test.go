package offline

import (
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/cdmem"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/runner"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

var showMemory = flag.Bool("memory", false, "log the trained memory's tables")

func newMethod(t testing.TB) *cdmem.Method {
	t.Helper()
	m, err := cdmem.New(cdmem.Config{}, cdmem.Deps{Offline: Roles{}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func trainHousehold(t *testing.T, perType, iters, evalN int) (*cdmem.Method, envbridge.Suite, []envbridge.Task) {
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
	m := newMethod(t)
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

// TestTrainedMemoryChangesEvaluation: the scene and task-type memories
// learnt on training tasks change what CDMem does on held-out tasks, and
// its decisions carry their Recall (the scene, the guidance offered).
func TestTrainedMemoryChangesEvaluation(t *testing.T) {
	m, suite, unseen := trainHousehold(t, 2, 3, 12)
	if m.Size()["guidance"] == 0 || m.Size()["scenes"] == 0 {
		t.Fatalf("training stored no guidance or no scene: %v", m.Size())
	}
	trained := evaluate(t, m, suite, unseen)
	empty := evaluate(t, newMethod(t), suite, unseen)
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
				t.Fatalf("%s step %d: no recall with the scene", trained[i].Task.ID, tr.Step)
			}
			if d.Guided {
				guided++
				n := 0
				for _, it := range d.Recall.Items {
					if strings.HasPrefix(it.Kind, "guidance_") && it.Used {
						n++
					}
				}
				if n == 0 {
					t.Fatalf("%s step %d: guided without guidance offered: %+v", trained[i].Task.ID, tr.Step, d.Recall)
				}
			}
		}
		for _, tr := range b {
			if tr.Decision.Guided || len(tr.Decision.Recall.Items) > 0 {
				t.Fatalf("empty memory: %s step %d guided or offered memories", empty[i].Task.ID, tr.Step)
			}
		}
	}
	if !differ || guided == 0 {
		t.Errorf("trained memory: %d guided steps, decisions differ from the empty memory's: %v; want both", guided, differ)
	}
	ts, es := runner.Summarize(trained, nil), runner.Summarize(empty, nil)
	t.Logf("valid_unseen[:%d]: success %.2f trained (%d guided steps), %.2f empty; memory %v", len(unseen), ts.SuccessRate, guided, es.SuccessRate, m.Size())
}

var measure = flag.Bool("household", false, "measure offline CDMem on the whole household valid_unseen split")

// TestMeasureHousehold (-household): success on valid_unseen with the
// trained memory and with an empty one.
func TestMeasureHousehold(t *testing.T) {
	if !*measure {
		t.Skip("a measurement: run with -household")
	}
	m, suite, unseen := trainHousehold(t, 5, 9, 0)
	ts := runner.Summarize(evaluate(t, m, suite, unseen), nil)
	es := runner.Summarize(evaluate(t, newMethod(t), suite, unseen), nil)
	t.Logf("valid_unseen success %.3f trained, %.3f empty; memory %v", ts.SuccessRate, es.SuccessRate, m.Size())
}

func TestExpert(t *testing.T) {
	task := envbridge.Task{Goal: "put a hot apple in fridge."}
	steps := []cdmem.Step{
		{Text: "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1, and a microwave 1.\n\nYour task is to: put a hot apple in fridge."},
		{Action: "go to countertop 1", Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 2."},
		{Action: "go to countertop 1", Text: "Nothing happens."},
		{Action: "take apple 1 from countertop 1", Text: "You pick up the apple 1 from the countertop 1."},
		{Action: "go to microwave 1", Text: "You arrive at microwave 1. The microwave 1 is closed."},
		{Action: "heat apple 1 with microwave 1", Text: "You heat the apple 1 using the microwave 1."},
	}
	ex := Roles{}.Expert(task, steps)
	if ex.Functions != "a microwave can heat things" {
		t.Errorf("functions %q", ex.Functions)
	}
	if ex.Actions != "go to countertop 1, take apple 1 from countertop 1, go to microwave 1, heat apple 1 with microwave 1" {
		t.Errorf("actions %q", ex.Actions)
	}
	if !strings.Contains(ex.Locations, "knife 2 in countertop 1") {
		t.Errorf("locations %q", ex.Locations)
	}
	if r := (Roles{}).Reflect(task, false, steps[:2], ex, nil); !strings.HasPrefix(r, "Planning failure") {
		t.Errorf("failure reflection %q", r)
	}
	if r := (Roles{}).Reflect(task, false, steps[:1], ex, nil); !strings.HasPrefix(r, "Search failure") {
		t.Errorf("failure reflection %q", r)
	}
}

func TestSummariesAreUnions(t *testing.T) {
	if got := (Roles{}).SceneSummary("a sink can clean things", []string{"a microwave can heat things; a sink can clean things."}); got != "a sink can clean things; a microwave can heat things" {
		t.Errorf("SceneSummary = %q", got)
	}
	refl := "Task: x\nReflection: " + keyPrefix + thoughtoff.Search + keySep + thoughtoff.TakeHere
	got := Roles{}.TaskSummary([]string{thoughtoff.Search}, true, []string{refl, "Task: y\nReflection: Search failure: z"})
	if want := []string{thoughtoff.Search, thoughtoff.TakeHere, "Search failure: z"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("TaskSummary = %q, want %q", got, want)
	}
}
