package kgplan_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/kgplan"
	kgoff "github.com/samem/trainer/kgplan/offline"
	"github.com/samem/trainer/llm"
)

// script answers L3M+P's model calls: updates that add nothing or what a
// household room's start shows, a goal over the household's types, and the
// agent as the relevant entity.
func script(req llm.Request) string {
	switch req.Purpose {
	case "kgplan.update":
		return agenttest.Pick(req, `{"REMOVE": [], "ADD": []}`, `{"REMOVE": [], "ADD": ["you -> at -> middle-of-room", "you -> handempty -> true"]}`)
	case "kgplan.goal":
		return "(:goal (exists (?o - apple ?r - countertop) (and (in ?o ?r))))"
	case "kgplan.entities":
		return `["you"]`
	}
	return ""
}

func TestConformance(t *testing.T) {
	for name, cfg := range map[string]kgplan.Config{
		"kgplan": {CanHold: household.CanHold}, "no-lifelong": {NoLifelong: true, CanHold: household.CanHold},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			agenttest.Run(t, agenttest.Options{
				New: func(chat llm.Chatter) (agent.Method, error) {
					return kgplan.New(cfg, kgplan.Deps{Chat: chat, Text: kgoff.Text{}})
				},
				Script: script,
			})
		})
	}
}
