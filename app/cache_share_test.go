package app

import (
	"context"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/samem/trainer/llm/llmtest"
)

// TestTwoRunsShareOneCache: two training runs with one response cache file,
// whose model calls take time as real ones do, both make progress at the
// same time (their calls interleave) instead of one waiting on the cache
// file's lock until the other ends, and both finish (issue 3: "two runs can
// share one cache").
func TestTwoRunsShareOneCache(t *testing.T) {
	var (
		mu    sync.Mutex
		order []string // the chat model of each chat call, in arrival order
	)
	srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		r := householdModel(c)
		if c.Chat != nil {
			mu.Lock()
			order = append(order, c.Chat.Model)
			mu.Unlock()
			r.Fault.Delay = 150 * time.Millisecond // slower than the cache's idle close
		}
		return r
	})
	shared := filepath.Join(t.TempDir(), "shared-cache.db")
	cfgFor := func(model string) Config {
		cfg := Defaults()
		cfg.Run = t.TempDir()
		cfg.Iterations, cfg.PerType, cfg.Workers = 1, 1, 1
		cfg.Env.MaxSteps = 1
		cfg.LLM = LLMConfig{Backend: "openai", ChatModel: model, EmbedModel: "test-embed", EmbedDim: llmtest.DefaultEmbedDim,
			ChatURLs: []string{srv.URL}, Timeout: 10 * time.Second, Retries: 1, Cache: shared}
		return cfg
	}
	errs := make(chan error, 2)
	for _, model := range []string{"chat-a", "chat-b"} {
		go func() {
			_, err := Train(context.Background(), cfgFor(model), Streams{Out: io.Discard, Err: io.Discard})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a run sharing the cache failed: %v", err)
		}
	}
	// Count the switches between the two runs in the order of their calls:
	// one run after the other would switch once.
	switches := 0
	for i := 1; i < len(order); i++ {
		if order[i] != order[i-1] {
			switches++
		}
	}
	if switches < 2 {
		t.Errorf("the runs' %d chat calls switched between runs %d times, want interleaving (one run waited for the other)", len(order), switches)
	}
}
