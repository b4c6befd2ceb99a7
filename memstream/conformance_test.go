package memstream_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/memstream"
	msoff "github.com/samem/trainer/memstream/offline"
)

// script answers the memory stream's model calls: ratings, questions and
// insights from small fixed sets, plans, and actions every household room
// has.
func script(req llm.Request) string {
	switch req.Purpose {
	case memstream.PurposeImportance:
		return agenttest.Pick(req, "Rating: 8", "Rating: 2", "5")
	case memstream.PurposeQuestions:
		return "1. Where is the target object?"
	case memstream.PurposeInsights:
		return agenttest.Pick(req, "The target object is on a countertop (because of 1)", "Nothing here helps (because of 1, 2)")
	case memstream.PurposePlan:
		return `{"main_goal": "do the task"}`
	case memstream.PurposeDecide:
		return agenttest.Pick(req, `{"reason_for_action": "see", "action_to_take": "look"}`, `{"reason_for_action": "check", "action_to_take": "inventory"}`)
	}
	return ""
}

func TestConformance(t *testing.T) {
	emb := offline.New(256)
	agenttest.Run(t, agenttest.Options{
		New: func(chat llm.Chatter) (agent.Method, error) {
			// A low threshold, so that the short runs reflect; Carry, so
			// that training leaves a stream to save and load.
			return memstream.New(memstream.Config{Threshold: 20, Carry: true}, memstream.Deps{Chat: chat, Embed: emb, Offline: msoff.Method{}})
		},
		Script: script,
		Errors: []error{memstream.ErrFormat},
	})
}
