package expel

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
)

var sample = Trajectory{TaskID: "train-7", Type: "pick_heat_then_place_in_recep", Goal: "put a hot apple in fridge.",
	Start: "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1, and a microwave 1.\n\nYour task is to: put a hot apple in fridge.",
	Steps: []Step{
		{Thought: "The apple is likely on the countertop.", Action: "go to countertop 1", Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1."},
		{Action: "take apple 1 from countertop 1", Text: "You pick up the apple 1 from the countertop 1."},
	}}

func TestPromptsGolden(t *testing.T) {
	adm := []string{"go to fridge 1", "go to microwave 1", "inventory", "look"}
	for _, tc := range []struct {
		name string
		v    ActView
	}{
		{"act-eval", ActView{Style: envbridge.StyleHousehold, MaxSteps: 50, Goal: "put a hot egg in fridge.", Examples: []string{sample.Render()},
			Insights:   []string{"Open a closed receptacle before deciding the object is not there.", "Heat an object with the microwave before placing it."},
			Transcript: "You are in the middle of a room.\n\nYour task is to: put a hot egg in fridge.", Admissible: adm}},
		{"act-gather", ActView{Style: envbridge.StyleHousehold, MaxSteps: 50, Goal: sample.Goal, Reflections: []string{"I never heated the apple; heat it with microwave 1 first."},
			Transcript: sample.Render(), Admissible: adm}},
		{"act-fiction", ActView{Style: envbridge.StyleFiction, MaxSteps: 100, Goal: "Find the treasure.", Transcript: "West of House."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := ActMessages(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.name+".golden", golden.Messages(msgs))
		})
	}
	fail := sample
	fail.Steps = append(slices.Clone(sample.Steps), Step{Action: "go to fridge 1", Text: "You arrive at fridge 1. The fridge 1 is closed."})
	msgs, err := ReflectMessages(ReflectInput{Style: envbridge.StyleHousehold, Trajectory: fail, Reflections: []string{"Find the apple first."}})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "reflect.golden", golden.Messages(msgs))
	rules := []string{"Open a closed receptacle before deciding the object is not there."}
	for name, v := range map[string]ExtractView{
		"extract-compare": {Compare: true, Goal: sample.Goal, Success: sample.Render(), Failure: fail.Render(), Rules: rules},
		"extract-success": {Successes: []string{"Task: " + sample.Goal + "\n" + sample.Render()}, Full: true, Rules: rules},
		"extract-empty":   {Compare: true, Goal: sample.Goal, Success: sample.Render(), Failure: fail.Render()},
	} {
		msgs, err := ExtractMessages(v)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, name+".golden", golden.Messages(msgs))
	}
	golden.Schema(t, ReflectionSchema)
	golden.Schema(t, OperationsSchema)
}

func TestParseOps(t *testing.T) {
	reply := strings.Join([]string{
		"Here are my operations:",
		"ADD 3: Search every receptacle once before revisiting.",
		"**EDIT 1:** Open closed receptacles before leaving them.",
		"UPVOTE 2: Heat objects in the microwave.",
		"DOWNVOTE 4: Check the inventory often.",
		"ADD 5: A rule cut off without",
		"ADD 6: Use ADD to add rules.",
		"- AGREE 2 - Heat objects in the microwave.",
		"REMOVE: Never look around.",
		"ADD 7:",
	}, "\n")
	ops, dropped := ParseOps(reply)
	want := []Op{
		{OpAdd, 3, "Search every receptacle once before revisiting."},
		{OpEdit, 1, "Open closed receptacles before leaving them."},
		{OpAgree, 2, "Heat objects in the microwave."},
		{OpRemove, 4, "Check the inventory often."},
		{OpAgree, 2, "Heat objects in the microwave."},
		{OpRemove, 0, "Never look around."},
	}
	if !slices.Equal(ops, want) || dropped != 3 {
		t.Errorf("ParseOps = %+v (%d dropped), want %+v (3 dropped)", ops, dropped, want)
	}
	if _, _, err := ParseOpsAnswer(replyfmt.Answer{Text: "I like these rules."}); !errors.Is(err, ErrNoOps) {
		t.Errorf("a reply with no operation: err %v, want ErrNoOps", err)
	}
	if ops, _, err := ParseOpsAnswer(replyfmt.Answer{Text: "None: the rules are fine."}); err != nil || ops != nil {
		t.Errorf("a reply saying none: %v %v", ops, err)
	}
	ops, _, err := ParseOpsAnswer(replyfmt.Answer{Structured: true, Text: `{"operations":[{"operation":"ADD","number":1,"rule":"Look first."},{"operation":"EDIT","number":2,"rule":"no period"}]}`})
	if err != nil || !slices.Equal(ops, []Op{{OpAdd, 1, "Look first."}}) {
		t.Errorf("structured: %+v %v", ops, err)
	}
}

