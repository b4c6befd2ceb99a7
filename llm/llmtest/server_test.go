package llmtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/samem/trainer/llm"
	goopenai "github.com/sashabaranov/go-openai"
)

// client is the real go-openai client pointed at srv: these tests prove the
// server speaks what that library expects.
func client(srv *Server, key string) *goopenai.Client {
	cfg := goopenai.DefaultConfig(key)
	cfg.BaseURL = srv.URL
	return goopenai.NewClientWithConfig(cfg)
}

func chatReq(system, user string) goopenai.ChatCompletionRequest {
	return goopenai.ChatCompletionRequest{
		Model: "test-model",
		Messages: []goopenai.ChatCompletionMessage{
			{Role: "system", Content: system},
			{Role: "user", Content: user},
		},
		Temperature: 0.5,
		//lint:ignore SA1019 the client sends max_tokens (llm/openai), so the server is tested with it
		MaxTokens: 7,
	}
}

func TestServerChat(t *testing.T) {
	srv := NewServer(t, Routes(
		Route{Contains: "Summarize", Text: "short summary"},
		Route{Contains: "Think", Text: "a thought here"},
	))
	c := client(srv, "sk-test")
	for _, tc := range []struct{ system, want string }{
		{"Summarize the state.", "short summary"},
		{"Think about it.", "a thought here"},
	} {
		resp, err := c.CreateChatCompletion(context.Background(), chatReq(tc.system, "one two three"))
		if err != nil {
			t.Fatalf("chat(%q): %v", tc.system, err)
		}
		if got := resp.Choices[0].Message.Content; got != tc.want {
			t.Errorf("chat(%q) = %q, want %q", tc.system, got, tc.want)
		}
		wantPrompt := EstimateTokens(tc.system) + 3
		if resp.Usage.PromptTokens != wantPrompt || resp.Usage.CompletionTokens != EstimateTokens(tc.want) {
			t.Errorf("usage = %+v, want prompt %d completion %d", resp.Usage, wantPrompt, EstimateTokens(tc.want))
		}
		if resp.Model != "test-model" {
			t.Errorf("model = %q, want test-model", resp.Model)
		}
	}
	if srv.ChatRequests() != 2 || srv.Requests() != 2 || srv.EmbedRequests() != 0 {
		t.Errorf("counts chat %d all %d embed %d, want 2 2 0", srv.ChatRequests(), srv.Requests(), srv.EmbedRequests())
	}
	calls := srv.Calls()
	if len(calls) != 2 {
		t.Fatalf("len(Calls()) = %d, want 2", len(calls))
	}
	cr := calls[1].Chat
	if cr.System() != "Think about it." || cr.LastUser() != "one two three" {
		t.Errorf("recorded system %q user %q", cr.System(), cr.LastUser())
	}
	if cr.Temperature == nil || *cr.Temperature != 0.5 || cr.MaxTokens == nil || *cr.MaxTokens != 7 {
		t.Errorf("recorded temperature %v max_tokens %v, want 0.5 and 7", cr.Temperature, cr.MaxTokens)
	}
	if got := calls[0].Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}

	// No route: a 400 the client sees as an API error.
	_, err := c.CreateChatCompletion(context.Background(), chatReq("Check this.", "x"))
	var apiErr *goopenai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 || !strings.Contains(apiErr.Message, "llmtest: no route") {
		t.Errorf("unrouted chat error = %v, want a 400 APIError saying no route", err)
	}
}

