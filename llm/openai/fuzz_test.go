package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/llm"
)

// canned is a Doer that answers every request with one fixed reply, so the
// fuzzers exercise go-openai's decoding and this package's checks without
// sockets.
type canned struct {
	status int
	header http.Header
	body   []byte
}

func (c canned) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: c.status, Status: http.StatusText(c.status), Header: c.header.Clone(),
		Body: io.NopCloser(bytes.NewReader(c.body)), ContentLength: int64(len(c.body)), Request: req,
	}, nil
}

func fuzzClient(t *testing.T, status int, retryAfter string, body []byte) *Client {
	h := http.Header{"Content-Type": {"application/json"}}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	c, err := New(Config{
		APIKey: testKey, ChatModel: "m", EmbedModel: "e", EmbedDim: 3,
		ChatBaseURLs: []string{"http://fuzz.invalid/v1"}, Retries: 2, Timeout: time.Second,
		HTTPClient: canned{status: status, header: h, body: body},
		Sleep:      func(context.Context, time.Duration) error { return nil },
		Meter:      llm.NewMeter(nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkErr checks the invariants of every error: typed, with the model,
// without the key.
func checkErr(t *testing.T, err error, model string) {
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not *Error", err, err)
	}
	if e.Model != model || e.Kind == nil || e.Attempts < 1 || e.Attempts > 3 {
		t.Fatalf("bad error fields: %#v", e)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("error contains the key: %v", err)
	}
	if len(e.Message) > 310 {
		t.Fatalf("message of %d bytes", len(e.Message))
	}
}

func FuzzChatReply(f *testing.F) {
	f.Add(200, "", []byte(`{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`))
	f.Add(200, "", []byte(`{"choices":[]}`))
	f.Add(200, "", []byte(`{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-1}}`))
	f.Add(429, "2", []byte(`{"error":{"message":"Rate limit","type":"requests","code":"rate_limit_exceeded"}}`))
	f.Add(500, "", []byte("Internal Server Error"))
	f.Add(502, "Wed, 21 Oct 2015 07:28:00 GMT", []byte("<html><body>Bad Gateway</body></html>"))
	f.Add(401, "", []byte(`{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`))
	f.Add(400, "", []byte(`{"error":{"message":["a","b"],"code":400}}`))
	f.Add(200, "", []byte(`{"choices":[{"message":{"content":"x"`))
	f.Add(200, "", []byte(``))
	f.Add(302, "", []byte(`moved`))
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body []byte) {
		if status < 100 || status > 999 {
			return
		}
		c := fuzzClient(t, status, retryAfter, body)
		resp, err := c.Chat(context.Background(), llm.Request{Purpose: "p", Messages: []llm.Message{{Role: "user", Content: "q"}}})
		if err != nil {
			checkErr(t, err, "m")
			return
		}
		if resp.Usage.PromptTokens < 0 || resp.Usage.CompletionTokens < 0 || resp.Model == "" {
			t.Fatalf("accepted reply %+v", resp)
		}
	})
}

func FuzzEmbedReply(f *testing.F) {
	f.Add(200, []byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,2,2]}],"model":"e","usage":{"prompt_tokens":1}}`))
	f.Add(200, []byte(`{"data":[{"index":1,"embedding":[1,2,2]}]}`))
	f.Add(200, []byte(`{"data":[{"index":0,"embedding":[1,2]}]}`))
	f.Add(200, []byte(`{"data":[{"index":0,"embedding":[0,0,0]}]}`))
	f.Add(200, []byte(`{"data":[{"index":0,"embedding":[1e38,1e38,1e38]}]}`))
	f.Add(200, []byte(`{"data":[{"index":0,"embedding":[1e-45,0,0]}]}`))
	f.Add(200, []byte(`{"data":[{"index":0,"embedding":"AAAA"}]}`))
	f.Add(503, []byte(`{"error":{"message":"overloaded"}}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 999 {
			return
		}
		c := fuzzClient(t, status, "", body)
		vecs, err := c.Embed(context.Background(), []string{"a"})
		if err != nil {
			checkErr(t, err, "e")
			return
		}
		if len(vecs) != 1 || len(vecs[0]) != 3 {
			t.Fatalf("accepted %v", vecs)
		}
		var ss float64
		for _, x := range vecs[0] {
			ss += float64(x) * float64(x)
		}
		if math.Abs(ss-1) > 1e-4 {
			t.Fatalf("vector %v has norm² %v", vecs[0], ss)
		}
	})
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "3", "1.5", "-1", "NaN", "Inf", "1e308", "Wed, 21 Oct 2015 07:28:00 GMT", "Mon, 02 Jan 2106 15:04:05 GMT"} {
		f.Add(s, s)
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{}
		h.Set("Retry-After", ra)
		h.Set("Retry-After-Ms", ms)
		d := parseRetryAfter(h, now)
		if d < 0 || d > MaxRetryAfter {
			t.Fatalf("parseRetryAfter(%q, %q) = %v", ra, ms, d)
		}
	})
}

func FuzzWithZeroTemperature(f *testing.F) {
	for _, s := range []string{`{"model":"m"}`, `{}`, `{"temperature":1}`, ` {"a":[1,{"temperature":2}]}`, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out := withZeroTemperature(body)
		var in, got map[string]any
		if jsonObject(body, &in) != nil {
			if !bytes.Equal(out, body) {
				t.Fatalf("changed a non-object body %q to %q", body, out)
			}
			return
		}
		if err := jsonObject(out, &got); err != nil {
			t.Fatalf("withZeroTemperature(%q) = %q: invalid JSON: %v", body, out, err)
		}
		if _, had := in["temperature"]; !had && got["temperature"] != 0.0 {
			t.Fatalf("no temperature 0 in %q", out)
		}
	})
}

func jsonObject(b []byte, v *map[string]any) error { return json.Unmarshal(b, v) }
