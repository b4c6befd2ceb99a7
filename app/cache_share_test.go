package app

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/samem/trainer/llm/llmtest"
)

// TestTwoRunsShareOneCache: two training runs with one response cache file
// both make progress at the same time (their calls interleave) instead of
// one waiting on the cache file's lock until the other ends, and both
// finish: two runs can share one cache.
//
// The server makes the interleaving a condition, not a count that depends
// on how the two runs are scheduled: the k-th chat call of each run (k <
// turns) is held until the k-th of the other run has arrived, so the runs
// take turns on the cache file, each one's call in flight while the other
// reopens the file. If one run kept the file locked while it waited for
// the model, the other could never make its call: a hold that lasts 60 s
// (a hang guard) fails the test naming the wait.
func TestTwoRunsShareOneCache(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: two training runs taking turns on one cache file (runs without -short)")
	}
	const turns = 3
	models := []string{"chat-a", "chat-b"}
	var (
		mu      sync.Mutex
		seen    = map[string]int{}
		arrived = map[string][]chan struct{}{}
		hung    []string
		gaveUp  = make(chan struct{})
		giveUp  sync.Once
	)
	for _, m := range models {
		for range turns {
			arrived[m] = append(arrived[m], make(chan struct{}))
		}
	}
	other := map[string]string{"chat-a": "chat-b", "chat-b": "chat-a"}
	srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		if c.Chat != nil {
			m := c.Chat.Model
			mu.Lock()
			k := seen[m]
			seen[m]++
			if k < turns {
				close(arrived[m][k])
			}
			mu.Unlock()
			if k < turns {
				select {
				case <-arrived[other[m]][k]:
				case <-gaveUp:
				case <-time.After(time.Minute):
					mu.Lock()
					hung = append(hung, fmt.Sprintf("call %d of %s waited 60 s for call %d of %s", k+1, m, k+1, other[m]))
					mu.Unlock()
					giveUp.Do(func() { close(gaveUp) }) // once is enough to fail
				}
			}
		}
		return householdModel(c)
	})
	shared := filepath.Join(t.TempDir(), "shared-cache.db")
	cfgFor := func(model string) Config {
		cfg := Defaults()
		cfg.Run = t.TempDir()
		cfg.Iterations, cfg.PerType, cfg.Workers = 1, 1, 1
		cfg.Env.MaxSteps = 1
		// The client's deadline is beyond the server's hang guard.
		cfg.LLM = LLMConfig{Backend: "openai", ChatModel: model, EmbedModel: "test-embed", EmbedDim: llmtest.DefaultEmbedDim,
			ChatURLs: []string{srv.URL}, Timeout: 2 * time.Minute, Retries: 1, Cache: shared}
		return cfg
	}
	errs := make(chan error, 2)
	for _, model := range models {
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
	mu.Lock()
	defer mu.Unlock()
	for _, h := range hung {
		t.Errorf("the runs did not take turns (one waited for the other to end): %s", h)
	}
	for _, m := range models {
		if seen[m] < turns {
			t.Errorf("run %s made %d chat calls, want at least %d", m, seen[m], turns)
		}
	}
}
