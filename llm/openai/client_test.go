package openai

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

const testKey = "sk-test-SECRET-0123456789"

// sleeps records the waits of a Client instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newClient returns a Client for srv with instant sleeps and 3 retries.
func newClient(t *testing.T, urls []string, mod func(*Config)) (*Client, *sleeps, *llm.Meter) {
	t.Helper()
	sl := &sleeps{}
	meter := llm.NewMeter(map[string]llm.Price{"chat-model": {PromptPerM: 1, CompletionPerM: 2}})
	cfg := Config{
		APIKey:       testKey,
		ChatModel:    "chat-model",
		ChatBaseURLs: urls,
		EmbedModel:   "embed-model",
		EmbedDim:     8,
		Timeout:      30 * time.Second, // a hang guard: no test here waits for it
		Retries:      3,
		Meter:        meter,
		Sleep:        sl.sleep,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, sl, meter
}

func req(purpose string) llm.Request {
	return llm.Request{Purpose: purpose, Messages: []llm.Message{
		{Role: "system", Content: "Summarize the observation."},
		{Role: "user", Content: "You are in a room."},
	}}
}

func TestChatSuccess(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.RequireKey(testKey, llmtest.Text("the room is empty")))
	c, sl, meter := newClient(t, []string{srv.URL}, nil)
	seed := 42
	r := req("summarize")
	r.Seed, r.MaxTokens, r.Stop = &seed, 50, []string{"\n\n"}
	resp, err := c.Chat(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "the room is empty" || resp.Model != "chat-model" || resp.Cached {
		t.Errorf("Chat = %+v", resp)
	}
	wantU := llm.Usage{PromptTokens: 8, CompletionTokens: 4}
	if resp.Usage != wantU {
		t.Errorf("usage = %+v, want %+v", resp.Usage, wantU)
	}
	if srv.Requests() != 1 || len(sl.all()) != 0 {
		t.Errorf("requests %d sleeps %v, want 1 and none", srv.Requests(), sl.all())
	}
	// On the wire: temperature 0 present as 0, and the other parameters.
	var wire map[string]any
	if err := json.Unmarshal(srv.Calls()[0].Body, &wire); err != nil {
		t.Fatal(err)
	}
	if v, ok := wire["temperature"]; !ok || v != 0.0 {
		t.Errorf("wire temperature = %v (present %v), want 0", v, ok)
	}
	if wire["seed"] != 42.0 || wire["max_tokens"] != 50.0 || wire["model"] != "chat-model" {
		t.Errorf("wire body = %v", wire)
	}
	if _, ok := wire["purpose"]; ok {
		t.Errorf("purpose reached the server: %v", wire)
	}
	rep := meter.Report()
	s := rep.ByPurpose["summarize"]
	if s.Calls != 1 || s.PromptTokens != 8 || s.CompletionTokens != 4 || s.Retries != 0 {
		t.Errorf("meter = %+v", s)
	}
	if want := (8*1.0 + 4*2.0) / 1e6; math.Abs(s.CostUSD-want) > 1e-15 {
		t.Errorf("cost = %v, want %v", s.CostUSD, want)
	}
}

func TestChatTemperatureOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		temp   float64
		noTemp bool
		want   any // nil: absent
	}{
		{0, false, 0.0},
		{0.7, false, 0.7},
		{1, false, 1.0},
		{0, true, nil},
	} {
		srv := llmtest.NewServer(t, nil)
		c, _, _ := newClient(t, []string{srv.URL}, func(cfg *Config) { cfg.NoTemperature = tc.noTemp })
		r := req("think")
		r.Temperature = tc.temp
		if _, err := c.Chat(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		var wire map[string]any
		json.Unmarshal(srv.Calls()[0].Body, &wire)
		got, ok := wire["temperature"]
		if tc.want == nil && ok || tc.want != nil && (!ok || math.Abs(got.(float64)-tc.want.(float64)) > 1e-6) {
			t.Errorf("temperature %v (NoTemperature %v): wire %v present %v, want %v", tc.temp, tc.noTemp, got, ok, tc.want)
		}
	}
}

