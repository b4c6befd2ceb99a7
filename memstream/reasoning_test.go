package memstream

import (
	"context"
	"testing"

	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

func TestSchemasGolden(t *testing.T) {
	for _, s := range []*llm.Schema{ImportanceSchema, QuestionsSchema, InsightsSchema} {
		golden.Schema(t, s)
	}
}

// TestRolesReasoningAndStructured: ratings, questions and insights are read
// from their JSON without repair, and never from reasoning; a rating never
// given is the middle of the scale.
func TestRolesReasoningAndStructured(t *testing.T) {
	cut := llmtest.Scripted{Text: "<think>Rating: 10", FinishReason: "length"}
	c := llmtest.NewChatter(t)
	c.Add(
		llmtest.Scripted{Text: `{"rating": 8}`, Structured: true},
		llmtest.Scripted{Text: "<think>Rating: 10</think>Rating: 2"},
		cut, cut, cut,
		llmtest.Scripted{Text: `{"questions": ["Where is the apple?", "What is open?"]}`, Structured: true},
		llmtest.Scripted{Text: `{"insights": [{"insight": "The apple is in the fridge.", "because_of": [1, 9]}]}`, Structured: true},
	)
	l := &LLM{Chat: c}
	m := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), m)
	var rates []float64
	for range 3 {
		v, err := l.Importance(ctx, "g", "m")
		if err != nil {
			t.Fatal(err)
		}
		rates = append(rates, v)
	}
	if rates[0] != 8 || rates[1] != 2 || rates[2] != 5 {
		t.Errorf("ratings %v, want [8 2 5]", rates)
	}
	qs, err := l.Questions(ctx, []string{"a", "b"})
	if err != nil || len(qs) != 2 || qs[0] != "Where is the apple?" {
		t.Errorf("Questions = %q, %v", qs, err)
	}
	ins, err := l.Insights(ctx, "g", []string{"a", "b"})
	if err != nil || len(ins) != 1 || ins[0].Text != "The apple is in the fridge" || len(ins[0].Evidence) != 1 {
		t.Errorf("Insights = %+v, %v", ins, err)
	}
	r := m.Report()
	if s := r.ByPurpose[PurposeImportance]; s != (llm.Stats{Replies: 5, Unusable: 3, AskedAgain: 2, FellBack: 1, Reasoned: 4}) {
		t.Errorf("importance: %+v", s)
	}
	for _, p := range []string{PurposeQuestions, PurposeInsights} {
		if s := r.ByPurpose[p]; s != (llm.Stats{Replies: 1}) {
			t.Errorf("%s: %+v", p, s)
		}
	}
}
