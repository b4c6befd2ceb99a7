package cdmem_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/cdmem"
	cdoff "github.com/samem/trainer/cdmem/offline"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
)

// script answers CDMem's model calls: actions every household room has,
// expert records, reflections and summaries from small fixed sets.
func script(req llm.Request) string {
	switch req.Purpose {
	case cdmem.PurposeExpert:
		return agenttest.Pick(req, "Expert Observations: (1)locations: a key 1 is in drawer 1. (2)functions: None\nExpert Actions: look, inventory", "Expert Observations: (1)locations: none seen. (2)functions: the sinkbasin cleans things.\nExpert Actions: look")
	case cdmem.PurposeReflect:
		return agenttest.Pick(req, "Reflection: Search failure: I should search the receptacles in order.", "Reflection: Looking around was essential.")
	case cdmem.PurposeSceneSummary:
		return agenttest.Pick(req, "Summary: the sinkbasin cleans things.", "Summary: the microwave heats things.")
	case cdmem.PurposeTaskSummary:
		return agenttest.Pick(req, "Guidance:\n1. Search every receptacle once.\n2. Do not check the inventory twice.", "Guidance:\n1. Look around first.")
	}
	return "Thought: " + agenttest.Pick(req, "Look around.", "Check the inventory.") + "\nAction: " + agenttest.Pick(req, "look", "inventory")
}

func TestConformance(t *testing.T) {
	emb := offline.New(256)
	agenttest.Run(t, agenttest.Options{
		New: func(chat llm.Chatter) (agent.Method, error) {
			return cdmem.New(cdmem.Config{}, cdmem.Deps{Chat: chat, Embed: emb, Offline: cdoff.Roles{}})
		},
		Script: script,
		Errors: []error{cdmem.ErrFormat},
	})
}