// TestChatFaults runs the client against each failure the issue lists and
// checks how many requests reached the server and the error.
func TestChatFaults(t *testing.T) {
	html := "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
	tests := []struct {
		name      string
		h         llmtest.Handler
		stall     bool // llmtest.Stall decides when an attempt's deadline passes
		wantReqs  int
		wantKind  error // nil: success
		wantCode  int
		wantMsg   string
		wantSleep time.Duration // minimum first wait
	}{
		{name: "429 with Retry-After then ok",
			h:        llmtest.FailFirst(2, llmtest.Fault{Status: 429, RetryAfter: "7"}, llmtest.Text("ok")),
			wantReqs: 3, wantSleep: 7 * time.Second},
		{name: "429 always", h: llmtest.Always(llmtest.Fault{Status: 429, RetryAfter: "1", Message: "Rate limit reached"}),
			wantReqs: 4, wantKind: ErrRateLimited, wantCode: 429, wantMsg: "Rate limit reached", wantSleep: time.Second},
		{name: "500 json", h: llmtest.Always(llmtest.Fault{Status: 500, Message: "The server had an error"}),
			wantReqs: 4, wantKind: ErrServer, wantCode: 500, wantMsg: "The server had an error"},
		{name: "500 plain text", h: llmtest.Always(llmtest.Fault{Status: 500, Body: "Internal Server Error\n\ttraceback..."}),
			wantReqs: 4, wantKind: ErrServer, wantCode: 500, wantMsg: "Internal Server Error traceback..."},
		{name: "502 html", h: llmtest.Always(llmtest.Fault{Status: 502, Body: html, ContentType: "text/html"}),
			wantReqs: 4, wantKind: ErrServer, wantCode: 502, wantMsg: "502 Bad Gateway"},
		{name: "502 html then ok", h: llmtest.FailFirst(1, llmtest.Fault{Status: 502, Body: html}, llmtest.Text("ok")),
			wantReqs: 2},
		{name: "truncated body", h: llmtest.Always(llmtest.Fault{Truncate: true}),
			wantReqs: 4, wantKind: ErrTruncated},
		{name: "empty body", h: llmtest.Always(llmtest.Fault{Empty: true}),
			wantReqs: 4, wantKind: ErrTruncated},
		// A base URL that serves a web page fails at once,
		// saying so, instead of 6 retries ending in "invalid character '<'".
		{name: "200 html", h: llmtest.Always(llmtest.Fault{Body: html}),
			wantReqs: 1, wantKind: ErrNotAPI},
		{name: "200 html declared", h: llmtest.Always(llmtest.Fault{Body: "\n  <!DOCTYPE html><p>welcome</p>", ContentType: "text/html; charset=utf-8"}),
			wantReqs: 1, wantKind: ErrNotAPI},
		{name: "hangup", h: llmtest.Always(llmtest.Fault{Hangup: true}),
			wantReqs: 4, wantKind: ErrConnection},
		{name: "slower than the deadline", stall: true, wantReqs: 4, wantKind: ErrTimeout},
		{name: "slow once", stall: true, wantReqs: 2},
		{name: "401", h: llmtest.RequireKey("another key", llmtest.Text("ok")),
			wantReqs: 1, wantKind: ErrAuth, wantCode: 401, wantMsg: "Incorrect API key"},
		{name: "403", h: llmtest.Always(llmtest.Fault{Status: 403}),
			wantReqs: 1, wantKind: ErrAuth, wantCode: 403},
		{name: "400", h: llmtest.Always(llmtest.Fault{Status: 400, Message: "max_tokens is too large"}),
			wantReqs: 1, wantKind: ErrBadRequest, wantCode: 400, wantMsg: "max_tokens is too large"},
		{name: "404", h: llmtest.Always(llmtest.Fault{Status: 404, Message: "The model does not exist"}),
			wantReqs: 1, wantKind: ErrNotFound, wantCode: 404},
		{name: "no choices", h: func(llmtest.Call) llmtest.Reply {
			return llmtest.Reply{Fault: llmtest.Fault{Body: `{"id":"x","choices":[],"usage":{}}`, ContentType: "application/json"}}
		}, wantReqs: 1, wantKind: ErrBadReply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.h
			// A stalled attempt's deadline passes when the server holds it,
			// not at a wall-clock instant (llmtest.Stall).
			stall := llmtest.NewStall()
			if tc.stall {
				h = stall.Handler
				if tc.wantKind == nil { // slow once, then an answer
					var stalls atomic.Int64
					h = func(c llmtest.Call) llmtest.Reply {
						if stalls.Add(1) == 1 {
							return stall.Handler(c)
						}
						return llmtest.Reply{Text: "ok"}
					}
				}
			}
			srv := llmtest.NewServer(t, h)
			c, sl, meter := newClient(t, []string{srv.URL}, nil)
			if tc.stall {
				c.withTimeout = func(parent context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
					return stall.Context(parent)
				}
			}
			resp, err := c.Chat(context.Background(), req("think"))
			if got := srv.Requests(); got != tc.wantReqs {
				t.Errorf("requests = %d, want %d", got, tc.wantReqs)
			}
			st := meter.Report().ByPurpose["think"]
			if st.Requests != int64(tc.wantReqs) {
				t.Errorf("meter requests = %d, want %d (the server's count)", st.Requests, tc.wantReqs)
			}
			if st.Retries != int64(tc.wantReqs-1) {
				t.Errorf("meter retries = %d, want %d", st.Retries, tc.wantReqs-1)
			}
			if ss := sl.all(); len(ss) != tc.wantReqs-1 || len(ss) > 0 && ss[0] < tc.wantSleep {
				t.Errorf("sleeps = %v, want %d of at least %v", ss, tc.wantReqs-1, tc.wantSleep)
			}
			if tc.wantKind == nil {
				if err != nil || resp.Text != "ok" {
					t.Fatalf("Chat = %+v, %v; want ok", resp, err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if !errors.Is(err, tc.wantKind) || e.Status != tc.wantCode || e.Model != "chat-model" ||
				e.Purpose != "think" || e.Attempts != tc.wantReqs || e.BaseURL != srv.URL {
				t.Errorf("err = %#v, want kind %v status %d model chat-model purpose think attempts %d", e, tc.wantKind, tc.wantCode, tc.wantReqs)
			}
			if tc.wantKind == ErrNotAPI && !strings.Contains(err.Error(), "HTML page") {
				t.Errorf("error %q does not say the server sent an HTML page", err)
			}
			if !strings.Contains(e.Message, tc.wantMsg) {
				t.Errorf("message %q lacks %q", e.Message, tc.wantMsg)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error contains the key: %v", err)
			}
			if !strings.Contains(err.Error(), "chat-model") {
				t.Errorf("error text lacks the model: %v", err)
			}
			if st.Errors != 1 || st.Calls != 0 {
				t.Errorf("meter = %+v, want 1 error 0 calls", st)
			}
			if e.Transient() != transient(tc.wantKind) {
				t.Errorf("Transient() = %v", e.Transient())
			}
		})
	}
}

func TestRefusedConnection(t *testing.T) {
	c, sl, _ := newClient(t, []string{llmtest.RefusedURL(t)}, nil)
	_, err := c.Chat(context.Background(), req("check"))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrConnection) || e.Attempts != 4 || e.Status != 0 || e.Model != "chat-model" {
		t.Fatalf("err = %v, want ErrConnection after 4 attempts", err)
	}
	if len(sl.all()) != 3 {
		t.Errorf("sleeps = %v, want 3", sl.all())
	}
}

// TestKeyNeverInErrors: a server that echoes the Authorization header into
// its error message (as some proxies do) must not leak the key.
func TestKeyNeverInErrors(t *testing.T) {
	for _, status := range []int{401, 500} {
		srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
			return llmtest.Reply{Fault: llmtest.Fault{Status: status, Message: "bad header: " + c.Header.Get("Authorization")}}
		})
		c, _, _ := newClient(t, []string{srv.URL}, nil)
		_, err := c.Chat(context.Background(), req("x"))
		if err == nil || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("status %d: err = %v, want the key redacted", status, err)
		}
		srv2 := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
			return llmtest.Reply{Fault: llmtest.Fault{Status: status, Body: "<html>" + c.Header.Get("Authorization") + "</html>"}}
		})
		c2, _, _ := newClient(t, []string{srv2.URL}, nil)
		_, err = c2.Chat(context.Background(), req("x"))
		if err == nil || strings.Contains(err.Error(), testKey) {
			t.Errorf("status %d plain body: err = %v, want the key redacted", status, err)
		}
	}
}

