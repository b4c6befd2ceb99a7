package arigraph

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

func TestParseTriplets(t *testing.T) {
	tests := []struct {
		in   string
		want []Triplet
	}{
		{"key 1, is in, Room A; Room A, has exit, west", []Triplet{tr("key 1", "is in", "room a"), tr("room a", "has exit", "west")}},
		{"Extracted triplets: \"apple, is on, table\"; 'kitchen, contains, knife'.", []Triplet{tr("apple", "is on", "table"), tr("kitchen", "contains", "knife")}},
		{"1. apple, is on, table\n2. none, is, here\n- recipe, requires, green apple", []Triplet{tr("apple", "is on", "table"), tr("recipe", "requires", "green apple")}},
		{"book, written by, Smith, John", []Triplet{tr("book", "written by, smith", "john")}},
		{"just text; a, b", nil},
		{"", nil},
		{"x, r, y; x, r, y", []Triplet{tr("x", "r", "y")}},
	}
	for _, tc := range tests {
		if got := ParseTriplets(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("ParseTriplets(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseReplacements(t *testing.T) {
	k, inv := tr("kitchen", "contains", "broom"), tr("broom", "is in", "inventory")
	tests := []struct {
		in   string
		want []Replacement
	}{
		{"[]", nil},
		{"[]. Nothing to replace here", nil},
		{`[["kitchen, contains, broom" -> "broom, is in, inventory"]]`, []Replacement{{k, inv}}},
		{`[{"kitchen, contains, broom" -> "broom, is in, inventory"}, [{"broom, is on, floor" -> "broom, is in, inventory"}]`,
			[]Replacement{{k, inv}, {tr("broom", "is on", "floor"), inv}}},
		{"Replacing: [kitchen, contains, broom -> broom, is in, inventory]", []Replacement{{k, inv}}},
		{"[[a, b -> c, d, e]]", nil},
	}
	for _, tc := range tests {
		if got := ParseReplacements(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("ParseReplacements(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{"True": true, " false.": false, "Yes, it does": true,
		// Fenced, prefaced, emphasised.
		"```\nTrue\n```": true, "Sure! Here is my answer.\n**False**": false, "Answer: yes": true, "```text\nFALSE.\n```": false} {
		if v, ok := ParseBool(in); !ok || v != want {
			t.Errorf("ParseBool(%q) = %v, %v", in, v, ok)
		}
	}
	if _, ok := ParseBool("maybe"); ok {
		t.Error("ParseBool(maybe) ok")
	}
}

func sampleWM() WorkingMemory {
	return WorkingMemory{
		Goal:        "Find the treasure in the golden locker.",
		History:     []Step{{Action: "look", Observation: "You are in Room A."}, {Action: "take key 1", Observation: "You take the Key 1."}},
		Observation: "You are in Room B. There is an exit to the north.",
		Facts:       []Triplet{tr("key 1", "is in", "inventory"), tr("room b", "has exit", "north")},
		Episodes:    []string{"You take the Key 1."},
		K:           2,
		Plan:        `{"main_goal": "find treasure"}`,
		Explore:     true,
		Exits:       map[string][]string{"room b": {"north"}, "room a": {"west"}},
		Actions:     []string{"go north", "go to room a"},
	}
}

func TestGoldenPrompts(t *testing.T) {
	ext, err := RenderExtract([]Triplet{tr("room a", "has exit", "west")}, "You are in Room B.")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "extract.golden", []byte(ext))
	rep, err := RenderReplace([]Triplet{tr("key 1", "is in", "room a")}, []Triplet{tr("key 1", "is in", "inventory")})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "replace.golden", []byte(rep))
	exp, _ := RenderExplore(`{"sub_goal_1": "find key 2"}`)
	golden.Check(t, "explore.golden", []byte(exp))
	pl, err := RenderPlan(sampleWM())
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "plan.golden", []byte(pl))
	wm := sampleWM()
	wm.Explore = false
	de, err := RenderDecide(wm)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "decide.golden", []byte(de))
}

func FuzzParseTriplets(f *testing.F) {
	for _, s := range []string{"a, b, c; d, e, f", "Extracted triplets: 'x, y, z'", "[[a, b, c -> a, b, d]]", "", ";;,,", "1. a,b,c\n2. d,e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, x := range ParseTriplets(s) {
			if !x.Valid() || x != x.Norm() {
				t.Errorf("ParseTriplets(%q) gave invalid %v", s, x)
			}
		}
		for _, r := range ParseReplacements(s) {
			if !r.Old.Valid() || !r.New.Valid() {
				t.Errorf("ParseReplacements(%q) gave %v", s, r)
			}
		}
		ParseBool(s)
	})
}

