package openai

import (
	"context"
	"testing"
	"time"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

// Every call of one episode goes to one server, and consecutive episodes
// spread over the servers evenly.
func TestEpisodeSticksToOneServer(t *testing.T) {
	var srvs []*llmtest.Server
	var urls []string
	for range 3 {
		s := llmtest.NewServer(t, llmtest.Text("ok"))
		srvs = append(srvs, s)
		urls = append(urls, s.URL)
	}
	c, _, meter := newClient(t, urls, nil)
	tokens := map[uint64]int64{}
	for ep := range uint64(6) {
		ctx, e := llm.WithEpisode(context.Background(), ep)
		before := make([]int, len(srvs))
		for i, s := range srvs {
			before[i] = s.Requests()
		}
		for range 4 {
			if _, err := c.Chat(ctx, req("x")); err != nil {
				t.Fatal(err)
			}
		}
		for i, s := range srvs {
			got := s.Requests() - before[i]
			want := 0
			if uint64(i) == ep%3 {
				want = 4
			}
			if got != want {
				t.Errorf("episode %d: server %d got %d calls, want %d", ep, i, got, want)
			}
		}
		tokens[ep] = e.Tokens()
	}
	for i, s := range srvs {
		if s.Requests() != 8 {
			t.Errorf("server %d: %d calls, want 8 (two episodes of 4)", i, s.Requests())
		}
	}
	// Each reply counts its prompt and completion tokens in its episode.
	want := int64(4 * (llmtest.EstimateTokens("Summarize the observation. You are in a room.") + 1))
	for ep, n := range tokens {
		if n != want {
			t.Errorf("episode %d counted %d tokens, want %d", ep, n, want)
		}
	}
	// The model and fingerprint the replies named are recorded.
	served := meter.Report().Served
	if len(served) != 1 || served[0] != (llm.Served{Requested: "chat-model", Model: "chat-model", Fingerprint: "fp_llmtest", Replies: 24}) {
		t.Errorf("served %+v", served)
	}
}

// An episode whose server fails is retried on another one.
func TestEpisodeRetriesElsewhere(t *testing.T) {
	bad := llmtest.NewServer(t, llmtest.Always(llmtest.Fault{Status: 503}))
	good := llmtest.NewServer(t, llmtest.Text("good"))
	// A clock that stands still: bad stays in its cooldown.
	now := time.Unix(1700000000, 0)
	c, _, _ := newClient(t, []string{bad.URL, good.URL}, func(cfg *Config) { cfg.Now = func() time.Time { return now } })
	ctx, _ := llm.WithEpisode(context.Background(), 0) // bad's episode
	resp, err := c.Chat(ctx, req("x"))
	if err != nil || resp.Text != "good" {
		t.Fatalf("Chat = %v, %v", resp, err)
	}
	// While bad cools down, the episode's next calls go to good at once.
	for range 3 {
		if _, err := c.Chat(ctx, req("x")); err != nil {
			t.Fatal(err)
		}
	}
	if bad.Requests() != 1 || good.Requests() != 4 {
		t.Errorf("bad %d good %d requests, want 1 and 4", bad.Requests(), good.Requests())
	}
}