func TestCallerCancelStopsRetries(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Always(llmtest.Fault{Status: 503}))
	ctx, cancel := context.WithCancel(context.Background())
	c, _, _ := newClient(t, []string{srv.URL}, func(cfg *Config) {
		cfg.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	})
	_, err := c.Chat(ctx, req("x"))
	if !errors.Is(err, context.Canceled) || srv.Requests() != 1 {
		t.Errorf("err = %v after %d requests, want context.Canceled after 1", err, srv.Requests())
	}
}

func TestRealSleepBackoff(t *testing.T) {
	// The default Sleep and the backoff bounds, with tiny durations.
	srv := llmtest.NewServer(t, llmtest.FailFirst(2, llmtest.Fault{Status: 500}, llmtest.Text("ok")))
	c, err := New(Config{ChatModel: "m", ChatBaseURLs: []string{srv.URL}, BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 40; n++ {
		if d := c.backoff(n); d < time.Millisecond/2 || d > 2*time.Millisecond {
			t.Fatalf("backoff(%d) = %v, out of [0.5ms, 2ms]", n, d)
		}
	}
	if _, err := c.Chat(context.Background(), req("x")); err != nil || srv.Requests() != 3 {
		t.Errorf("err %v after %d requests", err, srv.Requests())
	}
}

func TestSpreadAcrossBaseURLs(t *testing.T) {
	a := llmtest.NewServer(t, llmtest.Text("a"))
	b := llmtest.NewServer(t, llmtest.Text("b"))
	c, _, _ := newClient(t, []string{a.URL, b.URL + "/"}, nil)
	for range 10 {
		if _, err := c.Chat(context.Background(), req("x")); err != nil {
			t.Fatal(err)
		}
	}
	if a.Requests() != 5 || b.Requests() != 5 {
		t.Errorf("requests a %d b %d, want 5 and 5", a.Requests(), b.Requests())
	}
	// A failing replica: the retry goes to the other one.
	bad := llmtest.NewServer(t, llmtest.Always(llmtest.Fault{Status: 503}))
	good := llmtest.NewServer(t, llmtest.Text("good"))
	c2, _, _ := newClient(t, []string{bad.URL, good.URL}, nil)
	for range 4 {
		resp, err := c2.Chat(context.Background(), req("x"))
		if err != nil || resp.Text != "good" {
			t.Fatalf("Chat = %v, %v", resp, err)
		}
	}
	if good.Requests() != 4 || bad.Requests() > 2 {
		t.Errorf("good %d bad %d requests, want 4 and at most 2", good.Requests(), bad.Requests())
	}
}

func TestLeastLoaded(t *testing.T) {
	release := make(chan struct{})
	slow := llmtest.NewServer(t, func(llmtest.Call) llmtest.Reply { <-release; return llmtest.Reply{Text: "slow"} })
	fast := llmtest.NewServer(t, llmtest.Text("fast"))
	c, _, _ := newClient(t, []string{slow.URL, fast.URL}, nil)
	done := make(chan struct{})
	go func() { c.Chat(context.Background(), req("x")); close(done) }()
	for slow.Requests() == 0 && fast.Requests() == 0 {
		time.Sleep(time.Millisecond)
	}
	// One request is in flight on one server: the next ones go to the other.
	busy := slow
	if fast.Requests() == 1 {
		busy = fast
	}
	for range 3 {
		if busy == fast {
			break // the in-flight one finished at once; nothing to check
		}
		if _, err := c.Chat(context.Background(), req("x")); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	<-done
	if busy == slow && (fast.Requests() != 3 || slow.Requests() != 1) {
		t.Errorf("slow %d fast %d requests, want 1 and 3", slow.Requests(), fast.Requests())
	}
}

func TestMaxConcurrent(t *testing.T) {
	// Each request is held until two are in flight at once (or, as a hang
	// guard whose expiry fails the test, 30 s), so the peak is 2 whatever
	// the scheduling, and more than 2 only if the client lets more through.
	var cur, peak atomic.Int64
	two := make(chan struct{})
	var twoOnce sync.Once
	srv := llmtest.NewServer(t, func(llmtest.Call) llmtest.Reply {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if n >= 2 {
			twoOnce.Do(func() { close(two) })
		}
		select {
		case <-two:
		case <-time.After(30 * time.Second):
			t.Errorf("a request waited 30 s for a second one in flight: the client sends one at a time")
		}
		cur.Add(-1)
		return llmtest.Reply{Text: "ok"}
	})
	c, _, _ := newClient(t, []string{srv.URL}, func(cfg *Config) { cfg.MaxConcurrent = 2 })
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Chat(context.Background(), req("x")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if peak.Load() != 2 || srv.Requests() != 8 {
		t.Errorf("peak concurrency %d over %d requests, want 2 over 8", peak.Load(), srv.Requests())
	}
}

func TestEmbed(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	c, _, meter := newClient(t, []string{"http://unused.invalid/v1"}, func(cfg *Config) {
		cfg.EmbedBaseURLs = []string{srv.URL}
		cfg.EmbedBatch = 2
		cfg.SendDimensions = true
	})
	texts := []string{"open the door", "", "take the lamp", "open the door", "go north"}
	vecs, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 5 || srv.EmbedRequests() != 3 || srv.ChatRequests() != 0 {
		t.Fatalf("%d vectors from %d requests, want 5 from 3", len(vecs), srv.EmbedRequests())
	}
	for i, v := range vecs {
		want := llmtest.Vector(texts[i], 8)
		if texts[i] == "" {
			want = llmtest.Vector(" ", 8)
		}
		for j := range v {
			if math.Abs(float64(v[j]-want[j])) > 1e-6 {
				t.Fatalf("vector %d = %v, want %v", i, v, want)
			}
		}
	}
	if d := srv.Calls()[0].Embed.Dimensions; d == nil || *d != 8 {
		t.Errorf("dimensions on the wire = %v, want 8", d)
	}
	if e := meter.Report().ByPurpose[llm.EmbedPurpose]; e.Calls != 3 || e.PromptTokens != 11 {
		t.Errorf("meter embed = %+v, want 3 calls 11 tokens", e)
	}
	if c.Dim() != 8 || c.Model() != "embed-model" {
		t.Errorf("Dim %d Model %q", c.Dim(), c.Model())
	}
}

func TestEmbedNormalisesAndChecks(t *testing.T) {
	tests := []struct {
		name    string
		vectors [][]float32
		kind    error
	}{
		{"scaled", [][]float32{{3, 4, 0, 0}}, nil},
		{"wrong dim", [][]float32{{1, 0, 0}}, ErrBadReply},
		{"zero", [][]float32{{0, 0, 0, 0}}, ErrBadReply},
		{"too many", [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}}, ErrBadReply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, func(llmtest.Call) llmtest.Reply { return llmtest.Reply{Vectors: tc.vectors} })
			c, _, _ := newClient(t, []string{srv.URL}, func(cfg *Config) { cfg.EmbedDim = 4 })
			vecs, err := c.Embed(context.Background(), []string{"x"})
			if tc.kind == nil {
				if err != nil || math.Abs(float64(vecs[0][0])-0.6) > 1e-6 || math.Abs(float64(vecs[0][1])-0.8) > 1e-6 {
					t.Fatalf("Embed = %v, %v; want [0.6 0.8 0 0]", vecs, err)
				}
				return
			}
			if !errors.Is(err, tc.kind) || srv.Requests() != 1 {
				t.Errorf("err = %v after %d requests, want %v after 1", err, srv.Requests(), tc.kind)
			}
		})
	}
}

func TestEmbedRetries(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.FailFirst(1, llmtest.Fault{Status: 429}, nil))
	srv.SetHandler(llmtest.FailFirst(1, llmtest.Fault{Status: 429}, llmtest.Text("")))
	c, _, meter := newClient(t, []string{srv.URL}, func(cfg *Config) { cfg.SendDimensions = true })
	if _, err := c.Embed(context.Background(), []string{"a"}); err != nil || srv.Requests() != 2 {
		t.Errorf("err %v after %d requests, want success after 2", err, srv.Requests())
	}
	if meter.Report().ByPurpose[llm.EmbedPurpose].Retries != 1 {
		t.Errorf("retries not metered")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{ChatBaseURLs: []string{"ftp://x"}},
		{ChatBaseURLs: []string{"localhost:8000"}},
		{ChatBaseURLs: []string{"http://user:" + testKey + "@host/v1"}},
		{EmbedBaseURLs: []string{"::"}},
		{Timeout: -1},
		{BackoffBase: time.Second, BackoffMax: time.Millisecond},
		{EmbedDim: -1},
	} {
		_, err := New(cfg)
		if !errors.Is(err, ErrConfig) || err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("New(%+v) = %v, want ErrConfig without the key", cfg, err)
		}
	}
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), req("x")); !errors.Is(err, ErrConfig) {
		t.Errorf("Chat without model: %v", err)
	}
	if _, err := c.Embed(context.Background(), []string{"x"}); !errors.Is(err, ErrConfig) {
		t.Errorf("Embed without model: %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{nil, 0},
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {"-4"}}, 0},
		{http.Header{"Retry-After": {"abc"}}, 0},
		{http.Header{"Retry-After": {"99999999999999"}}, MaxRetryAfter},
		{http.Header{"Retry-After": {"NaN"}}, 0},
		{http.Header{"Retry-After": {now.Add(10 * time.Second).Format(http.TimeFormat)}}, 10 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"x"}, "Retry-After": {"2"}}, 2 * time.Second},
	}
	for _, tc := range tests {
		if got := parseRetryAfter(tc.h, now); got != tc.want {
			t.Errorf("parseRetryAfter(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

func TestWithZeroTemperature(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"model":"m"}`, `{"temperature":0,"model":"m"}`},
		{`{}`, `{"temperature":0}`},
		{` { "model":"m"}`, ` {"temperature":0, "model":"m"}`},
		{`{"temperature":0.5}`, `{"temperature":0.5}`},
		{`not json`, `not json`},
		{`[1]`, `[1]`},
	}
	for _, tc := range tests {
		if got := string(withZeroTemperature([]byte(tc.in))); got != tc.want {
			t.Errorf("withZeroTemperature(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestCooldownExpires: a replica that failed is passed over for Cooldown,
// then tried again.
func TestCooldownExpires(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	flaky := llmtest.NewServer(t, llmtest.FailFirst(1, llmtest.Fault{Status: 503}, llmtest.Text("flaky")))
	good := llmtest.NewServer(t, llmtest.Text("good"))
	c, _, _ := newClient(t, []string{flaky.URL, good.URL}, func(cfg *Config) {
		cfg.Now = func() time.Time { return time.Unix(0, now.Load()) }
	})
	for range 4 {
		if _, err := c.Chat(context.Background(), req("x")); err != nil {
			t.Fatal(err)
		}
	}
	if flaky.Requests() != 1 {
		t.Fatalf("flaky got %d requests during its cooldown, want 1", flaky.Requests())
	}
	now.Add(int64(Cooldown + time.Second))
	for range 4 {
		if _, err := c.Chat(context.Background(), req("x")); err != nil {
			t.Fatal(err)
		}
	}
	if flaky.Requests() != 3 {
		t.Errorf("flaky got %d requests in all, want 3 (1 + half of 4 after the cooldown)", flaky.Requests())
	}
}
