package memrl_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/memrl"
	memrloff "github.com/samem/trainer/memrl/offline"
)

// script answers MemRL's model calls: actions every household room has,
// scripts and reflections from small fixed sets.
func script(req llm.Request) string {
	switch req.Purpose {
	case memrl.Name + ".script", memrl.NoQName + ".script":
		return agenttest.Pick(req, "1. Search the receptacles.\n2. Take the target object.\n3. Carry it to the destination.", "Script:\n- Look first.\n- Check the inventory.")
	case memrl.Name + ".reflect", memrl.NoQName + ".reflect":
		return agenttest.Pick(req, "Reflection: I wasted steps looking around.", "I should open closed receptacles.")
	}
	return "Thought: " + agenttest.Pick(req, "Look around.", "Check the inventory.") + "\nAction: " + agenttest.Pick(req, "look", "inventory")
}

func TestConformance(t *testing.T) {
	emb := offline.New(256)
	for _, cfg := range []memrl.Config{{}, {Name: memrl.NoQName, NoQ: true}} {
		t.Run(cfg.Resolved().Name, func(t *testing.T) {
			t.Parallel()
			agenttest.Run(t, agenttest.Options{
				New: func(chat llm.Chatter) (agent.Method, error) {
					return memrl.New(cfg, memrl.Deps{Chat: chat, Embed: emb, Offline: memrloff.Agent{}})
				},
				Script: script,
				Errors: []error{memrl.ErrFormat},
			})
		})
	}
}