// TestApply pins update_rules' semantics (spec §3.2).
func TestApply(t *testing.T) {
	a, b, c := "Search every receptacle.", "Open closed receptacles.", "Heat in the microwave."
	list := []Insight{{a, 3}, {b, 2}, {c, 1}}
	got, n := Apply(list, []Op{
		{OpRemove, 3, c}, // c: 1 -> 0, deleted
		{OpAgree, 9, b},  // by text, not number: b 2 -> 3
		{OpEdit, 1, "Search every receptacle. Then open them."}, // holds a: AGREE on a
		{OpEdit, 9, "Out of range."},                            // dropped
		{OpEdit, 0, "No number."},                               // dropped
		{OpAgree, 1, "Unknown rule."},                           // matches nothing: dropped
		{OpAdd, 4, "New rule."},                                 // appended at 2
		{OpAdd, 5, "Also " + b},                                 // holds b: dropped
	}, 10)
	want := []Insight{{a, 4}, {b, 3}, {"New rule.", 2}}
	if !slices.Equal(got, want) || n != 4 {
		t.Errorf("Apply = %+v (%d applied), want %+v (4)", got, n, want)
	}
	got, _ = Apply([]Insight{{a, 1}, {b, 5}}, []Op{{OpEdit, 1, "Rewritten."}}, 10)
	if want := []Insight{{b, 5}, {"Rewritten.", 2}}; !slices.Equal(got, want) {
		t.Errorf("EDIT = %+v, want %+v", got, want)
	}
	// Over capacity (max + 5), REMOVE costs 3.
	var full []Insight
	for i := range 7 {
		full = append(full, Insight{strings.Repeat("x", i+1) + ".", 4})
	}
	got, _ = Apply(full, []Op{{OpRemove, 1, "x."}}, 2)
	if got[len(got)-1] != (Insight{"x.", 1}) {
		t.Errorf("over capacity: %+v", got)
	}
	if got, _ := Apply(nil, nil, 10); got != nil {
		t.Errorf("empty: %+v", got)
	}
}

func TestChunks(t *testing.T) {
	xs := make([]int, 17)
	var sizes []int
	for _, c := range Chunks(xs, 8) {
		sizes = append(sizes, len(c))
	}
	if !slices.Equal(sizes, []int{6, 6, 5}) {
		t.Errorf("17 by 8: %v, want [6 6 5]", sizes)
	}
	if Chunks(xs[:0], 8) != nil {
		t.Error("no chunks of nothing")
	}
}

