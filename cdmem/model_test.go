package cdmem

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

type countingModel struct {
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingModel) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	c.calls[req.Purpose]++
	c.mu.Unlock()
	switch req.Purpose {
	case PurposeExpert:
		return llm.Response{Text: "Expert Observations: (1)locations: apple 1 is on countertop 1. (2)functions: the microwave heats the apple.\nExpert Actions: look"}, nil
	case PurposeReflect:
		return llm.Response{Text: "Reflection: Looking was essential."}, nil
	case PurposeSceneSummary:
		return llm.Response{Text: "Summary: the microwave heats things."}, nil
	case PurposeTaskSummary:
		return llm.Response{Text: "Guidance:\n1. Locate the object.\n2. Heat it."}, nil
	}
	return llm.Response{Text: "Thought: act.\nAction: look"}, nil
}

func (c *countingModel) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = map[string]int{}
	return out
}

const room = "You are in the middle of a room. Looking quickly around you, you see a countertop 1 and a microwave 1."

func play(t *testing.T, m *Method, id string, mode agent.Mode, steps int, won bool) []agent.Decision {
	t.Helper()
	ctx := context.Background()
	tk := envbridge.Task{ID: id, Type: "heat", Goal: "heat an apple."}
	ep, err := m.Start(ctx, agent.Start{Task: tk, Mode: mode, Style: envbridge.StyleHousehold, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	cur := envbridge.Observation{Text: room + "\n\nYour task is to: heat an apple.", Admissible: []string{"look"}}
	var ds []agent.Decision
	for i := range steps {
		d, err := ep.Act(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
		cur = envbridge.Observation{Text: "You see a countertop 1.", Admissible: []string{"look"}}
		if err := ep.Observe(ctx, agent.Transition{Step: i, Decision: d, Result: envbridge.StepResult{Observation: cur}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ep.Finish(ctx, agent.Outcome{Won: won, Truncated: !won, Steps: steps}); err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestModelCalls: a training episode makes one act call per step, then the
// expert encoding, the reflection and, as the batch rule fires, the scene
// and task summaries; a solved task's later trial encodes nothing; an
// evaluation episode makes act calls only, with the scene's knowledge, the
// guidance and an exemplar offered in its Recall.
func TestModelCalls(t *testing.T) {
	model := &countingModel{calls: map[string]int{}}
	m, err := New(Config{}, Deps{Chat: model})
	if err != nil {
		t.Fatal(err)
	}
	play(t, m, "t1", agent.Train, 2, true)
	want := map[string]int{PurposeAct: 2, PurposeExpert: 1, PurposeReflect: 1, PurposeSceneSummary: 1, PurposeTaskSummary: 1}
	if got := model.take(); len(got) != len(want) || got[PurposeAct] != 2 || got[PurposeExpert] != 1 || got[PurposeReflect] != 1 || got[PurposeSceneSummary] != 1 || got[PurposeTaskSummary] != 1 {
		t.Fatalf("first training episode's calls %v, want %v", got, want)
	}
	// The same scene and bucket again: one pending each, not more than the
	// batch size 1, so no summary.
	play(t, m, "t2", agent.Train, 1, true)
	if got := model.take(); got[PurposeSceneSummary] != 0 || got[PurposeTaskSummary] != 0 || got[PurposeExpert] != 1 {
		t.Fatalf("second episode's calls %v: want no summary", got)
	}
	// A third: two pending, the summaries run.
	play(t, m, "t3", agent.Train, 1, true)
	if got := model.take(); got[PurposeSceneSummary] != 1 || got[PurposeTaskSummary] != 1 {
		t.Fatalf("third episode's calls %v: want both summaries", got)
	}
	play(t, m, "t1", agent.Train, 1, false)
	if got := model.take(); len(got) != 1 || got[PurposeAct] != 1 {
		t.Fatalf("a solved task's trial made %v: want act only", got)
	}
	ds := play(t, m, "e1", agent.Eval, 2, false)
	if got := model.take(); len(got) != 1 || got[PurposeAct] != 2 {
		t.Fatalf("evaluation made %v: want act only", got)
	}
	r := ds[0].Recall
	kinds := map[string]int{}
	for _, it := range r.Items {
		kinds[it.Kind]++
	}
	if !ds[0].Guided || r.State != room || r.Match != room || kinds["scene"] != 1 || kinds["guidance_success"] != 2 || kinds["exemplar"] != 2 || kinds["reflection"] != 0 {
		t.Fatalf("evaluation recall %+v (kinds %v): want the scene, 2 guidance items, 2 exemplars, no reflection", r, kinds)
	}
	if s := m.Size(); s["scenes"] != 1 || s["guidance"] != 2 || s["records"] != 3 {
		t.Fatalf("size %v", s)
	}
}
