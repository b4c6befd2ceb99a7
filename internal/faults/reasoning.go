package faults

import (
	"encoding/binary"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/samem/trainer/llm/llmtest"
)

// ReasoningMark is in every piece of reasoning Reasoning sends (and in the
// part of an answer cut off with it): a memory that holds it was built
// from reasoning, or from a cut-off reply.
const ReasoningMark = "zqxreason"

// ReasoningShapes names the shapes in which Reasoning answers, in the
// order of their numbers: how reasoning models answer through the servers
// people run them on.
var ReasoningShapes = []string{
	"think block in the content",                   // vLLM or llama.cpp without a reasoning parser
	"closing tag only (template opened the block)", // DeepSeek-R1 and its distillations, QwQ
	"reasoning_content field",                      // vLLM's reasoning parser, DeepSeek's API
	"reasoning field",                              // OpenRouter, newer vLLM, Ollama's OpenAI API
	"thinking field",                               // Ollama's own API
	"thinking tag in the content",                  // other tag names
	"harmony channels",                             // gpt-oss without a parser
	"cut off while reasoning, content empty",       // finish_reason length
	"cut off while reasoning, open think block",    // finish_reason length
	"cut off in the answer, after the reasoning",   // finish_reason length
	"reasoning only, content null, finish stop",    // nothing left of the reply
	"plain answer",                                 // a reply without reasoning
}

// reasoningText is reasoning that looks like every role's answer, so that
// a parser that read it would store the mark.
func reasoningText(answer string) string {
	m := ReasoningMark
	return "Okay, " + m + ": let me think about what the prompt asks.\n" +
		"Summary: the " + m + " state.\nThought: " + m + " plan.\nAction: " + m + "\n" +
		"is_valid: False\nRating: 10\nI used learning id(s): 1 $$$ " + m + " ### " + m + "\n" +
		"1. " + m + " SHOULD BE NECESSARY to " + m + "\n" + m + ", has, " + m + "\n" +
		`{"action_to_take": "` + m + `", "REMOVE": [], "ADD": ["` + m + ` -> at -> ` + m + `"]}` + "\n" +
		"Reflection: " + m + ".\n(:goal (" + m + "))\n" +
		"A first draft: " + answer + " " + m + "\nThat should do."
}

// Reasoning answers every chat with h's answer in one of the shapes of
// ReasoningShapes, chosen by a hash of the request body and seed (so a run
// repeats whatever the order of its calls): reasoning in think tags, in a
// field beside the content, in harmony channels, a reply cut off at its
// token limit while reasoning or in the answer, and an empty one. Every
// reasoning holds ReasoningMark; so does the part of an answer cut off.
// Replies with reasoning report reasoning tokens. Faults and embeddings
// pass through. shapes, when not nil, counts the replies of each shape.
func Reasoning(seed uint64, h llmtest.Handler, shapes *Shapes) llmtest.Handler {
	return func(c llmtest.Call) llmtest.Reply {
		r := h(c)
		if c.Chat == nil || r.Fault != (llmtest.Fault{}) {
			return r
		}
		f := fnv.New64a()
		var s [8]byte
		binary.LittleEndian.PutUint64(s[:], seed)
		f.Write(s[:])
		f.Write(c.Body)
		shape := int(f.Sum64() % uint64(len(ReasoningShapes)))
		shapes.add(shape)
		answer := r.Text
		reasoning := reasoningText(answer)
		half := reasoning[:len(reasoning)/2]
		r.ReasoningTokens = llmtest.EstimateTokens(reasoning)
		switch shape {
		case 0:
			r.Text = "<think>\n" + reasoning + "\n</think>\n\n" + answer
		case 1:
			r.Text = reasoning + "\n</think>\n\n" + answer
		case 2:
			r.Reasoning, r.ReasoningField = reasoning, "reasoning_content"
		case 3:
			r.Reasoning, r.ReasoningField = reasoning, "reasoning"
		case 4:
			r.Reasoning, r.ReasoningField = reasoning, "thinking"
		case 5:
			r.Text = "<thinking>" + reasoning + "</thinking>\n" + answer
		case 6:
			r.Text = "<|channel|>analysis<|message|>" + reasoning + "<|end|><|start|>assistant<|channel|>final<|message|>" + answer + "<|return|>"
		case 7:
			r.Text, r.NullContent, r.Reasoning, r.FinishReason = "", true, half, "length"
			r.ReasoningTokens = llmtest.EstimateTokens(half)
		case 8:
			r.Text, r.FinishReason = "<think>\n"+half, "length"
			r.ReasoningTokens = llmtest.EstimateTokens(half)
		case 9:
			r.Text, r.FinishReason = "<think>"+reasoning+"</think>\n"+answer[:len(answer)/2]+" "+ReasoningMark, "length"
		case 10:
			r.Text, r.NullContent, r.Reasoning = "", true, reasoning
		default:
			r.ReasoningTokens = 0
		}
		return r
	}
}

// Shapes counts the replies Reasoning gave in each shape.
type Shapes struct {
	mu sync.Mutex
	n  [12]int
}

func (s *Shapes) add(i int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.n[i]++
	s.mu.Unlock()
}

// Counts is the number of replies of each shape, by ReasoningShapes' order.
func (s *Shapes) Counts() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.n[:len(ReasoningShapes)]...)
}

// HasReasoning reports whether s holds reasoning Reasoning sent (its mark).
func HasReasoning(s string) bool { return strings.Contains(strings.ToLower(s), ReasoningMark) }
