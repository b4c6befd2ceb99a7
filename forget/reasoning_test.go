package forget

import (
	"context"
	"testing"

	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

func TestSchemaGolden(t *testing.T) { golden.Schema(t, Schema) }

// TestCheckReasoning: the verdict is never read from reasoning; a verdict
// never given keeps the thought (valid, skipped) instead of an error.
func TestCheckReasoning(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script []llmtest.Scripted
		want   bool
		stats  llm.Stats
	}{
		{"think block", []llmtest.Scripted{{Text: "<think>is_valid: False</think>is_valid: True"}}, true, llm.Stats{Replies: 1, Reasoned: 1}},
		{"reasoning field", []llmtest.Scripted{{Text: "is_valid: True", Reasoning: "is_valid: False"}}, true, llm.Stats{Replies: 1, Reasoned: 1}},
		{"structured", []llmtest.Scripted{{Text: `{"is_valid": false}`, Structured: true}}, false, llm.Stats{Replies: 1}},
		{"cut off, then an answer", []llmtest.Scripted{{Text: "<think>is_valid: False", FinishReason: "length"}, {Text: "is_valid: False"}},
			false, llm.Stats{Replies: 2, Unusable: 1, AskedAgain: 1, Reasoned: 1}},
		{"never a verdict", []llmtest.Scripted{{Text: "<think>is_valid: False", FinishReason: "length"}, {Text: "maybe"}, {Text: ""}},
			true, llm.Stats{Replies: 3, Unusable: 3, AskedAgain: 2, Skipped: 1, Reasoned: 1}},
	} {
		ch := llmtest.NewChatter(t)
		ch.Add(tc.script...)
		meter := llm.NewMeter(nil)
		v, err := NewLLM(ch).Check(llm.WithMeter(context.Background(), meter), "state", "thought")
		if err != nil || v != tc.want {
			t.Errorf("%s: Check = %v, %v; want %v", tc.name, v, err, tc.want)
		}
		if st := meter.Report().ByPurpose[Purpose]; st != tc.stats {
			t.Errorf("%s: counts %+v, want %+v", tc.name, st, tc.stats)
		}
		if r := ch.Requests()[0]; r.Schema != Schema {
			t.Errorf("%s: schema %v", tc.name, r.Schema)
		}
	}
}
