package offline_test

import (
	"context"
	"slices"
	"testing"

	"github.com/samem/trainer/awm"
	"github.com/samem/trainer/awm/offline"
	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	llmoff "github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

func newMethod(t *testing.T) *awm.Method {
	t.Helper()
	m, err := awm.New(awm.Config{}, awm.Deps{Embed: llmoff.New(256), Offline: offline.Roles()})
	if err != nil {
		t.Fatal(err)
	}
	return m
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

// TestTrainedMemoryChangesEval: offline AWM trained on the household
// world evaluates held-out tasks differently from AWM with an empty memory
// (same seeds, one worker), wins more of them, and its guided decisions
// recall the workflow that guided them.
func TestTrainedMemoryChangesEval(t *testing.T) {
	ctx := context.Background()
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
	unseen = runner.PerType(unseen, 4)
	m := newMethod(t)
	if _, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: runner.PerType(all, 3), Iterations: 3, Workers: 1, Seed: 1, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if m.Size()["workflows"] == 0 {
		t.Fatal("no workflows after training")
	}
	eval := func(m *awm.Method) ([]runner.Episode, runner.Summary) {
		eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: suite, Tasks: unseen, Workers: 1, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		return eps, runner.Summarize(eps, nil)
	}
	trained, ts := eval(m)
	empty, es := eval(newMethod(t))
	t.Logf("valid_unseen (4 per type) success: trained %.2f, empty %.2f", ts.SuccessRate, es.SuccessRate)
	if slices.EqualFunc(actions(trained), actions(empty), slices.Equal) {
		t.Fatal("evaluation with the trained memory decided exactly as with an empty one")
	}
	if ts.SuccessRate <= es.SuccessRate {
		t.Errorf("success %.2f with the trained memory, %.2f with an empty one: want higher", ts.SuccessRate, es.SuccessRate)
	}
	used := 0
	for _, ep := range trained {
		for _, tr := range ep.Transitions {
			if r := tr.Decision.Recall; r != nil {
				for _, it := range r.Items {
					if it.Used {
						used++
						if it.Kind != "workflow" || !tr.Decision.Guided {
							t.Fatalf("used item %+v in a decision guided=%v", it, tr.Decision.Guided)
						}
					}
				}
			}
		}
	}
	if used == 0 {
		t.Error("no decision was guided by a workflow")
	}
}

// TestInduceRuleBased: a success becomes one workflow of the steps that
// changed what the agent knew, with the task's values as variables; a
// second success with the same abstract actions adds none.
func TestInduceRuleBased(t *testing.T) {
	start := "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1, and a microwave 1.\n\nYour task is to: put a hot apple in fridge."
	tr := awm.Trajectory{TaskID: "a", Goal: "put a hot apple in fridge.", Start: start, Steps: []awm.Step{
		{Thought: thoughtoff.Search, Action: "go to countertop 1", Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1."},
		{Thought: thoughtoff.Inventory, Action: "inventory", Text: "You are not carrying anything."},
		{Thought: thoughtoff.TakeHere, Action: "take apple 1 from countertop 1", Text: "You pick up the apple 1 from the countertop 1."},
		{Thought: thoughtoff.ToAppliance, Action: "go to microwave 1", Text: "You arrive at microwave 1. The microwave 1 is closed."},
	}}
	other := tr
	other.TaskID = "b"
	ws, err := offline.Inducer{}.Induce(context.Background(), awm.InduceInput{Style: envbridge.StyleHousehold, Group: "heat", Examples: []awm.Trajectory{tr, other}})
	if err != nil {
		t.Fatal(err)
	}
	want := []awm.WStep{
		{State: belief.SitSearch, Reasoning: thoughtoff.Search, Action: "go to {receptacle}"},
		{State: belief.SitHere, Reasoning: thoughtoff.TakeHere, Action: "take {target object} from {receptacle}"},
		{State: belief.SitProcess, Reasoning: thoughtoff.ToAppliance, Action: "go to {appliance}"},
	}
	if len(ws) != 1 || !slices.Equal(ws[0].Steps, want) {
		t.Errorf("workflows %+v, want one with steps %+v", ws, want)
	}
}
