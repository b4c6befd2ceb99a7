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
	"github.com/samem/trainer/clin/internal/fakeworld"
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
		Task: fakeworld.HeatApple, Trial: 1, Trace: goldenTrace, Reward: 0, Advice: true,
		Previous: []Memory{{Trial: 0, Items: ParseAdvice(fig13Reply)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "adapt_advice", a)
	m, err := MetaMessages(MetaInput{Task: fakeworld.HeatEgg, Style: envbridge.StyleHousehold, Advice: true, Archive: []Archived{
		{Task: fakeworld.HeatApple, Reward: 1, Items: ParseAdvice(fig13Reply)},
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
			if step >= len(fakeworld.HeatApplePlan) {
				step = len(fakeworld.HeatApplePlan) - 1
			}
			return llmtest.Reply{Text: "I used learning id(s): $$$ Follow the plan. ### " + fakeworld.HeatApplePlan[step]}
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
	if _, err := runner.Run(ctx, &fakeworld.World{}, m, agent.Start{Task: fakeworld.HeatApple, Mode: agent.Train, Style: envbridge.StyleHousehold, Rand: rand.New(rand.NewPCG(1, 2))}); err != nil {
		t.Fatal(err)
	}
	want := ParseAdvice(fig13Reply)
	for i := range want {
		want[i].Trial, want[i].Reward = 0, 1
	}
	if got := m.Memory(fakeworld.HeatApple.ID); !reflect.DeepEqual(got, want) {
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
