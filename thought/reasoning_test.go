package thought

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/internal/jsonschema"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

func TestSchemasGolden(t *testing.T) {
	for _, s := range []*llm.Schema{ThoughtSchema, ActionSchema, ThoughtActionSchema} {
		golden.Schema(t, s)
	}
}

// think runs one step of the thinker (two calls, or one) on script and
// returns the decision, the requests and the counts of each purpose.
func think(t *testing.T, oneCall bool, in Input, script ...llmtest.Scripted) (Decision, []llm.Request, map[string]llm.Stats) {
	t.Helper()
	ch := llmtest.NewChatter(t)
	ch.Add(script...)
	th := NewLLM(ch, nil)
	th.OneCall = oneCall
	meter := llm.NewMeter(nil)
	d, err := th.Begin(envbridge.Task{Goal: "g"}, envbridge.StyleHousehold, nil).Think(llm.WithMeter(context.Background(), meter), in)
	if err != nil {
		t.Fatalf("Think: %v", err)
	}
	if n := ch.Remaining(); n != 0 {
		t.Errorf("%d scripted replies left", n)
	}
	return d, ch.Requests(), meter.Report().ByPurpose
}

// TestReasoningNeverAThought: neither the thought nor the action is read
// from reasoning, in any shape; a cut-off or empty reply is asked again.
func TestReasoningNeverAThought(t *testing.T) {
	in := Input{State: "s", Obs: envbridge.Observation{Text: "o", Admissible: adm}}
	d, reqs, st := think(t, false, in,
		llmtest.Scripted{Text: "<think>Thought: poison thought", FinishReason: "length"},
		llmtest.Scripted{Text: "Thought: poison\n</think>\nThought: Pick up the target object."},
		llmtest.Scripted{Text: "", Reasoning: "Action: take apple 1 from countertop 1"},
		llmtest.Scripted{Text: "<thinking>Action: look</thinking>Action: take apple 1 from countertop 1"},
	)
	if d.Thought != "Pick up the target object." || d.Action != "take apple 1 from countertop 1" || !d.Matched || d.Attempts != 4 {
		t.Errorf("Think = %+v", d)
	}
	if got := st[Purpose]; got != (llm.Stats{Replies: 2, Unusable: 1, AskedAgain: 1, Reasoned: 2}) {
		t.Errorf("think counts %+v", got)
	}
	if got := st[PurposeAct]; got != (llm.Stats{Replies: 2, Unusable: 1, AskedAgain: 1, Reasoned: 2}) {
		t.Errorf("act counts %+v", got)
	}
	if reqs[0].Schema != ThoughtSchema || reqs[2].Schema.Name != ActionSchema.Name {
		t.Errorf("schemas %s, %s", reqs[0].Schema.Name, reqs[2].Schema.Name)
	}
	// The action call limits its answer to the admissible actions.
	if err := jsonschema.Strict(reqs[2].Schema.JSON); err != nil {
		t.Errorf("action schema with choices: %v", err)
	}
	for _, v := range []string{`{"action": "look"}`, `{"action": "fly"}`} {
		err := jsonschema.Validate(reqs[2].Schema.JSON, []byte(v))
		if (err == nil) != strings.Contains(v, "look") {
			t.Errorf("%s against the action schema: %v", v, err)
		}
	}
	if !strings.Contains(reqs[1].Messages[1].Content, "ran out of room") || reqs[1].MaxTokens != 400 {
		t.Errorf("asked again with %d tokens:\n%s", reqs[1].MaxTokens, reqs[1].Messages[1].Content)
	}
	for _, r := range reqs {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "poison") {
				t.Errorf("reasoning went back to the model: %q", m.Content)
			}
		}
	}
}

// TestUnusableThoughtFallsBack: with no usable thought, the guide is the
// thought; without a guide the step has none, and the action is still
// asked for. With no usable action the decision has none: the environment
// answers the empty action. Nothing is an error.
func TestUnusableThoughtFallsBack(t *testing.T) {
	cut := llmtest.Scripted{Text: "<think>Thought: poison", FinishReason: "length"}
	in := Input{State: "s", Guide: "Open the fridge.", Obs: envbridge.Observation{Text: "o", Admissible: adm}}
	d, reqs, st := think(t, false, in, cut, cut, cut, llmtest.Scripted{Text: "Action: look"})
	if d.Thought != "Open the fridge." || d.Action != "look" || d.Attempts != 4 {
		t.Errorf("guided: %+v", d)
	}
	if !strings.Contains(reqs[3].Messages[1].Content, "Thought: Open the fridge.") {
		t.Errorf("action call without the guide as thought:\n%s", reqs[3].Messages[1].Content)
	}
	if got := st[Purpose]; got.FellBack != 1 || got.AskedAgain != 2 || got.Unusable != 3 {
		t.Errorf("think counts %+v", got)
	}
	in.Guide = ""
	d, _, _ = think(t, false, in, cut, cut, cut, llmtest.Scripted{Text: "Action: look"})
	if d.Thought != "" || d.Action != "look" {
		t.Errorf("unguided: %+v", d)
	}
	d, _, st = think(t, true, in, cut, llmtest.Scripted{Text: ""}, llmtest.Scripted{Text: "<think>x</think>"})
	if d.Thought != "" || d.Action != "" || d.Matched || d.Attempts != 3 {
		t.Errorf("no usable reply: %+v", d)
	}
	if got := st[Purpose]; got != (llm.Stats{Replies: 3, Unusable: 3, AskedAgain: 2, Skipped: 1, Reasoned: 2}) {
		t.Errorf("one-call counts %+v", got)
	}
}

// TestStructuredAnswers: a structured answer is read from its JSON without
// repair; a server that ignored the schema is read as text.
func TestStructuredAnswers(t *testing.T) {
	in := Input{State: "s", Obs: envbridge.Observation{Text: "o", Admissible: adm}}
	d, _, st := think(t, false, in,
		llmtest.Scripted{Text: `{"thought": "Pick up the target object."}`, Structured: true},
		llmtest.Scripted{Text: `{"action": "take apple 1 from countertop 1"}`, Structured: true})
	if d.Thought != "Pick up the target object." || !d.Matched {
		t.Errorf("Think = %+v", d)
	}
	for _, p := range []string{Purpose, PurposeAct} {
		if got := st[p]; got != (llm.Stats{Replies: 1}) {
			t.Errorf("%s counts %+v", p, got)
		}
	}
	d, _, _ = think(t, true, in, llmtest.Scripted{Text: "Thought: t\nAction: take apple 1 from countertop 1", Structured: true})
	if d.Thought != "t" || !d.Matched {
		t.Errorf("text under a schema: %+v", d)
	}
}

func TestTransportError(t *testing.T) {
	ch := llmtest.NewChatter(t)
	boom := errors.New("gone")
	ch.Add(llmtest.Scripted{Err: boom})
	_, err := NewLLM(ch, nil).Begin(envbridge.Task{}, envbridge.StyleHousehold, nil).Think(context.Background(), Input{})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}