func TestServerTemperatureAbsent(t *testing.T) {
	srv := NewServer(t, nil)
	req := chatReq("s", "u")
	req.Temperature = 0 // go-openai drops it (omitempty)
	if _, err := client(srv, "").CreateChatCompletion(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if tp := srv.Calls()[0].Chat.Temperature; tp != nil {
		t.Errorf("temperature recorded as %v, want absent (nil)", *tp)
	}
}

func TestServerEmbeddings(t *testing.T) {
	srv := NewServer(t, nil)
	c := client(srv, "k")
	in := []string{"open the door", "open the door", "eat the red apple"}
	resp, err := c.CreateEmbeddings(context.Background(), goopenai.EmbeddingRequestStrings{
		Input: in, Model: "emb", Dimensions: 32,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Data) != 3 {
		t.Fatalf("got %d embeddings, want 3", len(resp.Data))
	}
	for i, d := range resp.Data {
		if d.Index != i || len(d.Embedding) != 32 {
			t.Errorf("data[%d]: index %d dim %d, want %d and 32", i, d.Index, len(d.Embedding), i)
		}
	}
	if resp.Usage.PromptTokens != 10 {
		t.Errorf("usage prompt tokens = %d, want 10", resp.Usage.PromptTokens)
	}
	if cos(resp.Data[0].Embedding, resp.Data[1].Embedding) < 0.9999 {
		t.Errorf("identical texts differ")
	}
	if srv.EmbedRequests() != 1 || *srv.Calls()[0].Embed.Dimensions != 32 {
		t.Errorf("embed requests %d, want 1 with dimensions 32", srv.EmbedRequests())
	}

	// An empty input is rejected like the real API does.
	_, err = c.CreateEmbeddings(context.Background(), goopenai.EmbeddingRequestStrings{Input: []string{""}, Model: "emb"})
	var apiErr *goopenai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 {
		t.Errorf("empty input: err = %v, want 400", err)
	}
}

func TestServerFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault Fault
		check func(t *testing.T, err error, hdr http.Header)
	}{
		{"429 json with retry-after", Fault{Status: 429, RetryAfter: "3"}, func(t *testing.T, err error, hdr http.Header) {
			var e *goopenai.APIError
			if !errors.As(err, &e) || e.HTTPStatusCode != 429 || e.Type != "requests" {
				t.Errorf("err = %v, want 429 APIError", err)
			}
			if hdr.Get("Retry-After") != "3" {
				t.Errorf("Retry-After = %q, want 3", hdr.Get("Retry-After"))
			}
		}},
		{"500 plain text", Fault{Status: 500, Body: "upstream crashed"}, func(t *testing.T, err error, _ http.Header) {
			var e *goopenai.RequestError
			if !errors.As(err, &e) || e.HTTPStatusCode != 500 || string(e.Body) != "upstream crashed" {
				t.Errorf("err = %v, want 500 RequestError with the body", err)
			}
		}},
		{"502 html", Fault{Status: 502, Body: "<html><body>Bad Gateway</body></html>", ContentType: "text/html"}, func(t *testing.T, err error, _ http.Header) {
			var e *goopenai.RequestError
			if !errors.As(err, &e) || e.HTTPStatusCode != 502 {
				t.Errorf("err = %v, want 502 RequestError", err)
			}
		}},
		{"truncated", Fault{Truncate: true}, func(t *testing.T, err error, _ http.Header) {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("err = %v, want io.ErrUnexpectedEOF", err)
			}
		}},
		{"empty", Fault{Empty: true}, func(t *testing.T, err error, _ http.Header) {
			if !errors.Is(err, io.EOF) {
				t.Errorf("err = %v, want io.EOF", err)
			}
		}},
		{"hangup", Fault{Hangup: true}, func(t *testing.T, err error, _ http.Header) {
			if err == nil {
				t.Errorf("err = nil, want a connection error")
			}
		}},
		{"slow", Fault{Delay: time.Hour}, func(t *testing.T, err error, _ http.Header) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want deadline exceeded", err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, ctx := FailFirst(1, tc.fault, Text("fine")), context.Background()
			if tc.fault.Delay > 0 {
				// The caller's deadline passes once the server holds the
				// request, not at a wall-clock instant that a loaded
				// machine could also reach before a fault of another
				// kind is served.
				stall := NewStall()
				h = sequenceOf(stall.Handler, Text("fine"))
				var cancel context.CancelFunc
				ctx, cancel = stall.Context(ctx)
				defer cancel()
			}
			srv := NewServer(t, h)
			resp, err := client(srv, "k").CreateChatCompletion(ctx, chatReq("s", "u"))
			tc.check(t, err, resp.Header())
			// The next call succeeds: the fault was injected once.
			resp, err = client(srv, "k").CreateChatCompletion(context.Background(), chatReq("s", "u"))
			if err != nil || resp.Choices[0].Message.Content != "fine" {
				t.Errorf("second call = %v, %v; want fine", resp.Choices, err)
			}
			if srv.Requests() != 2 {
				t.Errorf("Requests() = %d, want 2", srv.Requests())
			}
		})
	}
}

