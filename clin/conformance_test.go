package clin_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/clin"
	clinoff "github.com/samem/trainer/clin/offline"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
)

// script answers CLIN's model calls: controller replies with actions every
// household room has, memories and advice from small fixed sets, and a
// selection of the first items.
func script(req llm.Request) string {
	switch req.Purpose {
	case clin.PurposeController:
		return agenttest.Pick(req, "I used learning id(s): 1 $$$ Look around. ### look", "I used learning id(s): $$$ Check what I carry. ### inventory")
	case clin.PurposeAdapt, clin.PurposeMeta, clin.PurposeMetaTask:
		return agenttest.Pick(req, "1. Looking around SHOULD BE NECESSARY to find the object.\n2. Checking the inventory DOES NOT CONTRIBUTE to the task.",
			"1. Opening receptacles MAY BE NECESSARY to find the object.")
	case clin.PurposeAdvice, clin.PurposeMetaAdvice:
		return agenttest.Pick(req, "1. Search every receptacle once.", "1. Do not check the inventory twice.")
	case clin.PurposeSelect:
		return "1, 2"
	}
	return ""
}

// TestConformance runs agenttest for CLIN and each of its settings of seed
// 004 (G+A, GEN-TASK, the advice ablation).
func TestConformance(t *testing.T) {
	emb := offline.New(256)
	for name, cfg := range map[string]clin.Config{
		"clin": {}, "clin-ga": {GA: true}, "clin-gen-task": {GenTask: true, GA: true}, "clin-advice": {Advice: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			agenttest.Run(t, agenttest.Options{
				New: func(chat llm.Chatter) (agent.Method, error) {
					return clin.New(cfg, clin.Deps{Chat: chat, Embed: emb, Controller: clinoff.Controller{}, Generator: clinoff.Generator{}})
				},
				Script: script,
				Errors: []error{clin.ErrFormat},
			})
		})
	}
}
