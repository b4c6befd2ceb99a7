package baseline_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/baseline"
	baselineoff "github.com/samem/trainer/baseline/offline"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/summarize"
	sumoff "github.com/samem/trainer/summarize/offline"
	"github.com/samem/trainer/thought"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// script answers the baselines' model calls: plans, and actions every
// household room has, summaries and reflections from small fixed sets.
func script(req llm.Request) string {
	switch req.Purpose {
	case baseline.SummaryName + ".update":
		return agenttest.Pick(req, "Nothing found yet.", "The target object was seen on a countertop.")
	case baseline.FullHistoryName + ".plan", baseline.SummaryName + ".plan":
		return `{"main_goal": "do the task", "plan_steps": [{"sub_goal_1": "look around", "reason": "started"}]}`
	case baseline.FullHistoryName + ".decide", baseline.SummaryName + ".decide":
		return `{"reason_for_action": "see", "action_to_take": "` + agenttest.Pick(req, "look", "inventory") + `"}`
	case baseline.ReflexionName + ".reflect":
		return agenttest.Pick(req, "I should search the receptacles in order.", "Reflection: I wasted steps checking the inventory.")
	}
	return "Thought: " + agenttest.Pick(req, "Look around.", "Check the inventory.") + "\nAction: " + agenttest.Pick(req, "look", "inventory")
}

func TestConformance(t *testing.T) {
	emb := offline.New(256)
	deps := func(chat llm.Chatter) baseline.Deps {
		return baseline.Deps{Chat: chat, Embed: emb, Offline: baselineoff.Roles()}
	}
	for name, build := range map[string]func(chat llm.Chatter) (agent.Method, error){
		baseline.ReflexionName: func(chat llm.Chatter) (agent.Method, error) {
			return baseline.NewReflexion(baseline.ReflexionConfig{}, deps(chat))
		},
		baseline.FullHistoryName: func(chat llm.Chatter) (agent.Method, error) {
			return baseline.NewFullHistory(baseline.FullHistoryConfig{}, deps(chat))
		},
		baseline.SummaryName: func(chat llm.Chatter) (agent.Method, error) {
			return baseline.NewSummary(baseline.SummaryConfig{}, deps(chat))
		},
		baseline.NoMemoryName: func(chat llm.Chatter) (agent.Method, error) {
			if chat == nil {
				return baseline.NoMemory{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}}, nil
			}
			return baseline.NoMemory{Summarizer: summarize.NewLLM(chat), Thinker: thought.NewLLM(chat, emb)}, nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			agenttest.Run(t, agenttest.Options{New: build, Script: script, Errors: []error{baseline.ErrBadReflections}})
		})
	}
}
