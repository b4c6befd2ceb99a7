package arigraph

import (
	"context"
	"testing"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

// TestRolesCountReplies (issue 19 point 3): the exploration check and the
// ReAct decision count every reply in the method's meter (carried by the
// context): used, repaired (decorated) or unusable with the fallback taken.
func TestRolesCountReplies(t *testing.T) {
	c := llmtest.NewChatter(t,
		"True", // used as it is
		"Sure! Here is my answer.\n```\nFalse\n```", // repaired
		"I cannot tell from the plan.",              // unusable: no exploration (fell back)
		`{"reason_for_action": "x", "action_to_take": "look"}`,
		"**Action:** go north.",                                                              // repaired
		"I would rather think about this some more, as the situation is complex and unclear", // unusable
	)
	l := &LLM{Chat: c}
	m := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), m)
	for range 3 {
		if _, err := l.NeedsExploration(ctx, "p"); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if _, _, err := l.Decide(ctx, sampleWM()); err != nil {
			t.Fatal(err)
		}
	}
	r := m.Report()
	for _, role := range []string{PurposeExplore, PurposeDecide} {
		s := r.ByPurpose[role]
		if s.Replies != 3 || s.Repaired != 1 || s.Unusable != 1 || s.FellBack != 1 {
			t.Errorf("%s: %+v; want 3 replies, 1 repaired, 1 unusable that fell back", role, s)
		}
	}
}
