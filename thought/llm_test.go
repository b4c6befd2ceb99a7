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

// wordEmbedder embeds a text as a bag of its words (tests only).
type wordEmbedder struct{}

func (wordEmbedder) Model() string { return "test-words" }
func (wordEmbedder) Dim() int      { return 64 }
func (wordEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		var n float32
		for _, w := range strings.Fields(t) {
			h := 0
			for _, c := range w {
				h = (h*31 + int(c)) % 64
			}
			v[h]++
			n++
		}
		var norm float32
		for _, x := range v {
			norm += x * x
		}
		if norm > 0 {
			for j := range v {
				v[j] /= float32(sqrt(float64(norm)))
			}
		}
		out[i] = v
	}
	return out, nil
}

func sqrt(x float64) float64 {
	z := x
	for i := 0; i < 30; i++ {
		z -= (z*z - x) / (2 * z)
	}
	return z
}

func TestMatchAdmissible(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		act, want string
		ok        bool
	}{
		{"look", "look", true},
		{"  LOOK. ", "look", true},
		{"go to countertop 1 now", "", false},
		{"take apple 1 from countertop 1 1", "take apple 1 from countertop 1", true}, // same bag of words but one
		{"", "", false},
	} {
		got, _, ok, err := MatchAdmissible(ctx, wordEmbedder{}, tc.act, adm)
		if err != nil || ok != tc.ok || got != tc.want {
			t.Errorf("MatchAdmissible(%q) = %q, %v, %v; want %q, %v", tc.act, got, ok, err, tc.want, tc.ok)
		}
	}
	if got, _, ok, _ := MatchAdmissible(ctx, nil, " open door ", nil); !ok || got != "open door" {
		t.Errorf("free-form MatchAdmissible = %q, %v", got, ok)
	}
}
