package llmtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/llm"
)

// recorder is a testing.TB that records Errorf instead of failing.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func TestChatter(t *testing.T) {
	rec := &recorder{TB: t}
	c := NewChatter(rec, "first", "second")
	boom := errors.New("boom")
	c.Add(Scripted{Err: boom})
	ctx := context.Background()
	for i, want := range []string{"first", "second"} {
		resp, err := c.Chat(ctx, llm.Request{Purpose: "think", Messages: []llm.Message{{Role: "user", Content: fmt.Sprint("q", i)}}})
		if err != nil || resp.Text != want {
			t.Fatalf("Chat #%d = %q, %v; want %q", i, resp.Text, err, want)
		}
		if resp.Usage.PromptTokens != 1 || resp.Usage.CompletionTokens != 1 {
			t.Errorf("usage = %+v, want 1/1", resp.Usage)
		}
	}
	if _, err := c.Chat(ctx, llm.Request{}); !errors.Is(err, boom) {
		t.Errorf("scripted error: got %v", err)
	}
	if c.Remaining() != 0 || len(rec.errors) != 0 {
		t.Fatalf("remaining %d, errors %v", c.Remaining(), rec.errors)
	}
	_, err := c.Chat(ctx, llm.Request{Purpose: "check", Messages: []llm.Message{{Role: "user", Content: "one more"}}})
	if !errors.Is(err, ErrScriptExhausted) {
		t.Errorf("exhausted: err = %v", err)
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], `"check"`) || !strings.Contains(rec.errors[0], "one more") {
		t.Errorf("exhaustion should fail the test naming purpose and prompt, got %q", rec.errors)
	}
	reqs := c.Requests()
	if len(reqs) != 4 || reqs[1].Messages[0].Content != "q1" || reqs[3].Purpose != "check" {
		t.Errorf("recorded requests = %+v", reqs)
	}
}

func TestChatterRecordsCopy(t *testing.T) {
	c := NewChatter(t, "x")
	msgs := []llm.Message{{Role: "user", Content: "original"}}
	if _, err := c.Chat(context.Background(), llm.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	msgs[0].Content = "changed"
	if got := c.Requests()[0].Messages[0].Content; got != "original" {
		t.Errorf("recorded message = %q, want the original", got)
	}
}

func TestEmbedder(t *testing.T) {
	e := NewEmbedder(0)
	if e.Dim() != DefaultEmbedDim || e.Model() == "" {
		t.Fatalf("Dim %d Model %q", e.Dim(), e.Model())
	}
	v1, err := e.Embed(context.Background(), []string{"a b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := e.Embed(context.Background(), []string{"a b"})
	for i := range v1[0] {
		if v1[0][i] != v2[0][i] {
			t.Fatalf("not deterministic at %d", i)
		}
	}
	if e.Calls() != 2 || strings.Join(e.Texts(), "|") != "a b|c|a b" {
		t.Errorf("Calls %d Texts %q", e.Calls(), e.Texts())
	}
	boom := errors.New("boom")
	e.FailWith(boom)
	if _, err := e.Embed(context.Background(), []string{"x"}); !errors.Is(err, boom) {
		t.Errorf("FailWith: err = %v", err)
	}
}