func TestParsePlan(t *testing.T) {
	for in, want := range map[string]string{
		"Plan: Heat the apple first.":            "Heat the apple first.",
		"**Plan:**\n I should  open the fridge.": "I should open the fridge.",
		"```\nGo to the microwave.\n```":         "Go to the microwave.",
	} {
		if got, err := ParsePlan(in); err != nil || got != want {
			t.Errorf("ParsePlan(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParsePlan("Plan:  "); !errors.Is(err, ErrEmptyPlan) {
		t.Errorf("empty plan: %v", err)
	}
}

func FuzzParseOps(f *testing.F) {
	f.Add("ADD 1: Search first.\nEDIT 2: Open things.\nREMOVE 3: x.")
	f.Add(`{"operations":[{"operation":"AGREE","number":1,"rule":"a."}]}`)
	f.Add("**UPVOTE 12:** Heat it.")
	f.Fuzz(func(t *testing.T, s string) {
		for _, structured := range []bool{false, true} {
			ops, _, _ := ParseOpsAnswer(replyfmt.Answer{Text: s, Structured: structured})
			for _, o := range ops {
				if o.Text == "" || !strings.HasSuffix(o.Text, ".") || len(o.Text) > maxInsightLen || o.Number < 0 {
					t.Fatalf("bad op %+v from %q", o, s)
				}
				switch o.Kind {
				case OpAdd, OpEdit, OpAgree, OpRemove:
				default:
					t.Fatalf("bad kind %+v", o)
				}
			}
			list, _ := Apply([]Insight{{"a.", 2}}, ops, 10)
			for i, x := range list {
				if x.Count <= 0 || (i > 0 && x.Count > list[i-1].Count) {
					t.Fatalf("Apply broke the list: %+v", list)
				}
			}
		}
	})
}

func FuzzParsePlan(f *testing.F) {
	f.Add("Plan: Heat the apple first.")
	f.Add(`{"plan":"x"}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, _, err := ParsePlanAnswer(replyfmt.Answer{Text: s, Structured: true})
		if err == nil && (p == "" || len(p) > maxPlanLen) {
			t.Fatalf("plan %q from %q", p, s)
		}
	})
}

// TestRetrieveSameTypeAndBound: retrieval keeps to the task's type, skips
// trajectories over the few-shot bound, and ranks by task-text similarity.
func TestRetrieveSameTypeAndBound(t *testing.T) {
	m, err := New(Config{K: 2, FewshotTokens: 200}, Deps{Embed: offline.New(256), Offline: Roles{Actor: nopActor{}, Reflector: nopReflector{}, Extractor: nopExtractor{}}})
	if err != nil {
		t.Fatal(err)
	}
	mk := func(id, typ, start string, steps int) *Record {
		tr := Trajectory{TaskID: id, Type: typ, Goal: id, Start: start, Won: true}
		for range steps {
			tr.Steps = append(tr.Steps, Step{Action: "look", Text: "You see nothing special."})
		}
		return &Record{Task: envbridge.Task{ID: id, Type: typ}, Success: &tr}
	}
	m.pool = map[string]*Record{
		"near":  mk("near", "heat", "Your task is to: put a hot apple in fridge.", 1),
		"far":   mk("far", "heat", "A hallway with paintings. Your task is to: examine a vase.", 1),
		"long":  mk("long", "heat", "Your task is to: put a hot apple in fridge.", 60),
		"other": mk("other", "clean", "Your task is to: put a hot apple in fridge.", 1),
	}
	g, err := m.guidance(context.Background(), envbridge.Task{ID: "q", Type: "heat"}, "Your task is to: put a hot apple in fridge.")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range g.Examples {
		ids = append(ids, e.Trajectory.TaskID)
	}
	if !slices.Equal(ids, []string{"near", "far"}) {
		t.Errorf("retrieved %v, want [near far]", ids)
	}
}

type nopActor struct{}

func (nopActor) Begin(agent.Start, Guidance) Session { return nil }

type nopReflector struct{}

func (nopReflector) Reflect(context.Context, ReflectInput) (string, error) { return "", nil }

type nopExtractor struct{}

func (nopExtractor) Compare(context.Context, CompareInput) ([]Op, error)   { return nil, nil }
func (nopExtractor) Successes(context.Context, SuccessInput) ([]Op, error) { return nil, nil }

var _ llm.Chatter = nil
