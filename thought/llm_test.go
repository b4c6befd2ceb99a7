package thought

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm"
)

var adm = []string{"go to countertop 1", "go to fridge 1", "inventory", "look", "take apple 1 from countertop 1"}

func TestPromptsGolden(t *testing.T) {
	in := Input{State: "You have found the target object.", Obs: envbridge.Observation{Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1.", Admissible: adm}}
	for _, tc := range []struct {
		name  string
		style envbridge.Style
		guide string
		adm   bool
	}{
		{"household-free", envbridge.StyleHousehold, "", true},
		{"household-guided", envbridge.StyleHousehold, "Take the target object from the receptacle here.", true},
		{"science", envbridge.StyleScience, "", true},
		{"fiction", envbridge.StyleFiction, "Explore a direction not taken yet.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := in
			in.Guide = tc.guide
			if !tc.adm {
				in.Obs.Admissible = nil
			}
			msgs, err := Messages(tc.style, "put a clean apple in fridge.", in)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "prompt-"+tc.name+".golden", golden.Messages(msgs))
		})
	}
}

func TestParseReply(t *testing.T) {
	for _, tc := range []struct{ in, th, act string }{
		{"Thought: Find it first.\nAction: go to countertop 1", "Find it first.", "go to countertop 1"},
		{"**Thought:** a b\n**Action:** `look`.", "a b", "look"},
		{"thought: x action: inventory", "x", "inventory"},
		{"Thought: only a thought", "only a thought", ""},
		{"Action: look", "", "look"},
		{"just prose", "just prose", ""},
		{"Thought: t\nAction: go to fridge 1\nExplanation: more", "t", "go to fridge 1"},
		// A one-line reply quoted whole (a decorated thought-only call of
		// the two-call pipeline, a CI finding): the quotes are not the thought's.
		{"\"Thought: look around, then go where the objects are.\"", "look around, then go where the objects are.", ""},
		{"\"Thought: t\nAction: look\"", "t", "look"},
	} {
		th, act, err := ParseReply(tc.in)
		if err != nil || th != tc.th || act != tc.act {
			t.Errorf("ParseReply(%q) = %q, %q, %v; want %q, %q", tc.in, th, act, err, tc.th, tc.act)
		}
	}
	if _, _, err := ParseReply(" \n "); !errors.Is(err, ErrNoThought) {
		t.Errorf("ParseReply(blank) error = %v", err)
	}
}

func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"Thought: a\nAction: b", "Action:", "thought:action:", "**", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, act, err := ParseReply(s)
		if err == nil && th == "" && act == "" {
			t.Fatalf("ParseReply(%q) gave nothing without error", s)
		}
		if strings.Contains(act, "\n") || len(act) > 200 || len(th) > 1000 {
			t.Fatalf("ParseReply(%q) action %q / thought length %d out of bounds", s, act, len(th))
		}
	})
}

// script answers with the given replies in order and fails when it runs out.
type script struct {
	replies []string
	reqs    []llm.Request
}

func (s *script) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	if len(s.reqs) >= len(s.replies) {
		return llm.Response{}, fmt.Errorf("script: no reply left for request %d", len(s.reqs)+1)
	}
	s.reqs = append(s.reqs, req)
	return llm.Response{Text: s.replies[len(s.reqs)-1]}, nil
}

func TestThinkRetriesWithFeedback(t *testing.T) {
	sc := &script{replies: []string{"Thought: a\nAction: grab the apple", "Thought: b\nAction: Take apple 1 from countertop 1."}}
	th := NewLLM(sc, nil)
	th.OneCall = true
	d, err := th.Begin(envbridge.Task{Goal: "g"}, envbridge.StyleHousehold, nil).Think(context.Background(), Input{State: "s", Obs: envbridge.Observation{Text: "o", Admissible: adm}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != "take apple 1 from countertop 1" || !d.Matched || d.Attempts != 2 || d.Thought != "b" {
		t.Errorf("Think = %+v", d)
	}
	second := sc.reqs[1].Messages
	if got := second[len(second)-1].Content; !strings.Contains(got, `"grab the apple" is not one of the admissible actions`) {
		t.Errorf("feedback message = %q", got)
	}
}

func TestThinkGivesUpAfterMaxAttempts(t *testing.T) {
	sc := &script{replies: []string{"Thought: a\nAction: fly", "Thought: a\nAction: fly", "Thought: a\nAction: fly"}}
	one := NewLLM(sc, nil)
	one.OneCall = true
	d, err := one.Begin(envbridge.Task{}, envbridge.StyleHousehold, nil).Think(context.Background(), Input{Obs: envbridge.Observation{Admissible: adm}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Matched || d.Action != "fly" || d.Attempts != DefaultMaxAttempts || len(sc.reqs) != DefaultMaxAttempts {
		t.Errorf("Think = %+v after %d requests", d, len(sc.reqs))
	}
}
