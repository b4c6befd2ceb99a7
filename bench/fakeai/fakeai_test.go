package fakeai

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/openai"
)

func client(t *testing.T, url string, dim int) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{ChatModel: "m", ChatBaseURLs: []string{url}, EmbedModel: "e", EmbedDim: dim, Retries: -1, Timeout: 2 * time.Minute, MaxConcurrent: 8})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWithOpenAIClient checks the protocol against the project's real
// client: chat replies come from Reply, embeddings are Vector.
func TestWithOpenAIClient(t *testing.T) {
	s := New(Config{Dim: 32, Reply: func(msgs []Message) string { return "echo: " + msgs[len(msgs)-1].Content }})
	defer s.Close()
	c := client(t, s.URL, 32)
	ctx := context.Background()
	resp, err := c.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "hello"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "echo: hello" {
		t.Errorf("Chat = %q, want %q", resp.Text, "echo: hello")
	}
	vs, err := c.Embed(ctx, []string{"a", "b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	want := Vector("a", 32)
	for i := range want {
		if math.Abs(float64(vs[0][i]-want[i])) > 1e-6 || vs[0][i] != vs[2][i] {
			t.Fatalf("Embed(a) differs from Vector(a) at %d: %v vs %v", i, vs[0][i], want[i])
		}
	}
	var cos float64
	for i := range vs[0] {
		cos += float64(vs[0][i] * vs[1][i])
	}
	if cos > 0.85 {
		t.Errorf("cos(a, b) = %v: distinct texts must fall in distinct clusters", cos)
	}
	if chat, emb := s.Calls(); chat != 1 || emb != 1 {
		t.Errorf("Calls() = %d, %d; want 1, 1", chat, emb)
	}
}

// TestLatencyOverlaps checks that the latency is added to every call and
// that concurrent calls wait together, not in turn. Neither verdict hangs on
// the scheduler: the latency is a lower bound no load can shorten, and the
// overlap is shown with a latency no test outlasts: all 8 calls are held by
// the server at once (waited for as an event, 60 s being a hang guard),
// then cancelled.
func TestLatencyOverlaps(t *testing.T) {
	const lat = 100 * time.Millisecond
	s := New(Config{Latency: lat, Dim: 8})
	defer s.Close()
	c := client(t, s.URL, 8)
	chat := func(ctx context.Context) error {
		_, err := c.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}})
		return err
	}
	t0 := time.Now()
	if err := chat(context.Background()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(t0); el < lat {
		t.Errorf("a call took %v, less than the latency %v", el, lat)
	}

	held := New(Config{Latency: time.Hour, Dim: 8})
	defer held.Close()
	c = client(t, held.URL, 8)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { chat(ctx) })
	}
	for deadline := time.Now().Add(time.Minute); held.PeakInFlight() < 8 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	if p := held.PeakInFlight(); p != 8 {
		t.Errorf("PeakInFlight = %d after a minute, want 8: concurrent calls did not wait together", p)
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
		bad  bool
	}{
		{`{"model":"e","input":"one"}`, []string{"one"}, false},
		{`{"model":"e","input":["a","b"]}`, []string{"a", "b"}, false},
		{`{"model":"e","input":[]}`, nil, true},
		{`{"model":"e","input":[1,2]}`, nil, true},
		{`{"model":`, nil, true},
	} {
		_, got, err := DecodeEmbed([]byte(tc.body))
		if tc.bad != (err != nil) || (err != nil && !errors.Is(err, ErrRequest)) {
			t.Errorf("DecodeEmbed(%s) error = %v, want bad %v", tc.body, err, tc.bad)
		}
		if len(got) != len(tc.want) {
			t.Errorf("DecodeEmbed(%s) = %q, want %q", tc.body, got, tc.want)
		}
	}
	if _, _, err := DecodeChat([]byte(`{"model":"m","messages":[]}`)); !errors.Is(err, ErrRequest) {
		t.Errorf("DecodeChat with no messages: error %v, want ErrRequest", err)
	}
}

func FuzzDecodeChat(f *testing.F) {
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"messages":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, msgs, err := DecodeChat(b)
		if err == nil && len(msgs) == 0 {
			t.Error("no error and no messages")
		}
	})
}

func FuzzDecodeEmbed(f *testing.F) {
	f.Add([]byte(`{"model":"e","input":"one"}`))
	f.Add([]byte(`{"model":"e","input":["a","b"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, in, err := DecodeEmbed(b)
		if err == nil && len(in) == 0 {
			t.Error("no error and no inputs")
		}
	})
}
