package clin

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/openai"
	"github.com/samem/trainer/runner"
)

// fig13Reply is a free-form advice reply in the shape of seed 004 Fig. 13,
// decorated as chat models do.
const fig13Reply = "Sure! Here is the advice:\n\n" +
	"1. **Avoid repeating actions:** The agent opened the cabinet twice. Once you know what is inside,\n   move on to the next step.\n" +
	"2. Be mindful of the order of actions: heat the apple before you put it down.\n" +
	"3. Use the microwave to heat things.\n\n" +
	"I hope this helps!"

func TestParseAdvice(t *testing.T) {
	got := ParseAdvice(fig13Reply)
	want := []string{
		"Avoid repeating actions: The agent opened the cabinet twice. Once you know what is inside, move on to the next step.",
		"Be mindful of the order of actions: heat the apple before you put it down.",
		"Use the microwave to heat things.",
	}
	if len(got) != len(want) {
		t.Fatalf("ParseAdvice gave %d items %+v, want %d", len(got), got, len(want))
	}
	for i, a := range got {
		if a.Kind != Advice || a.X != want[i] || a.Y != "" || a.String() != want[i] {
			t.Errorf("item %d = %+v (%q), want advice %q", i, a, a.String(), want[i])
		}
	}
	// Unnumbered advice: one item per line; a heading alone is no item.
	got = ParseAdvice("Advice:\nOpen closed receptacles first.\nCheck the countertops.")
	if len(got) != 2 || got[0].X != "Open closed receptacles first." {
		t.Errorf("unnumbered advice: %+v", got)
	}
	for _, junk := range []string{"", "```\n```", "Summary of advice as a numbered list:", "1.\n2."} {
		if got := ParseAdvice(junk); len(got) != 0 {
			t.Errorf("ParseAdvice(%q) = %+v, want nothing", junk, got)
		}
	}
	long := "1. " + strings.Repeat("é", 2*maxAdvice)
	if got := ParseAdvice(long); len(got) != 1 || len(got[0].X) > maxAdvice+4 || !utf8.ValidString(got[0].X) {
		t.Errorf("long advice not bounded to valid text: %d bytes", len(got[0].X))
	}
}

func FuzzParseAdvice(f *testing.F) {
	for _, s := range []string{fig13Reply, "1. a\n2. b", "- x\n  y\n\n* z", "```\n1. a\n```", "Here is:\n", "\x00\r\n1)", "1. " + strings.Repeat("ü", 400)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, a := range ParseAdvice(s) {
			if a.Kind != Advice || a.Y != "" || strings.TrimSpace(a.X) == "" || a.String() != a.X {
				t.Fatalf("ParseAdvice(%q) gave %+v", s, a)
			}
			if strings.Contains(a.X, "\n") || len(a.X) > maxAdvice+4 {
				t.Fatalf("ParseAdvice(%q): item of %d bytes or with a newline: %q", s, len(a.X), a.X)
			}
			if utf8.ValidString(s) && !utf8.ValidString(a.X) {
				t.Fatalf("ParseAdvice(%q) made invalid text %q", s, a.X)
			}
		}
	})
}