// TestLLMRolesOverServer runs every LLM-backed role against a local
// OpenAI-protocol server that answers each prompt.
func TestLLMRolesOverServer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Routes(
		llmtest.Route{Contains: "into facts for a knowledge graph", InPrompt: true, Text: "key 1, is in, inventory; room a, has exit, west"},
		llmtest.Route{Contains: "Decide which existing triplets a new triplet makes out of date", InPrompt: true, Text: `[["key 1, is in, room a" -> "key 1, is in, inventory"]]`},
		llmtest.Route{Contains: "Answer with one word, True or False", InPrompt: true, Text: "True"},
		llmtest.Route{Contains: "You are the planning module", InPrompt: true, Text: `Sure: {"main_goal": "treasure", "plan_steps": [{"sub_goal_1": "find key 2", "reason": "note says"}]}`},
		llmtest.Route{Contains: "You are the decision module", InPrompt: true, Text: `{"reason_for_action": "explore", "action_to_take": "go north"}`},
	))
	chat := newTestClient(t, srv)
	l := &LLM{Chat: chat}
	ctx := context.Background()
	got, err := l.Extract(ctx, nil, "You take the Key 1.")
	if err != nil || !slices.Equal(got, []Triplet{tr("key 1", "is in", "inventory"), tr("room a", "has exit", "west")}) {
		t.Errorf("Extract = %v, %v", got, err)
	}
	g := NewGraph()
	g.Add(tr("key 1", "is in", "room a"), tr("golden locker", "is in", "room a"))
	up, err := g.Learn(ctx, l, 3, "You take the Key 1.", got)
	if err != nil {
		t.Fatal(err)
	}
	if len(up.Removed) != 1 || g.Has(tr("key 1", "is in", "room a")) || !g.Has(tr("golden locker", "is in", "room a")) {
		t.Errorf("Learn removed %v; graph %v", up.Removed, g.Triplets())
	}
	if v, err := l.NeedsExploration(ctx, "find key 2"); err != nil || !v {
		t.Errorf("NeedsExploration = %v, %v", v, err)
	}
	plan, err := l.Plan(ctx, sampleWM())
	if err != nil || !json.Valid([]byte(plan)) {
		t.Errorf("Plan = %q, %v", plan, err)
	}
	reason, action, err := l.Decide(ctx, sampleWM())
	if err != nil || action != "go north" || reason != "explore" {
		t.Errorf("Decide = %q, %q, %v", reason, action, err)
	}
	if n := srv.ChatRequests(); n != 5 {
		t.Errorf("server saw %d chats, want 5", n)
	}
}

// TestLLMPurposes checks every role names its purpose (usage accounting).
func TestLLMPurposes(t *testing.T) {
	c := llmtest.NewChatter(t, "a, b, c", "[]", "False", "{}", `{"action_to_take": "look"}`)
	l := &LLM{Chat: c}
	ctx := context.Background()
	l.Extract(ctx, nil, "x")
	l.Outdated(ctx, []Triplet{tr("a", "b", "c")}, []Triplet{tr("a", "b", "d")})
	l.NeedsExploration(ctx, "p")
	l.Plan(ctx, sampleWM())
	l.Decide(ctx, sampleWM())
	var got []string
	for _, r := range c.Requests() {
		got = append(got, r.Purpose)
	}
	want := []string{PurposeExtract, PurposeReplace, PurposeExplore, PurposePlan, PurposeDecide}
	if !slices.Equal(got, want) {
		t.Errorf("purposes = %v, want %v", got, want)
	}
	_ = llm.Request{}
}
