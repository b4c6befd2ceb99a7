package offline_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/expel"
	"github.com/samem/trainer/expel/offline"
	llmoff "github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

func newMethod(t *testing.T, cfg expel.Config) *expel.Method {
	t.Helper()
	m, err := expel.New(cfg, expel.Deps{Embed: llmoff.New(256), Offline: offline.Roles()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// splits is the household world (seed 1), perType training tasks of each
// type and the first evalN valid_unseen tasks of each type.
func splits(t *testing.T, perType, evalN int) (envbridge.Suite, []envbridge.Task, []envbridge.Task) {
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
	return suite, runner.PerType(all, perType), runner.PerType(unseen, evalN)
}

func actions(eps []runner.Episode) [][]string {
	out := make([][]string, len(eps))
	for i, ep := range eps {
		for _, tr := range ep.Transitions {
			out[i] = append(out[i], tr.Decision.Action)
		}
	}
	return out
}

// TestTrainedMemoryChangesEval: offline ExpeL trained on the household
// world evaluates held-out tasks differently from ExpeL with an empty
// memory (same seeds, one worker), wins more of them, and its decisions
// recall the insights and trajectories that guided them; each ablation
// differs from the full method.
func TestTrainedMemoryChangesEval(t *testing.T) {
	ctx := context.Background()
	suite, train, unseen := splits(t, 2, 4)
	m := newMethod(t, expel.Config{})
	if _, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: train, Iterations: 3, Workers: 1, Seed: 1, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	ins := m.Insights()
	if len(ins) == 0 {
		t.Fatal("no insights after training")
	}
	tables := m.MemoryTables()
	if len(tables) != 2 || tables[0].Name != "insights" || len(tables[0].Rows) != len(ins) {
		t.Fatalf("memory tables %+v", tables)
	}
	for i, row := range tables[0].Rows {
		if row[1] != strconv.Itoa(ins[i].Count) || row[2] != ins[i].Text {
			t.Errorf("insights row %d %v, want votes %d %q", i, row, ins[i].Count, ins[i].Text)
		}
	}
	eval := func(m agent.Method) ([]runner.Episode, runner.Summary) {
		eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: suite, Tasks: unseen, Workers: 1, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		return eps, runner.Summarize(eps, nil)
	}
	trained, ts := eval(m)
	empty, es := eval(newMethod(t, expel.Config{}))
	t.Logf("valid_unseen (4 per type) success: trained %.2f, empty %.2f", ts.SuccessRate, es.SuccessRate)
	if slices.EqualFunc(actions(trained), actions(empty), slices.Equal) {
		t.Fatal("evaluation with the trained memory decided exactly as with an empty one")
	}
	if ts.SuccessRate <= es.SuccessRate {
		t.Errorf("success %.2f with the trained memory, %.2f with an empty one: want higher", ts.SuccessRate, es.SuccessRate)
	}
	kinds := map[string]int{}
	for _, ep := range trained {
		for _, tr := range ep.Transitions {
			if r := tr.Decision.Recall; r != nil {
				for _, it := range r.Items {
					if it.Used {
						kinds[it.Kind]++
						if !tr.Decision.Guided {
							t.Fatalf("a decision used %s but is not marked guided", it.ID)
						}
					}
				}
			}
		}
	}
	if kinds["insight"] == 0 || kinds["trajectory"] == 0 {
		t.Errorf("decisions used insights %d times and trajectories %d times: want both", kinds["insight"], kinds["trajectory"])
	}
	for _, empty := range [][]runner.Episode{empty} {
		for _, ep := range empty {
			for _, tr := range ep.Transitions {
				if tr.Decision.Guided {
					t.Fatal("an empty memory guided a decision")
				}
			}
		}
	}
	// The ablations load the same memory and show only part of it.
	dir := t.TempDir()
	if err := m.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []expel.Config{{NoInsights: true}, {NoRetrieval: true}} {
		a := newMethod(t, cfg)
		if err := a.Load(ctx, dir); err != nil {
			t.Fatal(err)
		}
		eps, s := eval(a)
		t.Logf("%+v: success %.2f", cfg, s.SuccessRate)
		if slices.EqualFunc(actions(eps), actions(empty), slices.Equal) {
			t.Errorf("%+v decided exactly as an empty memory", cfg)
		}
		for _, ep := range eps {
			for _, tr := range ep.Transitions {
				for _, it := range recallItems(tr.Decision) {
					if cfg.NoInsights && it.Kind == "insight" || cfg.NoRetrieval && it.Kind == "trajectory" {
						t.Fatalf("%+v was shown %s", cfg, it.ID)
					}
				}
			}
		}
	}
}

func recallItems(d agent.Decision) []agent.RecallItem {
	if d.Recall == nil {
		return nil
	}
	return d.Recall.Items
}

// traj builds a household trajectory from (thought, action, observation)
// triples.
func traj(won bool, steps ...[3]string) expel.Trajectory {
	t := expel.Trajectory{TaskID: "t", Goal: "put a clean apple in fridge.", Won: won,
		Start: "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1, and a sinkbasin 1.\n\nYour task is to: put a clean apple in fridge."}
	for _, s := range steps {
		t.Steps = append(t.Steps, expel.Step{Thought: s[0], Action: s[1], Text: s[2]})
	}
	return t
}

var (
	toCounter = [3]string{thoughtoff.Search, "go to countertop 1", "You arrive at countertop 1. On the countertop 1, you see a apple 1."}
	take      = [3]string{thoughtoff.TakeHere, "take apple 1 from countertop 1", "You pick up the apple 1 from the countertop 1."}
	toSink    = [3]string{thoughtoff.ToAppliance, "go to sinkbasin 1", "You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing."}
	toFridge  = [3]string{thoughtoff.ToDest, "go to fridge 1", "You arrive at fridge 1. The fridge 1 is closed."}
	clean     = [3]string{thoughtoff.UseAppliance, "clean apple 1 with sinkbasin 1", "You clean the apple 1 using the sinkbasin 1."}
	look      = [3]string{"Look around to get one's bearings.", "look", "You are facing the countertop 1. Next to it, you see nothing."}
)

func TestReflectNamesStall(t *testing.T) {
	got, err := offline.Reflector{}.Reflect(context.Background(), expel.ReflectInput{Style: envbridge.StyleHousehold, Trajectory: traj(false, toCounter, take, look, look)})
	if err != nil {
		t.Fatal(err)
	}
	want := offline.Rule("carrying the target object that still needs cleaning, heating or cooling", thoughtoff.ToAppliance)
	if got != want {
		t.Errorf("reflection %q, want %q", got, want)
	}
	if got, _ := (offline.Reflector{}).Reflect(context.Background(), expel.ReflectInput{Style: envbridge.StyleFiction, Trajectory: traj(false, look)}); got != "" {
		t.Errorf("fiction reflection %q, want none", got)
	}
}

// TestCompareOps: the compare phase adds the success's thought for the
// situation the failure stalled in, agrees with it once listed, and edits
// an insight of that situation that says otherwise; Apply keeps each op.
func TestCompareOps(t *testing.T) {
	ctx := context.Background()
	succ := traj(true, toCounter, take, toSink)
	fail := traj(false, toCounter, take, look, look)
	in := expel.CompareInput{Style: envbridge.StyleHousehold, Success: succ, Failure: fail}
	ops, err := offline.Extractor{}.Compare(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	rule := offline.Rule("carrying the target object that still needs cleaning, heating or cooling", thoughtoff.ToAppliance)
	if len(ops) != 1 || ops[0].Kind != expel.OpAdd || ops[0].Text != rule {
		t.Fatalf("ops %+v, want ADD %q", ops, rule)
	}
	list, _ := expel.Apply(nil, ops, 10)
	in.Insights = list
	ops, _ = offline.Extractor{}.Compare(ctx, in)
	if len(ops) != 1 || ops[0].Kind != expel.OpAgree || ops[0].Number != 1 {
		t.Fatalf("ops %+v, want AGREE 1", ops)
	}
	other := offline.Rule("carrying the target object that still needs cleaning, heating or cooling", thoughtoff.Inventory)
	in.Insights = []expel.Insight{{Text: other, Count: 2}}
	ops, _ = offline.Extractor{}.Compare(ctx, in)
	if len(ops) != 1 || ops[0].Kind != expel.OpEdit || ops[0].Number != 1 || ops[0].Text != rule {
		t.Fatalf("ops %+v, want EDIT 1 to %q", ops, rule)
	}
	list, n := expel.Apply(in.Insights, ops, 10)
	if n != 1 || len(list) != 1 || list[0] != (expel.Insight{Text: rule, Count: 3}) {
		t.Errorf("after EDIT: %+v (%d applied)", list, n)
	}
}

// TestSuccessOps: the success phase agrees with an insight whose thought
// made progress in a success, removes one whose thought did not, and adds
// the situations no insight covers, at most four operations.
func TestSuccessOps(t *testing.T) {
	succ := traj(true, toCounter, take, toSink, clean, toFridge)
	keep := offline.Rule("the target object has not been found yet", thoughtoff.Search)
	drop := offline.Rule("the target object is here and nothing is carried", thoughtoff.Inventory)
	ops, err := offline.Extractor{}.Successes(context.Background(), expel.SuccessInput{Style: envbridge.StyleHousehold, Successes: []expel.Trajectory{succ}, Insights: []expel.Insight{{Text: keep, Count: 2}, {Text: drop, Count: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range ops {
		got = append(got, o.String())
	}
	want := []string{
		"AGREE 1: " + keep,
		"REMOVE 2: " + drop,
		"ADD 3: " + offline.Rule("carrying the target object that still needs cleaning, heating or cooling, at the right appliance", thoughtoff.UseAppliance),
		"ADD 4: " + offline.Rule("carrying the target object that still needs cleaning, heating or cooling", thoughtoff.ToAppliance),
	}
	if !slices.Equal(got, want) {
		t.Errorf("ops:\n%s\nwant (four at most):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
