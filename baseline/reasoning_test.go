package baseline

import (
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm/llmtest"
)

func TestReflectionSchemaGolden(t *testing.T) { golden.Schema(t, ReflectionSchema) }

// TestUnusableRepliesNeverStop: a reflection cut off while reasoning, and a
// running summary that never comes, are asked again, then the trial goes
// on without them: no reflection stored, the summary so far kept, no error,
// and no reasoning anywhere.
func TestUnusableRepliesNeverStop(t *testing.T) {
	s := smallSuite(t, 3)
	task := taskOf(t, s, envbridge.SplitTrain, "pick_and_place_simple")
	srv, c := client(t, func(call llmtest.Call) llmtest.Reply {
		switch {
		case call.Chat == nil:
			return llmtest.Reply{}
		case strings.HasPrefix(call.Chat.System(), "You review an attempt"):
			return llmtest.Reply{Reasoning: "Reflection: poison", NullContent: true, FinishReason: "length"}
		case strings.HasPrefix(call.Chat.System(), "You keep a running summary"):
			return llmtest.Reply{Text: "<think>Summary: poison"}
		case isActor(call):
			if strings.Contains(call.Chat.LastUser(), "poison") {
				return llmtest.Reply{Text: "Thought: poisoned\nAction: inventory"}
			}
			return llmtest.Reply{Text: "<think>Action: inventory</think>Thought: let me see\nAction: look"}
		}
		return llmtest.Reply{Text: "unexpected prompt"}
	})
	m := mustReflexion(t, ReflexionConfig{}, Deps{Chat: c, Embed: c})
	ep := runOne(t, m, s, task, agent.Train)
	if ep.Outcome.Err != "" || len(m.Reflections()) != 0 {
		t.Fatalf("outcome %+v, reflections %+v", ep.Outcome, m.Reflections())
	}
	reflects := 0
	for _, call := range srv.Calls() {
		if call.Chat != nil && strings.HasPrefix(call.Chat.System(), "You review an attempt") {
			reflects++
		}
	}
	if reflects != 3 {
		t.Errorf("%d reflection calls, want 3 (asked again twice)", reflects)
	}
	sum, err := NewSummary(SummaryConfig{Agent: AgentActor}, Deps{Chat: c, Embed: c})
	if err != nil {
		t.Fatal(err)
	}
	ep = runOne(t, sum, s, task, agent.Eval)
	if ep.Outcome.Err != "" {
		t.Fatalf("summary baseline: %+v", ep.Outcome)
	}
	if len(ep.Transitions) == 0 {
		t.Fatal("no steps")
	}
	for _, tr := range ep.Transitions {
		if tr.Decision.Action != "look" {
			t.Errorf("step %+v: the actor read reasoning or a poisoned summary", tr.Decision)
		}
	}
}
