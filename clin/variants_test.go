package clin

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/clin/internal/fakeworld"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/openai"
)

// TestGenTaskPromptGolden pins the GEN-TASK prompt (seed 004 Fig. 9), with
// memories of other types and with none ("improvise").
func TestGenTaskPromptGolden(t *testing.T) {
	m, err := MetaMessages(MetaInput{Task: fakeworld.HeatEgg, Style: envbridge.StyleHousehold, GenTask: true, Archive: []Archived{
		{Task: fakeworld.CleanPlate, Reward: 1, Items: goldenMemory}, {Task: fakeworld.LookBook, Reward: 0},
	}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "gentask", m)
	empty, err := MetaMessages(MetaInput{Task: fakeworld.HeatEgg, Style: envbridge.StyleHousehold, GenTask: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "gentask_empty", empty)
	adv, err := MetaMessages(MetaInput{Task: fakeworld.HeatEgg, Style: envbridge.StyleHousehold, GenTask: true, Advice: true, Archive: []Archived{{Task: fakeworld.CleanPlate, Reward: 1, Items: ParseAdvice(fig13Reply)}}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "gentask_advice", adv)
}

var _ agent.EvalTrialer = (*Method)(nil)

// TestGenTaskArchiveBalanced: GEN-TASK's archive takes the best memory of
// every other type before a second one of any type, and never the task's
// own type.
func TestGenTaskArchiveBalanced(t *testing.T) {
	m := newStub(t)
	item := []Abstraction{{Kind: Necessary, X: "a", Y: "b"}}
	for i, typ := range []string{"cool", "cool", "cool", "clean", "clean", "look", "heat"} {
		id := string(rune('a'+i)) + "-" + typ
		m.tasks[id] = &taskMemory{Task: envbridge.Task{ID: id, Type: typ}, Trials: []Memory{{Reward: 1 - float64(i)/10, Items: item}}}
	}
	m.cfg.Archive = 4
	m.mu.Lock()
	got := m.archive("heat", "x", true)
	m.mu.Unlock()
	var ids []string
	for _, a := range got {
		ids = append(ids, a.Task.ID)
	}
	if want := []string{"a-cool", "d-clean", "f-look", "b-cool"}; !slices.Equal(ids, want) {
		t.Errorf("GEN-TASK archive %v, want %v", ids, want)
	}
}

// TestGenTaskImprovises: with a model and no trained memory of another
// type, GEN-TASK still asks (Fig. 9: "If PREVIOUS LEARNINGS says 'No
// learnings available', improvise learnings for the NEW TASK") and the
// held-out task starts from what the model wrote, counted under its own
// purpose.
func TestGenTaskImprovises(t *testing.T) {
	srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		if c.Chat == nil {
			return llmtest.Reply{}
		}
		if strings.Contains(c.Chat.Prompt(), "No learnings available") && strings.Contains(c.Chat.Prompt(), "SAME ENVIRONMENT CONFIGURATION") {
			return llmtest.Reply{Text: metaReply}
		}
		return llmtest.Reply{Text: "unexpected prompt"}
	})
	client, err := openai.New(openai.Config{
		ChatModel: "test-chat", ChatBaseURLs: []string{srv.URL},
		EmbedModel: "test-embed", EmbedDim: llmtest.DefaultEmbedDim, Timeout: 10 * time.Second, Retries: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{GenTask: true}, Deps{Chat: client, Embed: client})
	if err != nil {
		t.Fatal(err)
	}
	meter := llm.NewMeter(nil)
	ep, err := m.Start(llm.WithMeter(context.Background(), meter), agent.Start{Task: fakeworld.HeatEgg, Mode: agent.Eval, Style: envbridge.StyleHousehold})
	if err != nil {
		t.Fatal(err)
	}
	if got := ep.(*episode).memory; len(got) != 2 || got[0].Trial != -1 {
		t.Errorf("held-out memory %+v, want the 2 improvised items", got)
	}
	if s := meter.Report().ByPurpose[PurposeMetaTask]; s.Replies != 1 {
		t.Errorf("%s account %+v, want 1 reply", PurposeMetaTask, s)
	}
}

// TestGenTaskArchiveSource: GEN-TASK's meta-memory is built on household
// worlds from the other trained tasks of the held-out task's own type
// (seed 004 Sec. 5C: in ALFWorld "CLIN had access to memories from other
// tasks of same type"), on ScienceWorld from the other types' (transfer
// between related tasks), and on household worlds from the other types'
// only with GenTaskOtherTypes.
func TestGenTaskArchiveSource(t *testing.T) {
	for _, c := range []struct {
		name       string
		style      envbridge.Style
		otherTypes bool
		want       []string // the Xs of the meta-memory, best first
	}{
		{"household", envbridge.StyleHousehold, false, []string{"heating b-heat"}},
		{"household, other types", envbridge.StyleHousehold, true, []string{"cooling c-cool", "cleaning d-clean"}},
		{"science", envbridge.StyleScience, false, []string{"cooling c-cool", "cleaning d-clean"}},
	} {
		m := newStubWith(t, Config{GenTask: true, GenTaskOtherTypes: c.otherTypes})
		for i, typ := range []string{"heat", "heat", "cool", "clean"} {
			id := string(rune('a'+i)) + "-" + typ
			verb := map[string]string{"heat": "heating", "cool": "cooling", "clean": "cleaning"}[typ]
			m.tasks[id] = &taskMemory{Task: envbridge.Task{ID: id, Type: typ}, Trials: []Memory{{Reward: 1 - float64(i)/10, Items: []Abstraction{{Kind: Necessary, X: verb + " " + id, Y: "done"}}}}}
		}
		ep, err := m.Start(context.Background(), agent.Start{Task: envbridge.Task{ID: "a-heat", Type: "heat", Goal: "heat some egg"}, Mode: agent.Eval, Style: c.style})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range ep.(*episode).memory {
			got = append(got, a.X)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: meta-memory from %v, want %v", c.name, got, c.want)
		}
	}
}
