package cache

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/openai"
	bolt "go.etcd.io/bbolt"
)

func open(t testing.TB, path string, opts Options) *Cache {
	t.Helper()
	c, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func client(t testing.TB, srv *llmtest.Server, key string) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{
		APIKey: key, ChatModel: "chat-m", EmbedModel: "emb-m", EmbedDim: 16,
		ChatBaseURLs: []string{srv.URL}, Retries: -1, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func msg(role, content string) llm.Message { return llm.Message{Role: role, Content: content} }

// session is a small "run": a few chats under several purposes and a batch
// of embeddings. It returns everything it got.
func session(t *testing.T, ch llm.Chatter, em llm.Embedder) ([]llm.Response, [][]float32) {
	t.Helper()
	ctx := context.Background()
	var resps []llm.Response
	for i, p := range []string{"summarize", "think", "check", "summarize"} {
		r, err := ch.Chat(ctx, llm.Request{Purpose: p, Messages: []llm.Message{
			msg("system", p+" please"), msg("user", fmt.Sprint("step ", i%3)),
		}})
		if err != nil {
			t.Fatalf("Chat: %v", err)
		}
		resps = append(resps, r)
	}
	vecs, err := em.Embed(ctx, []string{"the door", "a key", "the door", "north"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	return resps, vecs
}

// TestSecondRunFromCache: an identical second run makes no request at all.
func TestSecondRunFromCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "llm.cache")
	srv := llmtest.NewServer(t, llmtest.Echo())

	meter1 := llm.NewMeter(nil)
	c1 := open(t, path, Options{Meter: meter1})
	cl := client(t, srv, "key-one")
	r1, v1 := session(t, c1.Chatter(cl, "chat-m"), c1.Embedder(cl))
	if srv.ChatRequests() != 3 || srv.EmbedRequests() != 1 {
		// 4 chats, one repeated (step 0 summarize twice: i=0 and i=3); 4 texts, 3 distinct in one request.
		t.Fatalf("first run: %d chat %d embed requests, want 3 and 1", srv.ChatRequests(), srv.EmbedRequests())
	}
	if !r1[3].Cached || r1[0].Cached {
		t.Errorf("first run: repeated request should hit, first should not: %v %v", r1[0].Cached, r1[3].Cached)
	}
	if err := c1.Close(); err != nil {
		t.Fatal(err)
	}

	before := srv.Requests()
	meter2 := llm.NewMeter(nil)
	c2 := open(t, path, Options{Meter: meter2})
	cl2 := client(t, srv, "a-different-key") // the key is not part of the cache key
	r2, v2 := session(t, c2.Chatter(cl2, "chat-m"), c2.Embedder(cl2))
	if got := srv.Requests() - before; got != 0 {
		t.Fatalf("second run made %d requests, want 0", got)
	}
	for i := range r1 {
		if !r2[i].Cached || r2[i].Text != r1[i].Text || r2[i].Usage != r1[i].Usage {
			t.Errorf("chat %d: second run %+v, first %+v", i, r2[i], r1[i])
		}
	}
	for i := range v1 {
		if fmt.Sprint(v1[i]) != fmt.Sprint(v2[i]) {
			t.Errorf("vector %d differs", i)
		}
	}
	rep := meter2.Report()
	if rep.Total.CacheHits != 8 || rep.Total.Calls != 0 || rep.ByPurpose["summarize"].CacheHits != 2 {
		t.Errorf("meter second run = %+v", rep.ByPurpose)
	}

	// Replay-only: no client at all.
	rc, re := c2.Chatter(nil, "chat-m"), c2.EmbedderFor("emb-m", 16)
	r3, _ := session(t, rc, re)
	if r3[1].Text != r1[1].Text {
		t.Errorf("replay = %q, want %q", r3[1].Text, r1[1].Text)
	}
	if _, err := rc.Chat(context.Background(), llm.Request{Messages: []llm.Message{msg("user", "never asked")}}); !errors.Is(err, ErrMiss) {
		t.Errorf("replay of an unrecorded request: err = %v, want ErrMiss", err)
	}
	if _, err := re.Embed(context.Background(), []string{"never embedded"}); !errors.Is(err, ErrMiss) {
		t.Errorf("replay of an unrecorded text: err = %v, want ErrMiss", err)
	}
}

func TestChatKey(t *testing.T) {
	seed, seed2 := 1, 2
	base := llm.Request{Purpose: "think", Messages: []llm.Message{msg("system", "s"), msg("user", "u")},
		Temperature: 0, MaxTokens: 10, Seed: &seed, Stop: []string{"\n"}}
	k0 := string(chatKey("m", base))
	tests := []struct {
		name string
		mod  func(r *llm.Request) string // returns the model
		same bool
	}{
		{"purpose", func(r *llm.Request) string { r.Purpose = "check"; return "m" }, true},
		{"equal seed value", func(r *llm.Request) string { s := 1; r.Seed = &s; return "m" }, true},
		{"model", func(r *llm.Request) string { return "m2" }, false},
		{"message", func(r *llm.Request) string {
			r.Messages = []llm.Message{msg("system", "s"), msg("user", "v")}
			return "m"
		}, false},
		{"role", func(r *llm.Request) string {
			r.Messages = []llm.Message{msg("user", "s"), msg("user", "u")}
			return "m"
		}, false},
		{"temperature", func(r *llm.Request) string { r.Temperature = 0.5; return "m" }, false},
		{"seed", func(r *llm.Request) string { r.Seed = &seed2; return "m" }, false},
		{"no seed", func(r *llm.Request) string { r.Seed = nil; return "m" }, false},
		{"max tokens", func(r *llm.Request) string { r.MaxTokens = 11; return "m" }, false},
		{"stop", func(r *llm.Request) string { r.Stop = nil; return "m" }, false},
		{"asked again", func(r *llm.Request) string { r.Again = 2; return "m" }, true},
		{"schema", func(r *llm.Request) string {
			r.Schema = &llm.Schema{Name: "answer", JSON: []byte(`{"type":"object"}`)}
			return "m"
		}, false},
		{"reasoning effort", func(r *llm.Request) string { r.ReasoningEffort = "low"; return "m" }, false},
	}
	for _, tc := range tests {
		r := base
		r.Messages = append([]llm.Message(nil), base.Messages...)
		model := tc.mod(&r)
		if got := string(chatKey(model, r)) == k0; got != tc.same {
			t.Errorf("%s: same key = %v, want %v", tc.name, got, tc.same)
		}
	}
	a, b := base, base
	a.Schema = &llm.Schema{Name: "answer", JSON: []byte(`{"type":"object"}`)}
	b.Schema = &llm.Schema{Name: "answer", JSON: []byte(`{"type":"array"}`)}
	if string(chatKey("m", a)) == string(chatKey("m", b)) {
		t.Error("two schemas of one name share a key")
	}
	// A request without a schema or effort keeps the key it had before they
	// were part of the request, so earlier caches still answer.
	if got := fmt.Sprintf("%x", chatKey("m", base)); got != "7b129ac56e2b19b87979222b4a1ceab20a3927e3de081a5efd5dc1986ca7e8e2" {
		t.Errorf("the key of a request without schema or effort changed: %s", got)
	}
	if string(embedKey("m", 16, "a")) == string(embedKey("m", 32, "a")) ||
		string(embedKey("m", 16, "a")) == string(embedKey("m2", 16, "a")) ||
		string(embedKey("ma", 16, "")) == string(embedKey("m", 16, "a")) {
		t.Error("embedding keys must differ by model, dimension and text")
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	c := open(t, filepath.Join(t.TempDir(), "c"), Options{})
	srv := llmtest.NewServer(t, llmtest.Echo())
	cl := client(t, srv, "k")
	ch, em := c.Chatter(cl, "chat-m"), c.Embedder(cl)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				q := fmt.Sprint("q", i%5)
				r, err := ch.Chat(context.Background(), llm.Request{Messages: []llm.Message{msg("user", q)}})
				if err != nil || r.Text != q {
					t.Errorf("goroutine %d: %q %v", g, r.Text, err)
					return
				}
				if _, err := em.Embed(context.Background(), []string{q}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	chats, embs, err := c.Len()
	if err != nil || chats != 5 || embs != 5 {
		t.Errorf("Len = %d, %d, %v; want 5, 5", chats, embs, err)
	}
}

// TestTwoProcessesShare: two Caches on one file (each its own file lock,
// like two processes) take turns with IdleClose; without it the second
// waits Timeout and fails with ErrLocked.
func TestTwoProcessesShare(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared")
	a := open(t, path, Options{IdleClose: 5 * time.Millisecond, Timeout: 30 * time.Second})
	b := open(t, path, Options{IdleClose: 5 * time.Millisecond, Timeout: 30 * time.Second}) // 30 s: a hang guard; the lock is free 5 ms after A's last use
	chA := a.Chatter(llmtest.ChatFunc(func(_ context.Context, r llm.Request) (llm.Response, error) {
		return llm.Response{Text: "from A"}, nil
	}), "m")
	chB := b.Chatter(nil, "m")
	req := llm.Request{Messages: []llm.Message{msg("user", "hello")}}
	if _, err := chA.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r, err := chB.Chat(context.Background(), req)
	if err != nil || r.Text != "from A" || !r.Cached {
		t.Fatalf("B reads A's entry: %+v %v", r, err)
	}
	a.Close()
	b.Close()

	held := open(t, path, Options{})
	if _, _, err := held.Len(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Open(path, Options{Timeout: 100 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Errorf("second Open while held: err = %v after %v, want ErrLocked", err, time.Since(start))
	}
}

func TestClosed(t *testing.T) {
	c := open(t, filepath.Join(t.TempDir(), "c"), Options{})
	c.Close()
	if _, err := c.Chatter(nil, "m").Chat(context.Background(), llm.Request{}); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

func TestNotACacheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk")
	os.WriteFile(path, []byte("this is not a bbolt file, just some text long enough to be read"), 0o600)
	if _, err := Open(path, Options{Timeout: time.Second}); err == nil {
		t.Error("Open of a junk file succeeded")
	}
}

// TestKilledWriter starts a subprocess that writes entries in a loop, kills
// it with SIGKILL in the middle, and reopens the cache: every entry the
// writer reported committed is there and the file passes bbolt's check.
func TestKilledWriter(t *testing.T) {
	if path := os.Getenv("CACHE_TEST_WRITER"); path != "" {
		writer(path)
		return
	}
	path := filepath.Join(t.TempDir(), "killed")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriter$")
	cmd.Env = append(os.Environ(), "CACHE_TEST_WRITER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	committed := -1
	for sc.Scan() {
		n, err := strconv.Atoi(sc.Text())
		if err != nil {
			continue
		}
		committed = n
		if n >= 30 {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if committed < 30 {
		t.Fatalf("writer committed only %d entries before dying", committed)
	}

	c := open(t, path, Options{Timeout: time.Second})
	ch := c.Chatter(nil, "m")
	for i := 0; i <= committed; i++ {
		r, err := ch.Chat(context.Background(), writerReq(i))
		if err != nil || r.Text != fmt.Sprint("answer ", i) {
			t.Fatalf("entry %d after the kill: %q %v", i, r.Text, err)
		}
	}
	if err := c.view(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}); err != nil {
		t.Errorf("bbolt check after the kill: %v", err)
	}
}

func writerReq(i int) llm.Request {
	return llm.Request{Messages: []llm.Message{msg("user", fmt.Sprint("question ", i))}}
}

// writer is the subprocess of TestKilledWriter: it stores entries with
// large embeddings (so some commits are in flight when it is killed) and
// prints the index of each committed chat entry.
func writer(path string) {
	c, err := Open(path, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	em := c.Embedder(llmtest.NewEmbedder(1024))
	for i := 0; ; i++ {
		r := writerReq(i)
		ch := c.Chatter(llmtest.ChatFunc(func(context.Context, llm.Request) (llm.Response, error) {
			return llm.Response{Text: fmt.Sprint("answer ", i)}, nil
		}), "m")
		if _, err := ch.Chat(context.Background(), r); err != nil {
			fmt.Println("chat:", err)
			os.Exit(1)
		}
		texts := make([]string, 50)
		for j := range texts {
			texts[j] = fmt.Sprint("text ", i, " ", j)
		}
		if _, err := em.Embed(context.Background(), texts); err != nil {
			fmt.Println("embed:", err)
			os.Exit(1)
		}
		fmt.Println(i)
	}
}

func BenchmarkChatHit(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprint("entries=", n), func(b *testing.B) {
			c := open(b, filepath.Join(b.TempDir(), "c"), Options{})
			ch := c.Chatter(llmtest.ChatFunc(func(_ context.Context, r llm.Request) (llm.Response, error) {
				return llm.Response{Text: "an answer of a few words, as a summary would be"}, nil
			}), "m")
			req := func(i int) llm.Request {
				return llm.Request{Purpose: "summarize", Messages: []llm.Message{
					msg("system", "Summarize the observation in one sentence. Keep names of objects."),
					msg("user", fmt.Sprint("You are in the kitchen. There is a table, a red apple and a closed door. Step ", i)),
				}}
			}
			for i := range n {
				ch.Chat(context.Background(), req(i))
			}
			r := req(n / 2)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				resp, err := ch.Chat(context.Background(), r)
				if err != nil || !resp.Cached {
					b.Fatal(resp, err)
				}
			}
		})
	}
}

func BenchmarkEmbedHit(b *testing.B) {
	c := open(b, filepath.Join(b.TempDir(), "c"), Options{})
	em := c.Embedder(llmtest.NewEmbedder(1024))
	texts := []string{"You are in the kitchen. There is a table, a red apple and a closed door."}
	em.Embed(context.Background(), texts)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := em.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReplayKeepsReasoning: a replayed reply is the one the server gave,
// its reasoning, finish reason, structured flag and reasoning tokens
// included, so a cut-off reply is as unusable on replay as it was live.
func TestReplayKeepsReasoning(t *testing.T) {
	srv := llmtest.NewServer(t, func(llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: `{"summary": "x"`, Reasoning: "hmm", ReasoningField: "reasoning", FinishReason: "length", ReasoningTokens: 5}
	})
	path := filepath.Join(t.TempDir(), "c")
	c := open(t, path, Options{})
	req := llm.Request{Purpose: "summarize", Messages: []llm.Message{msg("user", "u")},
		Schema: &llm.Schema{Name: "summary", JSON: []byte(`{"type":"object"}`)}}
	live, err := c.Chatter(client(t, srv, "k"), "chat-m").Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	replay, err := c.Chatter(nil, "chat-m").Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !replay.Cached || replay.Text != live.Text || replay.Reasoning != "hmm" || !replay.CutOff() || !replay.Structured || replay.Usage.ReasoningTokens != 5 {
		t.Errorf("live %+v, replay %+v", live, replay)
	}
	req.Schema = nil
	if _, err := c.Chatter(nil, "chat-m").Chat(context.Background(), req); !errors.Is(err, ErrMiss) {
		t.Errorf("the request without its schema was answered: %v", err)
	}
}
