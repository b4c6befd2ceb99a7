package autoguide

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// countingModel answers every role with a fixed reply and counts the
// calls by purpose.
type countingModel struct {
	mu    sync.Mutex
	calls map[string]int
	act   string
}

func (c *countingModel) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	c.calls[req.Purpose]++
	c.mu.Unlock()
	switch req.Purpose {
	case PurposeContext:
		return llm.Response{Text: "SUMMARIZATION: The object is found here; it has not been taken yet."}, nil
	case PurposeMatch:
		return llm.Response{Text: "0"}, nil
	case PurposeExtract:
		return llm.Response{Text: "Reasoning: the good trial took it.\nGuideline: When the object is found here, you should take it."}, nil
	case PurposeSelect:
		return llm.Response{Text: "[2, 3]"}, nil
	case PurposeReflect:
		return llm.Response{Text: "Reflection: I should take the object when I see it."}, nil
	}
	return llm.Response{Text: "Thought: act.\nAction: " + c.act}, nil
}

func (c *countingModel) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = map[string]int{}
	return out
}

var task = envbridge.Task{ID: "t1", Type: "pick", Goal: "put an apple in fridge."}

// play runs one episode by hand: the first observation, then one step per
// observation in obs (the actions are the model's).
func play(t *testing.T, m *Method, mode agent.Mode, obs []string, out agent.Outcome) []agent.Decision {
	t.Helper()
	ctx := context.Background()
	ep, err := m.Start(ctx, agent.Start{Task: task, Mode: mode, Style: envbridge.StyleHousehold, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	var ds []agent.Decision
	cur := envbridge.Observation{Text: "You are in the middle of a room.\n\nYour task is to: put an apple in fridge.", Admissible: []string{"look", "inventory"}}
	for i, o := range obs {
		d, err := ep.Act(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
		cur = envbridge.Observation{Text: o, Admissible: []string{"look", "inventory"}}
		if err := ep.Observe(ctx, agent.Transition{Step: i, Decision: d, Result: envbridge.StepResult{Observation: cur}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ep.Finish(ctx, out); err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestModelCalls: the calls of Algorithms 1 and 2 with a model. A failed
// trial is reflected on (no guideline: nothing to pair with); a later won
// trial that deviates is paired with it (context, match, extract); a
// training step in the paper's mode asks only the actor; an evaluation
// step asks context, match, select (the context holds more than k
// guidelines) and act, and its Recall names the context, its match and
// the selected guidelines.
func TestModelCalls(t *testing.T) {
	model := &countingModel{calls: map[string]int{}, act: "look"}
	m, err := New(Config{}, Deps{Chat: model})
	if err != nil {
		t.Fatal(err)
	}
	play(t, m, agent.Train, []string{"Nothing happens.", "Nothing happens."}, agent.Outcome{Truncated: true, Steps: 2})
	if got := model.take(); got[PurposeAct] != 2 || got[PurposeReflect] != 1 || len(got) != 2 {
		t.Fatalf("failed trial's calls %v: want 2 act and 1 reflect", got)
	}
	model.act = "inventory"
	play(t, m, agent.Train, []string{"You carry nothing."}, agent.Outcome{Won: true, Steps: 1})
	if got := model.take(); got[PurposeAct] != 1 || got[PurposeContext] != 1 || got[PurposeExtract] != 1 || got[PurposeMatch] != 0 {
		t.Fatalf("won trial's calls %v: want 1 act, 1 context, 1 extract, no match (G was empty)", got)
	}
	if c := m.Contexts(); len(c) != 1 || !strings.HasPrefix(c[0], "The object is found here") {
		t.Fatalf("contexts %q", c)
	}
	// Two more guidelines under the context, so that selection is needed.
	m.addGuideline("x", 0, Guideline{Text: "When the object is found here, you should not leave."})
	m.addGuideline("x", 0, Guideline{Text: "When the object is found here, you should look at it."})
	ds := play(t, m, agent.Eval, []string{"You see an apple."}, agent.Outcome{Truncated: true, Steps: 1})
	if got := model.take(); got[PurposeAct] != 1 || got[PurposeContext] != 1 || got[PurposeMatch] != 1 || got[PurposeSelect] != 1 || got[PurposeExtract] != 0 || got[PurposeReflect] != 0 {
		t.Fatalf("evaluation step's calls %v: want one context, match, select and act each", got)
	}
	d := ds[0]
	if !d.Guided || d.Recall == nil || d.Recall.Match != "0" || len(d.Recall.Items) != 3 || d.Recall.Items[0].Used || !d.Recall.Items[1].Used || !d.Recall.Items[2].Used {
		t.Fatalf("evaluation decision %+v, recall %+v: want guided by guidelines 2 and 3 of context 0", d, d.Recall)
	}
	if g := m.Guidelines(0); len(g) != 3 || g[0].Text != "When the object is found here, you should take it." || g[0].Task != "t1" {
		t.Fatalf("guidelines %+v", g)
	}
}
