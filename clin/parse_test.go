package clin

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseAbstraction(t *testing.T) {
	tests := []struct {
		in   string
		want Abstraction
		ok   bool
	}{
		{"1. Looking around MAY BE NECESSARY to gather information about the environment.",
			Abstraction{Kind: Necessary, Modifier: ModMay, X: "Looking around", Y: "gather information about the environment"}, true},
		{"2. Moving to the greenhouse SHOULD BE NECESSARY to find the pea seeds.",
			Abstraction{Kind: Necessary, Modifier: ModShould, X: "Moving to the greenhouse", Y: "find the pea seeds"}, true},
		{"Waiting SHOULD BE NECESSARY for the pea plants to grow and show their traits.",
			Abstraction{Kind: Necessary, Modifier: ModShould, X: "Waiting", Y: "the pea plants to grow and show their traits"}, true},
		{"10. Moving to the workshop DOES NOT CONTRIBUTE to determining the trait.",
			Abstraction{Kind: NotContribute, X: "Moving to the workshop", Y: "determining the trait"}, true},
		{"- opening the fridge is necessary to access apple juice",
			Abstraction{Kind: Necessary, X: "opening the fridge", Y: "access apple juice"}, true},
		{"6. Waiting for a certain period MAY CONTRIBUTE to observing the friction effect.",
			Abstraction{Kind: Necessary, Modifier: ModMay, X: "Waiting for a certain period", Y: "observing the friction effect"}, true},
		{"X MAY BE CONTRIBUTE to Y.", Abstraction{Kind: Necessary, Modifier: ModMay, X: "X", Y: "Y"}, true},
		{"**Picking the lighter** MAY NOT CONTRIBUTE to the task.",
			Abstraction{Kind: NotContribute, Modifier: ModMay, X: "Picking the lighter", Y: "the task"}, true},
		{"3) going to the bed doesn't contribute to finding the mug",
			Abstraction{Kind: NotContribute, X: "going to the bed", Y: "finding the mug"}, true},
		{"looking is not necessary to finding the mug.",
			Abstraction{Kind: NotContribute, X: "looking", Y: "finding the mug"}, true},
		{"heating the target object with the microwave SHOULD NOT CONTRIBUTE to cooling it.",
			Abstraction{Kind: NotContribute, Modifier: ModShould, X: "heating the target object with the microwave", Y: "cooling it"}, true},
		{"Summary of learning as a numbered list:", Abstraction{}, false},
		{"NECESSARY to Y.", Abstraction{}, false},
		{"X is NECESSARY to", Abstraction{}, false},
		{"", Abstraction{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseAbstraction(tt.in)
			if ok != tt.ok || got != tt.want {
				t.Errorf("ParseAbstraction(%q) = %+v, %v, want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestRenderParseRoundTrip(t *testing.T) {
	for _, k := range []Kind{Necessary, NotContribute} {
		for _, m := range []Modifier{ModNone, ModMay, ModShould} {
			a := Abstraction{Kind: k, Modifier: m, X: "opening a closed receptacle", Y: "finding the target object"}
			got, ok := ParseAbstraction(a.String())
			if !ok || got != a {
				t.Errorf("ParseAbstraction(%q) = %+v, %v, want %+v", a.String(), got, ok, a)
			}
		}
	}
}

func TestParseMemory(t *testing.T) {
	reply := "Here is the summary.\nSummary of learning as a numbered list:\n" +
		"1. Opening the fridge SHOULD BE NECESSARY to find the apple. 2. Going to the bed DOES NOT CONTRIBUTE to finding the apple.\n" +
		"\n3. Taking the apple MAY BE NECESSARY to heat it.\nThat is all."
	got := ParseMemory(reply)
	want := []Abstraction{
		{Kind: Necessary, Modifier: ModShould, X: "Opening the fridge", Y: "find the apple"},
		{Kind: NotContribute, X: "Going to the bed", Y: "finding the apple"},
		{Kind: Necessary, Modifier: ModMay, X: "Taking the apple", Y: "heat it"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseMemory = %+v, want %+v", got, want)
	}
}

func TestParseReply(t *testing.T) {
	tests := []struct {
		in   string
		want Reply
		ok   bool
	}{
		{"I used learning id(s): 1, 3 $$$ I need to find the apple first. ### go to fridge 1",
			Reply{Used: []int{1, 3}, Rationale: "I need to find the apple first.", Action: "go to fridge 1"}, true},
		{"I used learning id(s):\n$$$ Nothing applies; explore.\n### `open cabinet 2`.",
			Reply{Rationale: "Nothing applies; explore.", Action: "open cabinet 2"}, true},
		{"Rationale: the apple is hot now.\nAction: put apple 1 in/on countertop 1",
			Reply{Rationale: "Rationale: the apple is hot now.", Action: "put apple 1 in/on countertop 1"}, true},
		{"I used learning id(s): 2 $$$ ###", Reply{Used: []int{2}}, false},
		{"", Reply{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseReply(tt.in)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseReply(%q) = %+v, %v, want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseMemory(f *testing.F) {
	for _, s := range []string{
		"1. Looking around MAY BE NECESSARY to gather information.",
		"X DOES NOT CONTRIBUTE to Y. 2. A SHOULD BE NECESSARY to B.",
		"doesn't contribute", "necessary", "1.", "is necessary to .", "\x00NECESSARY\r\nto",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, a := range ParseMemory(s) {
			if a.X == "" || a.Y == "" {
				t.Fatalf("ParseMemory(%q) gave an empty side: %+v", s, a)
			}
			if a.Kind != Necessary && a.Kind != NotContribute {
				t.Fatalf("bad kind %q", a.Kind)
			}
			// A rendered item reads back as the same relation.
			b, ok := ParseAbstraction(a.String())
			if !ok || b.Kind != a.Kind || b.Modifier != a.Modifier {
				t.Fatalf("round trip of %q from %q: %+v, %v", a.String(), s, b, ok)
			}
		}
	})
}

func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		"I used learning id(s): 1, 3 $$$ why ### go to fridge 1",
		"Action: look", "###", "$$$###", "I used learning id(s): 99999999999999999999",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := ParseReply(s)
		if ok && strings.TrimSpace(r.Action) == "" {
			t.Fatalf("ParseReply(%q) ok with empty action", s)
		}
		for _, id := range r.Used {
			if id <= 0 {
				t.Fatalf("ParseReply(%q) used id %d", s, id)
			}
		}
	})
}
