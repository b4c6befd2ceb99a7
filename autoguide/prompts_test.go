package autoguide

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
)

var (
	goal  = "put a hot apple in fridge."
	adm   = []string{"go to countertop 1", "go to microwave 1", "inventory", "look", "take apple 1 from countertop 1"}
	steps = []Step{
		{Text: "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1, and a microwave 1.\n\nYour task is to: put a hot apple in fridge."},
		{Context: "At the start of the task; nothing has been searched yet.", Thought: "Search.", Action: "go to fridge 1", Text: "You arrive at fridge 1. The fridge 1 is closed."},
		{Context: "The searched receptacle is closed; it has to be opened to see inside.", Action: "open fridge 1", Text: "You open the fridge 1. The fridge 1 is open. In it, you see nothing."},
		{Context: "Searching for the object; it is not at this location.", Action: "go to countertop 1", Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1."},
	}
	negSteps = append(append([]Step(nil), steps[:2]...), Step{Action: "inventory", Text: "You are not carrying anything."})
	guides   = []string{"When the object is found here, you should take it from where it is, e.g. take apple 1 from countertop 1.", "When searching for the object, you should not check the inventory."}
)

func TestPromptsGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs func() ([]llm.Message, error)
	}{
		{"act-household", func() ([]llm.Message, error) {
			return ActMessages(envbridge.StyleHousehold, actView{Goal: goal, Guidelines: guides, Reflections: []string{"I never opened the fridge."}, Context: "The object is found here; it has not been taken yet.", Steps: steps, Admissible: adm}, 50)
		}},
		{"act-fiction-omitted", func() ([]llm.Message, error) {
			return ActMessages(envbridge.StyleFiction, actView{Goal: "Find the treasure.", Steps: append([]Step{{Text: "West of House."}}, steps[1:]...)}, 2)
		}},
		{"act-science", func() ([]llm.Message, error) {
			return ActMessages(envbridge.StyleScience, actView{Goal: "boil water.", Context: "In a room without what the task needs.", Steps: []Step{{Text: "This room is called the hallway."}}, Admissible: []string{"look around", "go kitchen"}}, 50)
		}},
		{"context-household", func() ([]llm.Message, error) { return ContextMessages(envbridge.StyleHousehold, goal, steps, 50) }},
		{"context-science", func() ([]llm.Message, error) {
			return ContextMessages(envbridge.StyleScience, "boil water.", steps[:1], 50)
		}},
		{"context-fiction", func() ([]llm.Message, error) { return ContextMessages(envbridge.StyleFiction, "", steps[:1], 50) }},
		{"match", func() ([]llm.Message, error) {
			return MatchMessages([]string{"At the start of the task.", "Searching for the object; it is not at this location."}, "Looking for the object; not here.")
		}},
		{"extract", func() ([]llm.Message, error) {
			return ExtractMessages(goal, "The searched receptacle is closed; it has to be opened to see inside.", steps, negSteps, Deviation(steps, negSteps), 50)
		}},
		{"select", func() ([]llm.Message, error) {
			return SelectMessages(goal, append(guides, "When the object is found here, you should not leave."), "The object is found here; it has not been taken yet.", steps, 2)
		}},
		{"reflect", func() ([]llm.Message, error) {
			return ReflectMessages(goal, describeOutcome(agent.Outcome{Truncated: true, Steps: 50}), steps, 50)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := tc.msgs()
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.name+".golden", golden.Messages(msgs))
		})
	}
	for _, s := range []*llm.Schema{ContextSchema, MatchSchema, ExtractSchema, SelectSchema, ReflectionSchema} {
		golden.Schema(t, s)
	}
}

func TestDeviation(t *testing.T) {
	a := []Step{{Text: "x"}, {Action: "go to A"}, {Action: "open A"}, {Action: "take b"}}
	for _, tc := range []struct {
		b    []Step
		want int
	}{
		{[]Step{{Text: "x"}, {Action: "Go  to a"}, {Action: "close A"}}, 1},
		{[]Step{{Text: "x"}, {Action: "look"}}, 0},
		{a[:2], 1},
		{a, 3},
		{a[:1], 0},
	} {
		if got := Deviation(a, tc.b); got != tc.want {
			t.Errorf("Deviation(a, %v) = %d, want %d", tc.b, got, tc.want)
		}
		if got := Deviation(tc.b, a); got != tc.want {
			t.Errorf("Deviation(%v, a) = %d, want %d", tc.b, got, tc.want)
		}
	}
}

