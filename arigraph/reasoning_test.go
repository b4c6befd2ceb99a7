package arigraph

import (
	"context"
	"strings"
	"testing"

	"github.com/samem/trainer/ariadne"
	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

func TestSchemasGolden(t *testing.T) {
	for _, s := range []*llm.Schema{ExtractSchema, ReplaceSchema, ExploreSchema} {
		golden.Schema(t, s)
	}
}

// TestRolesStructured: every role reads its JSON answer without repair,
// and nothing from reasoning.
func TestRolesStructured(t *testing.T) {
	c := llmtest.NewChatter(t)
	c.Add(
		llmtest.Scripted{Text: `{"triplets": [{"subject": "Apple", "relation": "in", "object": "fridge"}]}`, Structured: true, Reasoning: "poison, in, reasoning"},
		llmtest.Scripted{Text: `{"replacements": [{"outdated": {"subject": "apple", "relation": "in", "object": "table"}, "actual": {"subject": "apple", "relation": "in", "object": "fridge"}}]}`, Structured: true},
		llmtest.Scripted{Text: `{"needs_exploration": true}`, Structured: true},
		llmtest.Scripted{Text: `{"main_goal": "eat", "plan_steps": [{"sub_goal": "find the apple", "reason": "not found"}], "your_emotion": {"your_current_emotion": "calm", "reason_behind_emotion": "fine"}}`, Structured: true},
		llmtest.Scripted{Text: `{"reason_for_action": "it is there", "action_to_take": "go north"}`, Structured: true},
	)
	l := &LLM{Chat: c}
	m := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), m)
	ts, err := l.Extract(ctx, nil, "o")
	if err != nil || len(ts) != 1 || ts[0] != (Triplet{Subject: "apple", Relation: "in", Object: "fridge"}) {
		t.Errorf("Extract = %v, %v", ts, err)
	}
	old := []Triplet{{Subject: "apple", Relation: "in", Object: "table"}}
	reps, err := l.Outdated(ctx, old, []Triplet{{Subject: "apple", Relation: "in", Object: "fridge"}})
	if err != nil || len(reps) != 1 || reps[0].Old != old[0] {
		t.Errorf("Outdated = %v, %v", reps, err)
	}
	if v, err := l.NeedsExploration(ctx, "p"); err != nil || !v {
		t.Errorf("NeedsExploration = %v, %v", v, err)
	}
	plan, err := l.Plan(ctx, sampleWM())
	if err != nil || !strings.HasPrefix(plan, `{"main_goal": "eat"`) {
		t.Errorf("Plan = %q, %v", plan, err)
	}
	reason, action, err := l.Decide(ctx, sampleWM())
	if err != nil || reason != "it is there" || action != "go north" {
		t.Errorf("Decide = %q, %q, %v", reason, action, err)
	}
	for _, p := range []string{PurposeExtract, PurposeReplace, PurposeExplore, PurposePlan, PurposeDecide} {
		if s := m.Report().ByPurpose[p]; s.Replies != 1 || s.Repaired != 0 || s.Unusable != 0 {
			t.Errorf("%s: %+v", p, s)
		}
	}
	want := []*llm.Schema{ExtractSchema, ReplaceSchema, ExploreSchema, ariadne.PlanSchema, ariadne.DecideSchema}
	for i, r := range c.Requests() {
		if r.Schema.Name != want[i].Name {
			t.Errorf("request %d (%s): schema %s", i, r.Purpose, r.Schema.Name)
		}
	}
	// The decision's action is limited to the possible actions.
	if d := c.Requests()[4].Schema; !strings.Contains(string(d.JSON), `"enum":["go north","go to room a"]`) {
		t.Errorf("decide schema %s", d.JSON)
	}
}

// TestPlanKeptWithoutAnswer: with no usable plan the plan so far stays;
// the reasoning of a cut-off reply is never a plan.
func TestPlanKeptWithoutAnswer(t *testing.T) {
	cut := llmtest.Scripted{Text: `<think>{"main_goal": "poison"}`, FinishReason: "length"}
	c := llmtest.NewChatter(t)
	c.Add(cut, cut, cut)
	wm := sampleWM()
	wm.Plan = `{"main_goal": "kept"}`
	plan, err := (&LLM{Chat: c}).Plan(context.Background(), wm)
	if err != nil || plan != wm.Plan {
		t.Errorf("Plan = %q, %v; want the plan so far", plan, err)
	}
}
