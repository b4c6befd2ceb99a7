package autoguide_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/autoguide"
	agoff "github.com/samem/trainer/autoguide/offline"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
)

// script answers AutoGuide's model calls: actions every household room
// has, statuses, matches, guidelines, selections and reflections from small
// fixed sets.
func script(req llm.Request) string {
	switch req.Purpose {
	case autoguide.PurposeContext:
		return agenttest.Pick(req, "SUMMARIZATION: Searching for the object; it is not here.", "SUMMARIZATION: At the start of the task.")
	case autoguide.PurposeMatch:
		return agenttest.Pick(req, "0", "None")
	case autoguide.PurposeExtract:
		return agenttest.Pick(req, "Reasoning: it looked first.\nGuideline: When at the start, you should look around.", "Reasoning: x\nGuideline: When searching, you should not check the inventory.")
	case autoguide.PurposeSelect:
		return agenttest.Pick(req, "[1, 2]", "[]")
	case autoguide.PurposeReflect:
		return agenttest.Pick(req, "Reflection: I should search the receptacles in order.", "I wasted steps checking the inventory.")
	}
	return "Thought: " + agenttest.Pick(req, "Look around.", "Check the inventory.") + "\nAction: " + agenttest.Pick(req, "look", "inventory")
}

func TestConformance(t *testing.T) {
	emb := offline.New(256)
	for name, cfg := range map[string]autoguide.Config{"paper": {}, "online": {Online: true}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			agenttest.Run(t, agenttest.Options{
				New: func(chat llm.Chatter) (agent.Method, error) {
					return autoguide.New(cfg, autoguide.Deps{Chat: chat, Embed: emb, Offline: agoff.Roles{}})
				},
				Script: script,
				Errors: []error{autoguide.ErrFormat},
			})
		})
	}
}
