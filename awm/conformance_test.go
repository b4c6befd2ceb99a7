package awm_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/awm"
	awmoff "github.com/samem/trainer/awm/offline"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
)

// script answers AWM's model calls: actions every household room has and
// workflows from a small fixed set.
func script(req llm.Request) string {
	if req.Purpose == awm.Name+".induce" {
		return agenttest.Pick(req,
			"Workflow: Search a room\nDescription: Given that the object is not found, this workflow looks around.\n1. State: nothing found Reasoning: look first Action: look\n2. State: still nothing Reasoning: check hands Action: inventory",
			"Workflow: Check\nDescription: Given any task, check the inventory twice.\n1. Action: inventory\n2. Action: inventory\n\nWorkflow: Too short\n1. Action: look")
	}
	return "Thought: " + agenttest.Pick(req, "Look around.", "Check the inventory.") + "\nAction: " + agenttest.Pick(req, "look", "inventory")
}

func TestConformance(t *testing.T) {
	emb := offline.New(256)
	agenttest.Run(t, agenttest.Options{
		New: func(chat llm.Chatter) (agent.Method, error) {
			return awm.New(awm.Config{}, awm.Deps{Chat: chat, Embed: emb, Offline: awmoff.Roles()})
		},
		Script: script,
		Errors: []error{awm.ErrFormat},
		// Workflows are induced from successes only (spec §3.1).
		OnlineFromWins: true,
	})
}
