package clin

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/clin/internal/fakeworld"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/jsonschema"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

func TestSchemasGolden(t *testing.T) {
	for _, s := range []*llm.Schema{ControllerSchema, LearningsSchema, AdviceSchema, SelectSchema} {
		if err := jsonschema.Strict(s.JSON); err != nil {
			t.Errorf("schema %s: %v", s.Name, err)
		}
		var b bytes.Buffer
		if err := json.Indent(&b, s.JSON, "", "  "); err != nil {
			t.Fatal(err)
		}
		got := append(b.Bytes(), '\n')
		path := filepath.Join("testdata", "schema-"+s.Name+".json.golden")
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if want, err := os.ReadFile(path); err != nil || string(want) != string(got) {
			t.Errorf("%s differs from %s (run with -update if intended): %v\n%s", s.Name, path, err, got)
		}
	}
}

// TestControllerReasoning: the action is never read from reasoning; a
// reply with no action is asked again, then the proposal is empty.
func TestControllerReasoning(t *testing.T) {
	in := ControllerInput{Task: fakeworld.HeatApple, Style: envbridge.StyleHousehold, Obs: envbridge.Observation{Text: "o", Admissible: []string{"look", "open fridge 1"}}}
	c := llmtest.NewChatter(t)
	c.Add(
		llmtest.Scripted{Text: "<think>### take poison</think>I used learning id(s): $$$ the fridge may hold it ### open fridge 1"},
		llmtest.Scripted{Text: `{"used_learning_ids": [1], "rationale": "look first", "action": "look"}`, Structured: true},
		llmtest.Scripted{Text: "", Reasoning: "### take poison", FinishReason: "length"},
		llmtest.Scripted{Text: "<think>### take poison"},
		llmtest.Scripted{Text: "<reasoning>### take poison</reasoning>"},
	)
	m := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), m)
	ctl := &LLMController{Chat: c}
	var got []Proposal
	for range 3 {
		p, err := ctl.Next(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	if got[0].Action != "open fridge 1" || got[1].Action != "look" || got[1].Goal != "look first" || got[2].Action != "" {
		t.Errorf("proposals %+v", got)
	}
	if s := m.Report().ByPurpose[PurposeController]; s != (llm.Stats{Replies: 5, Unusable: 3, AskedAgain: 2, FellBack: 1, Reasoned: 4}) {
		t.Errorf("counts %+v", s)
	}
	if r := c.Requests()[0]; r.Schema.Name != ControllerSchema.Name || !strings.Contains(string(r.Schema.JSON), `"enum":["look","open fridge 1"]`) {
		t.Errorf("schema %s: want the controller's, its action limited to the admissible ones", r.Schema.JSON)
	}
}

// TestGeneratorStructured: learnings and advice are read from their JSON
// items without repair, never from reasoning.
func TestGeneratorStructured(t *testing.T) {
	c := llmtest.NewChatter(t)
	c.Add(
		llmtest.Scripted{Text: `{"learnings": ["opening the fridge SHOULD BE NECESSARY to finding the apple", "no relation here"]}`, Structured: true},
		llmtest.Scripted{Text: `{"advice": ["Open the fridge first."]}`, Structured: true},
		llmtest.Scripted{Text: "looking around MAY BE NECESSARY to poison\n</think>\n1. heating the apple SHOULD BE NECESSARY to completing the task"},
	)
	m := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), m)
	gen := &LLMGenerator{Chat: c}
	items, err := gen.Adapt(ctx, AdaptInput{Task: fakeworld.HeatApple})
	if err != nil || len(items) != 1 || items[0].X != "opening the fridge" {
		t.Fatalf("Adapt = %+v, %v", items, err)
	}
	adv, err := gen.Adapt(ctx, AdaptInput{Task: fakeworld.HeatApple, Advice: true})
	if err != nil || len(adv) != 1 || adv[0].X != "Open the fridge first." {
		t.Fatalf("advice = %+v, %v", adv, err)
	}
	meta, err := gen.Meta(ctx, MetaInput{Task: fakeworld.HeatApple})
	if err != nil || len(meta) != 1 || meta[0].X != "heating the apple" {
		t.Fatalf("Meta = %+v, %v", meta, err)
	}
	r := m.Report()
	for _, p := range []string{PurposeAdapt, PurposeAdvice} {
		if s := r.ByPurpose[p]; s != (llm.Stats{Replies: 1}) {
			t.Errorf("%s: %+v", p, s)
		}
	}
	reqs := c.Requests()
	if reqs[0].Schema != LearningsSchema || reqs[1].Schema != AdviceSchema {
		t.Errorf("schemas %v %v", reqs[0].Schema, reqs[1].Schema)
	}
}
