package samem_test

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/agent/agenttest"
	"github.com/samem/trainer/forget"
	forgetoff "github.com/samem/trainer/forget/offline"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/samem"
	"github.com/samem/trainer/summarize"
	sumoff "github.com/samem/trainer/summarize/offline"
	"github.com/samem/trainer/thought"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// script answers SAMem's model calls: states and thoughts from small fixed
// sets (so that clusters repeat and Q-values build up), actions every
// household room has, and verdicts both ways.
func script(req llm.Request) string {
	switch req.Purpose {
	case summarize.Purpose:
		return agenttest.Pick(req, "Searching the room for the target object.", "Holding the target object near an appliance.", "Standing at the goal receptacle with the object.")
	case thought.Purpose:
		return "Thought: " + agenttest.Pick(req, "Look around for the object.", "Check what is carried.", "Open the closest receptacle.")
	case thought.PurposeAct:
		return "Action: " + agenttest.Pick(req, "look", "inventory")
	case forget.Purpose:
		return "is valid: " + agenttest.Pick(req, "true", "false")
	}
	return ""
}

func TestConformance(t *testing.T) {
	for name, cfg := range map[string]samem.Config{
		"samem": {}, "no-q": {NoQ: true}, "no-situation": {NoClustering: true}, "no-decay": {NoDecay: true},
		"no-forgetting": {NoForgetting: true}, "action-level": {ActionLevel: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			agenttest.Run(t, agenttest.Options{
				New: func(chat llm.Chatter) (agent.Method, error) {
					d := samem.Deps{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}, Checker: forgetoff.Checker{}, Embedder: offline.New(256)}
					if chat != nil {
						d.Summarizer, d.Thinker, d.Checker = summarize.NewLLM(chat), thought.NewLLM(chat, d.Embedder), forget.NewLLM(chat)
					}
					if cfg.NoClustering {
						d.Summarizer = summarize.Raw{}
					}
					return samem.New(cfg, d)
				},
				Script: script,
				Errors: []error{samem.ErrFormat},
			})
		})
	}
}
