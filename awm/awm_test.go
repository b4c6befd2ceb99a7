package awm

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
	"github.com/samem/trainer/llm/offline"
)

var flow = Workflow{Name: "Heat and place", Description: "Given that you hold an object to heat, this workflow heats it and puts it in place.",
	Steps: []WStep{
		{State: "holding {target object}", Reasoning: "heating needs the microwave", Action: "go to microwave 1"},
		{State: "at the microwave", Reasoning: "heat it", Action: "heat {target object} with microwave 1"},
	}}

func TestPromptsGolden(t *testing.T) {
	adm := []string{"go to fridge 1", "go to microwave 1", "inventory", "look"}
	for name, v := range map[string]ActView{
		"act-workflows": {Style: envbridge.StyleHousehold, Goal: "put a hot egg in fridge.", Workflows: RenderAll([]Workflow{flow, flow}),
			Transcript: "You are in the middle of a room.\n> go to fridge 1\nThe fridge 1 is closed.", Admissible: adm},
		"act-empty": {Style: envbridge.StyleScience, Goal: "boil water.", Transcript: "This room is called the kitchen."},
	} {
		msgs, err := ActMessages(v)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, name+".golden", golden.Messages(msgs))
	}
	msgs, err := InduceMessages(InduceInput{Style: envbridge.StyleHousehold, Group: "pick_heat_then_place_in_recep", Examples: []Trajectory{{
		TaskID: "t1", Goal: "put a hot apple in fridge.", Start: "You are in the middle of a room.",
		Steps: []Step{
			{Thought: "Apples are on countertops.", Action: "go to countertop 1", Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1."},
			{Thought: "Wrong verb.", Action: "grab apple", Text: "Nothing happens."},
			{Thought: "Take it.", Action: "take apple 1 from countertop 1", Text: "You pick up the apple 1 from the countertop 1."},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(msgs[1].Content, "grab apple") {
		t.Error("the induction prompt shows a step that did nothing")
	}
	golden.Check(t, "induce.golden", golden.Messages(msgs))
	golden.Schema(t, WorkflowsSchema)
}

func TestParseWorkflows(t *testing.T) {
	reply := "Here are the workflows.\n\n## Summary Workflows\n\n**Workflow: Heat and place**\nDescription: Given that you hold an object to heat, this workflow heats it and puts it in place.\n1. State: holding {target object} Reasoning: heating needs the microwave Action: go to microwave 1\n2. State: at the microwave Reasoning: heat it Action: heat {target object} with microwave 1\n\nWorkflow 2: One step only\n1. Action: look\n\nWorkflow: Bare\nFind it first.\n- go to {receptacle}\n- take {target object} from {receptacle}"
	ws, dropped := ParseWorkflows(reply)
	want := []Workflow{flow, {Name: "Bare", Description: "Find it first.", Steps: []WStep{{Action: "go to {receptacle}"}, {Action: "take {target object} from {receptacle}"}}}}
	if dropped != 1 || len(ws) != 2 || ws[0].Render() != want[0].Render() || ws[1].Render() != want[1].Render() {
		t.Errorf("ParseWorkflows = %+v (%d dropped), want %+v (1 dropped)", ws, dropped, want)
	}
	if got, _ := ParseWorkflows(flow.Render()); len(got) != 1 || got[0].Render() != flow.Render() {
		t.Errorf("Render does not read back: %+v", got)
	}
	if _, _, err := ParseWorkflowsAnswer(replyfmt.Answer{Text: "I cannot find any."}); !errors.Is(err, ErrNoWorkflows) {
		t.Errorf("no workflows: %v", err)
	}
	ws, _, err := ParseWorkflowsAnswer(replyfmt.Answer{Structured: true, Text: `{"workflows":[{"name":"A","description":"d","steps":[{"state":"s","reasoning":"r","action":"look"},{"state":"","reasoning":"","action":"inventory"}]},{"name":"B","description":"","steps":[{"state":"","reasoning":"","action":"look"}]}]}`})
	if err != nil || len(ws) != 1 || ws[0].Name != "A" || len(ws[0].Steps) != 2 {
		t.Errorf("structured: %+v %v", ws, err)
	}
}

func FuzzParseWorkflows(f *testing.F) {
	f.Add(flow.Render())
	f.Add(`{"workflows":[{"name":"A","description":"d","steps":[{"state":"s","reasoning":"r","action":"a"},{"state":"s","reasoning":"r","action":"b"}]}]}`)
	f.Add("Workflow: x\n1. Action: a\n2. b")
	f.Fuzz(func(t *testing.T, s string) {
		for _, structured := range []bool{false, true} {
			ws, _, err := ParseWorkflowsAnswer(replyfmt.Answer{Text: s, Structured: structured})
			if err == nil && len(ws) == 0 {
				t.Fatalf("no error and no workflows from %q", s)
			}
			if len(ws) > maxWorkflows {
				t.Fatalf("%d workflows", len(ws))
			}
			for _, w := range ws {
				if w.Name == "" || len(w.Steps) < MinSteps || len(w.Steps) > maxStepsOf {
					t.Fatalf("bad workflow %+v from %q", w, s)
				}
				for _, st := range w.Steps {
					if st.Action == "" || len(st.Action) > maxFieldLen {
						t.Fatalf("bad step %+v", st)
					}
				}
			}
		}
	})
}

func TestCapTokens(t *testing.T) {
	ws := []Workflow{flow, flow, flow}
	one := tokens(flow.Render()) + 1
	if got := capTokens(ws, 2*one); len(got) != 2 {
		t.Errorf("cap of two workflows kept %d", len(got))
	}
	if got := capTokens(ws, 100*one); len(got) != 3 {
		t.Errorf("a cap that does not bind kept %d", len(got))
	}
}

// TestFallback: a held-out task whose group has no workflows is shown the
// most similar workflows of other groups, at most FallbackK; a task whose
// group has some sees only its own.
func TestFallback(t *testing.T) {
	m, err := New(Config{FallbackK: 2}, Deps{Embed: offline.New(256), Offline: Roles{Actor: nopActor{}, Inducer: nopInducer{}}})
	if err != nil {
		t.Fatal(err)
	}
	heat := flow
	cool := Workflow{Name: "Cool and place", Description: "Given that you hold an object to cool, this workflow cools it in the fridge.", Steps: flow.Steps}
	look := Workflow{Name: "Examine under a lamp", Description: "Given that you hold an object, this workflow switches on a desk lamp.", Steps: flow.Steps}
	m.groups = map[string]*group{
		"heat": {workflows: []Workflow{heat}},
		"cool": {workflows: []Workflow{cool}},
		"look": {workflows: []Workflow{look}},
	}
	ep, err := m.Start(context.Background(), agent.Start{Task: envbridge.Task{ID: "q", Type: "clean", Goal: "put a cool object in the fridge to cool it"}, Mode: agent.Eval})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range ep.(*episode).shown {
		ids = append(ids, s.ID)
	}
	if len(ids) != 2 || ids[0] != WorkflowID("cool", 1) {
		t.Errorf("fallback shown %v, want 2 with %s first", ids, WorkflowID("cool", 1))
	}
	ep, _ = m.Start(context.Background(), agent.Start{Task: envbridge.Task{ID: "q", Type: "heat"}, Mode: agent.Eval})
	if got := ep.(*episode).shown; len(got) != 1 || got[0].ID != WorkflowID("heat", 1) {
		t.Errorf("own group shown %+v", got)
	}
	ep, _ = m.Start(context.Background(), agent.Start{Task: envbridge.Task{ID: "q", Type: "clean"}, Mode: agent.Train})
	if got := ep.(*episode).shown; got != nil {
		t.Errorf("training falls back: %+v", got)
	}
	if !slices.Equal(m.MemoryTables()[1].Columns, []string{"group", "workflows", "successes", "tokens"}) {
		t.Error("groups table columns")
	}
}

type nopActor struct{}

func (nopActor) Begin(agent.Start, []Shown) Session { return nil }

type nopInducer struct{}

func (nopInducer) Induce(context.Context, InduceInput) ([]Workflow, error) { return nil, nil }
