package expel_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/expel"
	expeloff "github.com/samem/trainer/expel/offline"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
)

// script answers ExpeL's model calls: actions every household room has,
// plans and operations from small fixed sets.
func script(req llm.Request) string {
	switch req.Purpose {
	case expel.Name + ".reflect":
		return agenttest.Pick(req, "Plan: I should open every closed receptacle before leaving it.", "I looked around instead of searching; next time go to each receptacle in turn.")
	case expel.Name + ".extract":
		return agenttest.Pick(req,
			"ADD 1: Search the receptacles in turn before revisiting one.",
			"ADD 2: Open a closed receptacle before deciding the object is not there.\nAGREE 1: Search the receptacles in turn before revisiting one.",
			"REMOVE 1: Search the receptacles in turn before revisiting one.")
	}
	return "Thought: " + agenttest.Pick(req, "Look around.", "Check the inventory.") + "\nAction: " + agenttest.Pick(req, "look", "inventory")
}

func TestConformance(t *testing.T) {
	emb := offline.New(256)
	for name, cfg := range map[string]expel.Config{"expel": {}, "no-insights": {NoInsights: true}, "no-retrieval": {NoRetrieval: true}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			agenttest.Run(t, agenttest.Options{
				New: func(chat llm.Chatter) (agent.Method, error) {
					return expel.New(cfg, expel.Deps{Chat: chat, Embed: emb, Offline: expeloff.Roles()})
				},
				Script: script,
				Errors: []error{expel.ErrFormat},
			})
		})
	}
}
