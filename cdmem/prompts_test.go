package cdmem

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
		{Thought: "Search.", Action: "go to fridge 1", Text: "You arrive at fridge 1. The fridge 1 is closed."},
		{Action: "open fridge 1", Text: "You open the fridge 1. The fridge 1 is open. In it, you see nothing."},
		{Action: "go to countertop 1", Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1."},
	}
	expert = Expert{Locations: "apple 1 is on countertop 1.", Functions: "None", Actions: "go to fridge 1, open fridge 1, go to countertop 1"}
)

func TestPromptsGolden(t *testing.T) {
	view := View{
		Scene:       "the microwave heats things; the sinkbasin cleans things.",
		Guidance:    []string{"Locate the object and take it.", "Heat it with the microwave.", "When the destination is closed, open it before putting the object."},
		Reflections: []string{"Search failure: I searched the fridge only; search the countertops first."},
		Exemplars:   [][]Step{steps[:2], steps},
	}
	for _, tc := range []struct {
		name string
		msgs func() ([]llm.Message, error)
	}{
		{"act-household", func() ([]llm.Message, error) {
			return ActMessages(envbridge.StyleHousehold, goal, view, steps, adm, Config{})
		}},
		{"act-household-empty", func() ([]llm.Message, error) {
			return ActMessages(envbridge.StyleHousehold, goal, View{}, steps[:1], adm, Config{})
		}},
		{"act-science-omitted", func() ([]llm.Message, error) {
			return ActMessages(envbridge.StyleScience, "boil water.", View{Exemplars: [][]Step{steps}}, steps, nil, Config{MaxHistory: 2, ExemplarSteps: 2})
		}},
		{"act-fiction", func() ([]llm.Message, error) {
			return ActMessages(envbridge.StyleFiction, "Find the treasure.", View{Guidance: []string{"Open every container."}}, []Step{{Text: "West of House."}}, nil, Config{})
		}},
		{"expert", func() ([]llm.Message, error) { return ExpertMessages(goal, steps, 50) }},
		{"reflect-success", func() ([]llm.Message, error) {
			return ReflectMessages(goal, describeOutcome(agent.Outcome{Won: true, Steps: 3}), true, steps, expert, nil, 50)
		}},
		{"reflect-failure", func() ([]llm.Message, error) {
			return ReflectMessages(goal, describeOutcome(agent.Outcome{Truncated: true, Steps: 50}), false, steps, expert, []string{"I never opened the fridge."}, 50)
		}},
		{"scene", func() ([]llm.Message, error) {
			return SceneMessages("the microwave heats things.", []string{"the sinkbasin cleans the apple.", "the fridge cools the potato."})
		}},
		{"scene-first", func() ([]llm.Message, error) { return SceneMessages("", []string{"the sinkbasin cleans the apple."}) }},
		{"task-success", func() ([]llm.Message, error) {
			return TaskMessages([]string{"Locate the object and take it."}, true, []string{"Task: heat some egg and put it in diningtable.\nReflection: Heating the egg was essential."})
		}},
		{"task-fail", func() ([]llm.Message, error) {
			return TaskMessages(nil, false, []string{"Task: put a clean cloth in bathtubbasin.\nReflection: Operation failure: cleaning needs the sinkbasin."})
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
	for _, s := range []*llm.Schema{ExpertSchema, ReflectionSchema, SceneSchema, TaskSchema} {
		golden.Schema(t, s)
	}
}

func TestSceneKey(t *testing.T) {
	if got := SceneKey("\n  You are in the middle of a room. Looking quickly around you, you see a bed 1.\n\nYour task is to: x"); got != "You are in the middle of a room. Looking quickly around you, you see a bed 1." {
		t.Errorf("SceneKey = %q", got)
	}
}

func TestParsers(t *testing.T) {
	ex, err := ParseExpert("Expert Observations: (1)locations: apple 1 is on countertop 1. (2)functions: the microwave heats things.\n**Expert Actions:** go to countertop 1, take apple 1")
	if want := (Expert{Locations: "apple 1 is on countertop 1.", Functions: "the microwave heats things.", Actions: "go to countertop 1, take apple 1"}); err != nil || ex != want {
		t.Errorf("ParseExpert = %+v, %v; want %+v", ex, err, want)
	}
	if ex, err := ParseExpert("I went to the countertop and took the apple."); err != nil || ex.Actions != "I went to the countertop and took the apple." || ex.Locations != "" || ex.Functions != "" {
		t.Errorf("unlabelled expert reply = %+v, %v: want the text as the actions", ex, err)
	}
	if _, err := ParseExpert("  "); !errors.Is(err, ErrNoExpert) {
		t.Errorf("empty expert reply: %v", err)
	}
	if s, err := ParseScene("Thinking.\nSummary: the microwave heats things;\nthe sink cleans things."); err != nil || s != "the microwave heats things; the sink cleans things." {
		t.Errorf("ParseScene = %q, %v", s, err)
	}
	if g, err := ParseGuidance("Here it is.\nGuidance:\n1. Locate the object.\n2) **Heat** it.\n- Put it down.\nDone."); err != nil || !reflect.DeepEqual(g, []string{"Locate the object.", "Heat it.", "Put it down."}) {
		t.Errorf("ParseGuidance = %q, %v", g, err)
	}
	if _, err := ParseGuidance("Guidance: none"); !errors.Is(err, ErrNoGuidance) {
		t.Errorf("no items: %v", err)
	}
	if g, _, err := ParseGuidanceAnswer(replyfmt.Answer{Text: `{"guidance":["a"," ","b"]}`, Structured: true}); err != nil || !reflect.DeepEqual(g, []string{"a", "b"}) {
		t.Errorf("structured guidance = %q, %v", g, err)
	}
	if ex, _, err := ParseExpertAnswer(replyfmt.Answer{Text: `{"locations":"l","functions":"None","actions":"a"}`, Structured: true}); err != nil || ex.Actions != "a" {
		t.Errorf("structured expert = %+v, %v", ex, err)
	}
	if r, err := ParseReflection("Reflection: Search failure:\n I looked once."); err != nil || r != "Search failure: I looked once." {
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
	for _, s := range []string{"Expert Observations: (1)locations: a (2)functions: b\nExpert Actions: c", "(2)functions:", "Summary:", "Guidance:\n1. a\n2. b", "Reflection:", "```", "", "\xff\xfe", strings.Repeat("é", 600), "1.\n2)\n- \n* x"} {
		f.Add(s)
	}
}

func FuzzParseExpert(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		ex, err := ParseExpert(s)
		if err != nil {
			if !errors.Is(err, ErrNoExpert) || ex != (Expert{}) {
				t.Fatalf("ParseExpert(%q) = %+v, %v", s, ex, err)
			}
			return
		}
		if ex == (Expert{}) {
			t.Fatalf("ParseExpert(%q): empty without an error", s)
		}
		for _, v := range []string{ex.Locations, ex.Functions, ex.Actions} {
			if v != "" {
				oneLine(t, "ParseExpert", s, v, maxFieldLen)
			}
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

func FuzzParseScene(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseScene(s)
		if err != nil {
			if !errors.Is(err, ErrNoSummary) || got != "" {
				t.Fatalf("ParseScene(%q) = %q, %v", s, got, err)
			}
			return
		}
		oneLine(t, "ParseScene", s, got, maxSummaryLen)
	})
}

func FuzzParseGuidance(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseGuidance(s)
		if err != nil {
			if !errors.Is(err, ErrNoGuidance) || got != nil {
				t.Fatalf("ParseGuidance(%q) = %q, %v", s, got, err)
			}
			return
		}
		if len(got) == 0 || len(got) > maxItems {
			t.Fatalf("ParseGuidance(%q) = %d items", s, len(got))
		}
		for _, g := range got {
			oneLine(t, "ParseGuidance", s, g, maxItemLen)
		}
	})
}