func TestAdvicePromptsGolden(t *testing.T) {
	a, err := AdaptMessages(AdaptInput{
		Task: heatApple, Trial: 1, Trace: goldenTrace, Reward: 0, Advice: true,
		Previous: []Memory{{Trial: 0, Items: ParseAdvice(fig13Reply)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "adapt_advice", a)
	m, err := MetaMessages(MetaInput{Task: heatEgg, Style: envbridge.StyleHousehold, Advice: true, Archive: []Archived{
		{Task: heatApple, Reward: 1, Items: ParseAdvice(fig13Reply)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "meta_advice", m)
	for _, msgs := range [][]llm.Message{a, m} {
		p := msgs[1].Content
		if strings.Contains(p, "can ONLY be of the form") || !strings.Contains(p, "free-form advice") {
			t.Errorf("advice prompt still asks for causal abstractions:\n%s", p)
		}
	}
}

// TestAdviceMemoryOffline: with Config.Advice the offline generator's
// memory is advice, never a causal abstraction ("X may be necessary to
// Y"), on the household world; it is saved and loaded as it is, and the
// meta-memory of a held-out task is advice too.
func TestAdviceMemoryOffline(t *testing.T) {
	suite, train, unseen := householdSplits(t, 1, 12)
	m, err := New(Config{Advice: true}, Deps{Embed: newOffline(t).emb})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: train, Iterations: 2, Workers: 1, Seed: 1, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range train {
		for _, a := range m.Memory(task.ID) {
			n++
			if a.Kind != Advice {
				t.Errorf("%s: memory item %q is %s, want advice", task.ID, a, a.Kind)
			}
			if b, ok := ParseAbstraction(a.String()); ok {
				t.Errorf("%s: advice %q reads as a causal abstraction %+v", task.ID, a, b)
			}
		}
	}
	if n == 0 {
		t.Fatal("no advice in memory after training")
	}
	dir := t.TempDir()
	if err := m.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	back, err := New(Config{Advice: true}, Deps{Embed: m.emb})
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	for _, task := range train {
		if got, want := back.Memory(task.ID), m.Memory(task.ID); !reflect.DeepEqual(got, want) {
			t.Errorf("%s after save and load: %+v, want %+v", task.ID, got, want)
		}
	}
	ep, err := m.Start(ctx, agent.Start{Task: unseen[0], Mode: agent.Eval, Style: suite.Style(), Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	meta := ep.(*episode).memory
	if len(meta) == 0 {
		t.Fatalf("held-out %s (%s) starts with no advice", unseen[0].ID, unseen[0].Type)
	}
	for _, a := range meta {
		if a.Kind != Advice || a.Modifier != ModNone {
			t.Errorf("meta-memory item %+v, want advice without modifier", a)
		}
	}
	t.Logf("%d advice items after training; held-out %s starts from %d, e.g. %q", n, unseen[0].ID, len(meta), meta[0])
}

// TestAdviceLLMPath: through the OpenAI protocol, the memory generator of
// clin-advice is asked for advice and what it stores is the advice the
// model wrote, counted under its own purpose.
func TestAdviceLLMPath(t *testing.T) {
	srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		if c.Chat == nil {
			return llmtest.Reply{}
		}
		p := c.Chat.Prompt()
		switch {
		case strings.Contains(p, "Summary of advice as a numbered list:"):
			return llmtest.Reply{Text: fig13Reply}
		case strings.Contains(p, "Summary of learning as a numbered list:"):
			return llmtest.Reply{Text: adaptReply} // must not be asked
		case strings.Contains(c.Chat.System(), "AI agent helping execute"):
			step := strings.Count(p, "\nAction: ")
			if step >= len(heatApplePlan) {
				step = len(heatApplePlan) - 1
			}
			return llmtest.Reply{Text: "I used learning id(s): $$$ Follow the plan. ### " + heatApplePlan[step]}
		}
		return llmtest.Reply{Text: "1"}
	})
	client, err := openai.New(openai.Config{
		ChatModel: "test-chat", ChatBaseURLs: []string{srv.URL},
		EmbedModel: "test-embed", EmbedDim: llmtest.DefaultEmbedDim, Timeout: 10 * time.Second, Retries: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{Advice: true}, Deps{Chat: client, Embed: client})
	if err != nil {
		t.Fatal(err)
	}
	meter := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), meter)
	if _, err := runner.Run(ctx, &fakeWorld{}, m, agent.Start{Task: heatApple, Mode: agent.Train, Style: envbridge.StyleHousehold, Rand: rand.New(rand.NewPCG(1, 2))}); err != nil {
		t.Fatal(err)
	}
	want := ParseAdvice(fig13Reply)
	for i := range want {
		want[i].Trial, want[i].Reward = 0, 1
	}
	if got := m.Memory(heatApple.ID); !reflect.DeepEqual(got, want) {
		t.Errorf("memory = %+v, want the model's advice %+v", got, want)
	}
	r := meter.Report()
	if s := r.ByPurpose[PurposeAdvice]; s.Replies != 1 || s.Repaired != 1 {
		t.Errorf("%s account %+v, want 1 reply, repaired (its preamble and closing remark)", PurposeAdvice, s)
	}
	if s := r.ByPurpose[PurposeAdapt]; s.Replies != 0 {
		t.Errorf("the causal-abstraction generator was asked %d times", s.Replies)
	}
}
