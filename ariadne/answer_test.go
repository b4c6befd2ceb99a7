package ariadne

import (
	"context"
	"testing"

	"github.com/samem/trainer/internal/golden"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

func TestSchemasGolden(t *testing.T) {
	for _, s := range []*llm.Schema{PlanSchema, DecideSchema} {
		golden.Schema(t, s)
	}
}

// TestParseDecisionAnswer: the asked JSON is read as it is, a decorated or
// free-form text is repaired, and a structured answer without an action
// is not ok.
func TestParseDecisionAnswer(t *testing.T) {
	tests := []struct {
		a                  replyfmt.Answer
		reason, action     string
		repaired, wantedOK bool
	}{
		{replyfmt.Answer{Text: `{"reason_for_action": "r", "action_to_take": "take key 1"}`, Structured: true}, "r", "take key 1", false, true},
		{replyfmt.Answer{Text: `{"reason_for_action": "r", "action_to_take": "take key 1"}`}, "r", "take key 1", false, true},
		{replyfmt.Answer{Text: "**Action:** go north."}, "", "go north", true, true},
		{replyfmt.Answer{Text: `{"reason_for_action": "r", "action_to_take": ""}`, Structured: true}, "r", "", false, false},
	}
	for _, tc := range tests {
		r, a, rep, ok := ParseDecisionAnswer(tc.a)
		if r != tc.reason || a != tc.action || rep != tc.repaired || ok != tc.wantedOK {
			t.Errorf("ParseDecisionAnswer(%+v) = %q, %q, %v, %v", tc.a, r, a, rep, ok)
		}
	}
}

// TestPlanOrKeepAndDecideOrNot: an unusable plan is asked again and then
// the plan so far stays; an unreadable decision gives no action; both count
// every reply.
func TestPlanOrKeepAndDecideOrNot(t *testing.T) {
	cut := llmtest.Scripted{Text: `<think>{"main_goal": "poison"}`, FinishReason: "length"}
	c := llmtest.NewChatter(t)
	// More than a line's worth of prose, with no action in it.
	noAction := llmtest.Scripted{Text: "I would rather think about this some more, as the situation is complex and unclear"}
	c.Add(cut, cut, cut, noAction, noAction, noAction)
	m := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), m)
	req := func(p string, s *llm.Schema) llm.Request {
		return llm.Request{Purpose: p, Messages: []llm.Message{{Role: "user", Content: "q"}}, Schema: s}
	}
	plan, err := PlanOrKeep(ctx, c, req("t.plan", PlanSchema), "kept")
	if err != nil || plan != "kept" {
		t.Errorf("PlanOrKeep = %q, %v; want the plan so far", plan, err)
	}
	reason, action, err := DecideOrNot(ctx, c, req("t.decide", DecideSchema))
	if err != nil || reason != "" || action != "" {
		t.Errorf("DecideOrNot = %q, %q, %v; want no action", reason, action, err)
	}
	r := m.Report()
	for _, p := range []string{"t.plan", "t.decide"} {
		if s := r.ByPurpose[p]; s.Replies != 3 || s.Unusable != 3 || s.AskedAgain != 2 || s.FellBack != 1 {
			t.Errorf("%s: %+v; want 3 unusable replies, 2 asked again, 1 fell back", p, s)
		}
	}
}
