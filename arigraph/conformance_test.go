package arigraph_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/arigraph"
	arioff "github.com/samem/trainer/arigraph/offline"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
)

// script answers AriGraph's model calls: triplets and plans from small
// fixed sets, no outdated triplets, and actions every household room has.
func script(req llm.Request) string {
	switch req.Purpose {
	case arigraph.PurposeExtract:
		return agenttest.Pick(req, "apple 1, is in, fridge 1; fridge 1, is, closed", "mug 1, is on, countertop 1; room, has receptacle, countertop 1")
	case arigraph.PurposeReplace:
		return "[]"
	case arigraph.PurposeExplore:
		return agenttest.Pick(req, "True", "False")
	case arigraph.PurposePlan:
		return agenttest.Pick(req, `{"main_goal": "do the task", "plan_steps": [{"sub_goal_1": "look around"}]}`, `{"main_goal": "do the task"}`)
	case arigraph.PurposeDecide:
		return agenttest.Pick(req, `{"reason_for_action": "see", "action_to_take": "look"}`, `{"reason_for_action": "check", "action_to_take": "inventory"}`)
	}
	return ""
}

// TestConformance runs agenttest for AriGraph: seed 000's zero-shot
// setting, the lifelong option (Carry) and the ablation without episodic
// memory.
func TestConformance(t *testing.T) {
	emb := offline.New(256)
	for name, cfg := range map[string]arigraph.Config{
		"arigraph": {}, "carry": {Carry: true}, "no-episodic": {NoEpisodic: true, Carry: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			agenttest.Run(t, agenttest.Options{
				New: func(chat llm.Chatter) (agent.Method, error) {
					return arigraph.New(cfg, arigraph.Deps{Chat: chat, Embed: emb, Offline: arioff.Roles{}})
				},
				Script: script,
				Errors: []error{arigraph.ErrFormat},
				// Zero-shot AriGraph's graph is the episode's own: an
				// online evaluation has nothing to keep.
				OnlineKeeps: !cfg.Carry,
			})
		})
	}
}