func TestParsers(t *testing.T) {
	if c, err := ParseContext("Reasoning...\nSUMMARIZATION: **The object is found here.**\nmore"); err != nil || c != "The object is found here." {
		t.Errorf("ParseContext = %q, %v", c, err)
	}
	if _, err := ParseContext("SUMMARIZATION:   "); !errors.Is(err, ErrNoContext) {
		t.Errorf("empty context: %v", err)
	}
	for in, want := range map[string]int{"0": 0, "Answer: 2": 2, "None": -1, "none of them": -1, "The label 1 matches.": 1, "null": -1} {
		if got, err := ParseMatch(in, 3); err != nil || got != want {
			t.Errorf("ParseMatch(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"3", "maybe", ""} {
		if _, err := ParseMatch(in, 3); !errors.Is(err, ErrNoMatch) {
			t.Errorf("ParseMatch(%q): %v, want ErrNoMatch", in, err)
		}
	}
	if g, err := ParseGuideline("Reasoning: the good one opened it.\n**Guideline:** When the receptacle is closed, you should open it."); err != nil || g != "When the receptacle is closed, you should open it." {
		t.Errorf("ParseGuideline = %q, %v", g, err)
	}
	if _, err := ParseGuideline("Reasoning: no rule here."); !errors.Is(err, ErrNoGuideline) {
		t.Errorf("no guideline: %v", err)
	}
	for in, want := range map[string][]int{"[1, 3]": {0, 2}, "I pick [2] and [3,3]": {2}, "[]": {}, "```\n[1]\n```": {0}} {
		if got, err := ParseSelect(in, 3); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseSelect(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"1, 2", "[4]", "[0]"} {
		if _, err := ParseSelect(in, 3); !errors.Is(err, ErrNoSelection) {
			t.Errorf("ParseSelect(%q): %v, want ErrNoSelection", in, err)
		}
	}
	if got, _, err := ParseSelectAnswer(replyfmt.Answer{Text: `{"selected":[2,1]}`, Structured: true}, 2); err != nil || !reflect.DeepEqual(got, []int{1, 0}) {
		t.Errorf("structured selection = %v, %v", got, err)
	}
	if got, _, err := ParseMatchAnswer(replyfmt.Answer{Text: `{"match":"None"}`, Structured: true}, 2); err != nil || got != -1 {
		t.Errorf("structured match = %v, %v", got, err)
	}
	if got, _, err := ParseGuidelineAnswer(replyfmt.Answer{Text: `{"reasoning":"r","guideline":"When x, do y."}`, Structured: true}); err != nil || got != "When x, do y." {
		t.Errorf("structured guideline = %q, %v", got, err)
	}
	if r, err := ParseReflection("Reflection: I never opened\n the fridge."); err != nil || r != "I never opened the fridge." {
		t.Errorf("ParseReflection = %q, %v", r, err)
	}
}

func oneLine(t *testing.T, what, in, got string, n int) {
	t.Helper()
	if got == "" || len(got) > n || strings.ContainsAny(got, "\n\t") || !utf8.ValidString(got) || got != strings.TrimSpace(got) {
		t.Fatalf("%s(%q) = %q: empty, too long, multi-line, invalid UTF-8 or untrimmed", what, in, got)
	}
}

func seeds(f *testing.F) {
	for _, s := range []string{"SUMMARIZATION: a", "Guideline:", "[1, 2]", "None", "0", "```", "", "\xff\xfe", strings.Repeat("é", 400), "Reasoning: x\nGuideline: When y, z.", "[99999999999999999999]", "Reflection:"} {
		f.Add(s)
	}
}

func FuzzParseContext(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseContext(s)
		if err != nil {
			if !errors.Is(err, ErrNoContext) || got != "" {
				t.Fatalf("ParseContext(%q) = %q, %v", s, got, err)
			}
			return
		}
		oneLine(t, "ParseContext", s, got, maxContextLen)
	})
}

func FuzzParseMatch(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseMatch(s, 4)
		if err != nil {
			if !errors.Is(err, ErrNoMatch) || got != -1 {
				t.Fatalf("ParseMatch(%q) = %d, %v", s, got, err)
			}
			return
		}
		if got < -1 || got >= 4 {
			t.Fatalf("ParseMatch(%q) = %d: out of range", s, got)
		}
	})
}

func FuzzParseGuideline(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseGuideline(s)
		if err != nil {
			if !errors.Is(err, ErrNoGuideline) || got != "" {
				t.Fatalf("ParseGuideline(%q) = %q, %v", s, got, err)
			}
			return
		}
		oneLine(t, "ParseGuideline", s, got, maxGuidelineLen)
	})
}

func FuzzParseSelect(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSelect(s, 5)
		if err != nil {
			if !errors.Is(err, ErrNoSelection) || got != nil {
				t.Fatalf("ParseSelect(%q) = %v, %v", s, got, err)
			}
			return
		}
		seen := map[int]bool{}
		for _, i := range got {
			if i < 0 || i >= 5 || seen[i] {
				t.Fatalf("ParseSelect(%q) = %v: out of range or repeated", s, got)
			}
			seen[i] = true
		}
	})
}

func FuzzParseReflection(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseReflection(s)
		if err != nil {
			if !errors.Is(err, ErrNoReflection) || got != "" {
				t.Fatalf("ParseReflection(%q) = %q, %v", s, got, err)
			}
			return
		}
		oneLine(t, "ParseReflection", s, got, maxReflectionLen)
	})
}