func TestSequence(t *testing.T) {
	srv := NewServer(t, Sequence(Reply{Text: "a"}, Reply{Text: "b"}))
	c := client(srv, "k")
	for _, want := range []string{"a", "b"} {
		resp, err := c.CreateChatCompletion(context.Background(), chatReq("s", "u"))
		if err != nil || resp.Choices[0].Message.Content != want {
			t.Fatalf("got %v %v, want %q", resp.Choices, err, want)
		}
	}
	_, err := c.CreateChatCompletion(context.Background(), chatReq("s", "u"))
	var e *goopenai.APIError
	if !errors.As(err, &e) || e.HTTPStatusCode != 500 || !strings.Contains(e.Message, "exhausted") {
		t.Errorf("third call err = %v, want 500 exhausted", err)
	}
}

func TestRequireKey(t *testing.T) {
	srv := NewServer(t, RequireKey("right", Text("ok")))
	_, err := client(srv, "wrong").CreateChatCompletion(context.Background(), chatReq("s", "u"))
	var e *goopenai.APIError
	if !errors.As(err, &e) || e.HTTPStatusCode != 401 {
		t.Errorf("wrong key: err = %v, want 401", err)
	}
	if _, err := client(srv, "right").CreateChatCompletion(context.Background(), chatReq("s", "u")); err != nil {
		t.Errorf("right key: %v", err)
	}
}

func TestRefusedURL(t *testing.T) {
	u := RefusedURL(t)
	resp, err := http.Post(u+"/chat/completions", "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("POST %s succeeded, want connection refused", u)
	}
}

func TestUnknownPath(t *testing.T) {
	srv := NewServer(t, nil)
	resp, err := http.Post(srv.URL+"/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("status = %d, want 404", resp.StatusCode)
	}
}

func TestVector(t *testing.T) {
	for _, dim := range []int{1, 16, 1024} {
		for _, s := range []string{"", "a", "Open the DOOR", "open the door now"} {
			v := Vector(s, dim)
			if len(v) != dim {
				t.Fatalf("Vector(%q, %d) has len %d", s, dim, len(v))
			}
			if n := norm(v); math.Abs(n-1) > 1e-5 {
				t.Errorf("|Vector(%q, %d)| = %v, want 1", s, dim, n)
			}
		}
	}
	a, b, c := Vector("open the door", 1024), Vector("OPEN the door", 1024), Vector("eat an apple", 1024)
	if cos(a, b) < 0.9999 {
		t.Errorf("case should not matter: cos = %v", cos(a, b))
	}
	if cos(a, c) > 0.5 {
		t.Errorf("unrelated texts: cos = %v, want low", cos(a, c))
	}
}

func norm(v []float32) float64 { return math.Sqrt(float64(dot(v, v))) }

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func cos(a, b []float32) float64 { return float64(dot(a, b)) / (norm(a) * norm(b)) }

func ExampleRoutes() {
	h := Routes(Route{Contains: "Summarize", Text: "the door is open"})
	r := h(Call{Chat: &ChatRequest{Messages: []llm.Message{{Role: "system", Content: "Summarize."}}}})
	fmt.Println(r.Text)
	// Output: the door is open
}

// sequenceOf answers the first call with first, the others with then.
func sequenceOf(first, then Handler) Handler {
	var n atomic.Int64
	return func(c Call) Reply {
		if n.Add(1) == 1 {
			return first(c)
		}
		return then(c)
	}
}
