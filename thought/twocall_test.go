package thought

import (
	"context"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
)

// TestTwoCallPromptsGolden pins both calls of seed 002's pipeline: the
// thought prompt (state and guidance, no observation, no admissible list)
// and the action prompt (the thought, the observation, the admissible list).
func TestTwoCallPromptsGolden(t *testing.T) {
	in := Input{State: "You have found the target object.", Obs: envbridge.Observation{Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1.", Admissible: adm}}
	for _, tc := range []struct {
		name   string
		style  envbridge.Style
		guide  string
		action bool
	}{
		{"household-free", envbridge.StyleHousehold, "", false},
		{"household-guided", envbridge.StyleHousehold, "Take the target object from the receptacle here.", false},
		{"household-action-guided", envbridge.StyleHousehold, "take apple 1 from countertop 1", true},
		{"science", envbridge.StyleScience, "", false},
		{"fiction", envbridge.StyleFiction, "Explore a direction not taken yet.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := in
			in.Guide, in.GuideIsAction = tc.guide, tc.action
			msgs, err := ThoughtMessages(tc.style, "put a clean apple in fridge.", in)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "think-"+tc.name+".golden", golden.Messages(msgs))
		})
	}
	msgs, err := ActMessages("put a clean apple in fridge.", "Take the target object from the receptacle here.", in.Obs)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "act-household.golden", golden.Messages(msgs))
}

// TestTwoCallPipeline: the thought comes from a call that sees the state and
// not the observation or the actions; the action from a second call that
// sees the thought; an inadmissible action is retried in the action call
// only.
func TestTwoCallPipeline(t *testing.T) {
	sc := &script{replies: []string{
		"Thought: Pick up the target object where it lies.",
		"Action: grab the apple",
		"Action: take apple 1 from countertop 1",
	}}
	in := Input{State: "The target object lies right here.", Obs: envbridge.Observation{Text: "On the countertop 1, you see a apple 1.", Admissible: adm}}
	d, err := NewLLM(sc, nil).Begin(envbridge.Task{Goal: "put an apple in fridge."}, envbridge.StyleHousehold, nil).Think(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Thought != "Pick up the target object where it lies." || d.Action != "take apple 1 from countertop 1" || !d.Matched || d.Attempts != 3 {
		t.Errorf("Think = %+v", d)
	}
	if len(sc.reqs) != 3 || sc.reqs[0].Purpose != Purpose || sc.reqs[1].Purpose != PurposeAct || sc.reqs[2].Purpose != PurposeAct {
		t.Fatalf("%d requests", len(sc.reqs))
	}
	first := golden.Messages(sc.reqs[0].Messages)
	if !strings.Contains(string(first), in.State) || strings.Contains(string(first), "countertop 1") || strings.Contains(string(first), "Action:") {
		t.Errorf("thought call must see the state only, no observation, actions or action format:\n%s", first)
	}
	second := golden.Messages(sc.reqs[1].Messages)
	if !strings.Contains(string(second), "Thought: Pick up the target object where it lies.") || !strings.Contains(string(second), "take apple 1 from countertop 1") {
		t.Errorf("action call lacks the thought or the admissible list:\n%s", second)
	}
	retry := sc.reqs[2].Messages
	if got := retry[len(retry)-1].Content; !strings.Contains(got, `"grab the apple" is not one of the admissible actions`) {
		t.Errorf("feedback = %q", got)
	}
}
