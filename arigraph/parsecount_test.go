package arigraph

import (
	"context"
	"testing"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

// TestRolesCountReplies: the exploration check and the
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

// Extraction and the outdated-triplet check count their replies too: "[]"
// (nothing out of date, as the prompt asks) is a used reply, a reply with
// nothing readable in it is unusable and skipped.
func TestListRolesCountReplies(t *testing.T) {
	c := llmtest.NewChatter(t,
		"apple, in, fridge",                  // extraction used
		"I see nothing worth noting here.",   // extraction unusable
		"[]",                                 // nothing out of date: used
		"```\n\"[]\"\n```",                   // repaired
		"Hard to say what changed, honestly", // unusable
	)
	l := &LLM{Chat: c}
	m := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), m)
	for range 2 {
		if _, err := l.Extract(ctx, nil, "You see an apple in the fridge."); err != nil {
			t.Fatal(err)
		}
	}
	old := []Triplet{{Subject: "apple", Relation: "in", Object: "table"}}
	fresh := []Triplet{{Subject: "apple", Relation: "in", Object: "fridge"}}
	for range 3 {
		if _, err := l.Outdated(ctx, old, fresh); err != nil {
			t.Fatal(err)
		}
	}
	r := m.Report()
	if s := r.ByPurpose[PurposeExtract]; s.Replies != 2 || s.Unusable != 1 || s.Skipped != 1 {
		t.Errorf("%s: %+v; want 2 replies, 1 unusable and skipped", PurposeExtract, s)
	}
	if s := r.ByPurpose[PurposeReplace]; s.Replies != 3 || s.Repaired != 1 || s.Unusable != 1 || s.Skipped != 1 {
		t.Errorf("%s: %+v; want 3 replies, 1 repaired, 1 unusable and skipped", PurposeReplace, s)
	}
}
