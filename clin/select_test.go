package clin

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/clin/internal/fakeworld"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/offline"
)

func TestSelectGolden(t *testing.T) {
	msgs, err := SelectMessages(fakeworld.HeatApple, goldenMemory)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "select", msgs)
}

func TestParseSelection(t *testing.T) {
	for reply, want := range map[string][]int{
		"1, 3":                           {0, 2},
		"Relevant learnings: 3, 1, 3, 9": {2, 0},
		"none":                           nil,
		"":                               nil,
		"0, -2, 2":                       {1},
		"99999999999999999999, 4":        {3},
	} {
		if got := ParseSelection(reply, 4); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseSelection(%q) = %v, want %v", reply, got, want)
		}
	}
}

func FuzzParseSelection(f *testing.F) {
	f.Add("1, 3", 4)
	f.Add("none", 0)
	f.Fuzz(func(t *testing.T, reply string, n int) {
		n = max(0, min(n, 1000))
		seen := map[int]bool{}
		for _, i := range ParseSelection(reply, n) {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("index %d of %d (or repeated) from %q", i, n, reply)
			}
			seen[i] = true
		}
	})
}

// selectChat answers the selection prompt and counts the calls.
type selectChat struct {
	mu    sync.Mutex
	calls int
	reply string
	seen  string
}

func (s *selectChat) Chat(_ context.Context, r llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.seen = r.Messages[len(r.Messages)-1].Content
	return llm.Response{Text: s.reply}, nil
}

// TestModelSelectsItems: with a model, the items the controller sees are the
// ones a separate call chose from the full memory and the task (seed 004
// Sec. 3.3), asked once per trial; SelectByEmbedding goes back to top-K.
func TestModelSelectsItems(t *testing.T) {
	mem := append(append([]Abstraction{}, goldenMemory...),
		Abstraction{Kind: Necessary, Modifier: ModMay, X: "heating the object", Y: "completing the task"},
		Abstraction{Kind: NotContribute, Modifier: ModShould, X: "looking around", Y: "finding the target object"})
	chat := &selectChat{reply: "3, 1"}
	m, err := New(Config{}, Deps{Chat: chat, Embed: offline.New(64)})
	if err != nil {
		t.Fatal(err)
	}
	e := &episode{m: m, memory: mem}
	e.start.Task = fakeworld.HeatApple
	for range 2 {
		got, err := e.selected(context.Background(), "query")
		if err != nil {
			t.Fatal(err)
		}
		if want := []Abstraction{mem[0], mem[2]}; !reflect.DeepEqual(got, want) {
			t.Errorf("selected %v, want items 1 and 3 in memory order", got)
		}
	}
	if chat.calls != 1 || !strings.Contains(chat.seen, fakeworld.HeatApple.Goal) || !strings.Contains(chat.seen, "4. "+mem[3].String()) {
		t.Errorf("%d selection calls; prompt:\n%s", chat.calls, chat.seen)
	}
	m2, _ := New(Config{SelectByEmbedding: true, TopK: 2}, Deps{Chat: chat, Embed: offline.New(64)})
	e2 := &episode{m: m2, memory: mem}
	got, err := e2.selected(context.Background(), fakeworld.HeatApple.Goal)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || chat.calls != 1 {
		t.Errorf("SelectByEmbedding: %d items, %d calls", len(got), chat.calls)
	}
}

// The selection and the memory generator count their replies: a
// selection naming no item (without saying "none"), or a memory reply with
// no abstraction in it, is unusable: asked again, then skipped.
func TestSelectAndMemoryCountReplies(t *testing.T) {
	c := llmtest.NewChatter(t,
		"Items 1 and 2.",                                        // used
		"None of these seem to matter.",                         // used: nothing selected
		"```\nRelevant: 2\n```",                                 // repaired
		"I cannot tell.", "<think>1, 2</think>", "Hard to say.", // unusable: asked again twice, skipped
		"I learned a lot from this trial.", "Much.", "Nothing to add.", // memory: the same
	)
	m := llm.NewMeter(nil)
	ctx := llm.WithMeter(context.Background(), m)
	sel := &LLMSelector{Chat: c}
	var got [][]int
	for range 4 {
		s, err := sel.Select(ctx, fakeworld.HeatApple, goldenMemory)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if fmt.Sprint(got) != "[[0 1] [] [1] []]" {
		t.Errorf("selections %v", got)
	}
	gen := &LLMGenerator{Chat: c}
	items, err := gen.Adapt(ctx, AdaptInput{Task: fakeworld.HeatApple})
	if err != nil || len(items) != 0 {
		t.Fatalf("Adapt = %v, %v; want no items", items, err)
	}
	r := m.Report()
	if s := r.ByPurpose[PurposeSelect]; s != (llm.Stats{Replies: 6, Repaired: 1, Unusable: 3, AskedAgain: 2, Skipped: 1, Reasoned: 1}) {
		t.Errorf("%s: %+v", PurposeSelect, s)
	}
	if s := r.ByPurpose[PurposeAdapt]; s != (llm.Stats{Replies: 3, Unusable: 3, AskedAgain: 2, Skipped: 1}) {
		t.Errorf("%s: %+v", PurposeAdapt, s)
	}
}
