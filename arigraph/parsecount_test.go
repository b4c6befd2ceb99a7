package arigraph

import (
	"context"
	"testing"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

// TestRolesCountReplies: the exploration check and the
// ReAct decision count every reply in the method's meter (carried by the
// context): used, repaired (decorated) or unusable, asked again twice and
// then the fallback taken.
func TestRolesCountReplies(t *testing.T) {
	c := llmtest.NewChatter(t,
		"True", // used as it is
		"Sure! Here is my answer.\n```\nFalse\n```",              // repaired
		"I cannot tell from the plan.", "Unclear.", "Who knows.", // unusable: no exploration (fell back)
		`{"reason_for_action": "x", "action_to_take": "look"}`,
		"**Action:** go north.",                                                              // repaired
		"I would rather think about this some more, as the situation is complex and unclear", // unusable
		"I would rather think about this some more, as the situation is complex and unclear",
		"I would rather think about this some more, as the situation is complex and unclear",
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
		if s != (llm.Stats{Replies: 5, Repaired: 1, Unusable: 3, AskedAgain: 2, FellBack: 1}) {
			t.Errorf("%s: %+v; want 5 replies, 1 repaired, 3 unusable: 2 asked again, 1 fell back", role, s)
		}
	}
}

// Extraction and the outdated-triplet check count their replies too: "[]"
// (nothing out of date, as the prompt asks) is a used reply, a reply with
// nothing readable in it is unusable and skipped.
func TestListRolesCountReplies(t *testing.T) {
	c := llmtest.NewChatter(t,
		"apple, in, fridge",                                               // extraction used
		"I see nothing worth noting here.", "Nothing.", "Nothing at all.", // extraction unusable
		"[]",                                                             // nothing out of date: used
		"```\n\"[]\"\n```",                                               // repaired
		"Hard to say what changed, honestly", "Hard to say.", "No idea.", // unusable
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
	if s := r.ByPurpose[PurposeExtract]; s != (llm.Stats{Replies: 4, Unusable: 3, AskedAgain: 2, Skipped: 1}) {
		t.Errorf("%s: %+v; want 4 replies, 3 unusable: 2 asked again, 1 skipped", PurposeExtract, s)
	}
	if s := r.ByPurpose[PurposeReplace]; s != (llm.Stats{Replies: 5, Repaired: 1, Unusable: 3, AskedAgain: 2, Skipped: 1}) {
		t.Errorf("%s: %+v; want 5 replies, 1 repaired, 3 unusable: 2 asked again, 1 skipped", PurposeReplace, s)
	}
}
