package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/samem/trainer/llm"
)

// TestHugeReplyIsBounded: a server that answers with an endless body (a
// 256 MiB chat reply, a 256 MiB error page) cannot make the client hold it
// in memory: the read stops at MaxReplyBytes with ErrBadReply, not retried.
func TestHugeReplyIsBounded(t *testing.T) {
	const huge = 256 << 20
	for _, tc := range []struct {
		name   string
		status int
		head   string
	}{
		{"chat reply", http.StatusOK, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`},
		{"error page", http.StatusBadGateway, `<html><body>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requests := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests++
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.head))
				chunk := []byte(strings.Repeat("a", 1<<20))
				for n := 0; n < huge; n += len(chunk) {
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			}))
			defer srv.Close()
			c, err := New(Config{ChatModel: "m", ChatBaseURLs: []string{srv.URL + "/v1"}, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = c.Chat(context.Background(), llm.Request{Purpose: "think", Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrBadReply) || !strings.Contains(err.Error(), "reply body over") {
				t.Errorf("Chat on a %d MiB reply: %v; want ErrBadReply about the size", huge>>20, err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6*DefaultMaxReplyBytes {
				t.Errorf("Chat allocated %d MiB for a %d MiB reply; the bound is %d MiB", alloc>>20, huge>>20, DefaultMaxReplyBytes>>20)
			}
		})
	}
}
