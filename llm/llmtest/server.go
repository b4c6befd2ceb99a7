// Package llmtest holds test helpers for code that talks to language and
// embedding models:
//
//   - NewServer: a local HTTP server speaking the OpenAI protocol
//     (POST /v1/chat/completions and POST /v1/embeddings), whose replies a
//     Handler decides from the request, which counts and records every
//     request and can inject faults (status codes, Retry-After, plain-text and
//     HTML bodies, truncated bodies, delays). Point a real client at
//     Server.URL to prove an LLM-backed path runs end to end.
//   - Chatter: a scripted llm.Chatter that returns given replies in order,
//     fails the test loudly when it runs out, and records the requests it got
//     so tests can assert on the exact prompts.
//   - ChatFunc: an llm.Chatter made from a function.
//   - Embedder: a deterministic llm.Embedder that needs no server.
//
// A typical end-to-end test of a role that summarises and then thinks:
//
//	srv := llmtest.NewServer(t, llmtest.Routes(
//		llmtest.Route{Contains: "Summarize", Text: "the door is locked"},
//		llmtest.Route{Contains: "Think", Text: "find the key"},
//	))
//	client, _ := openai.New(openai.Config{ChatBaseURLs: []string{srv.URL}, ChatModel: "m", ...})
//	... run the role with client ...
//	if got := srv.ChatRequests(); got != 2 { t.Errorf(...) }
package llmtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/samem/trainer/llm"
)

// Paths the server answers. Anything else gets a 404 with an OpenAI-style
// error body, like the real API.
const (
	ChatPath  = "/v1/chat/completions"
	EmbedPath = "/v1/embeddings"
)

// DefaultEmbedDim is the dimension of the server's embeddings when the
// request has no "dimensions" field and the Handler gives no vectors.
const DefaultEmbedDim = 16

// ChatRequest is the body of a chat completion request as the server decoded
// it. Pointer fields are nil when the field was absent from the JSON, so a
// test can tell "temperature": 0 (Temperature points at 0) from no
// temperature at all (nil).
type ChatRequest struct {
	Model               string        `json:"model"`
	Messages            []llm.Message `json:"messages"`
	Temperature         *float64      `json:"temperature"`
	MaxTokens           *int          `json:"max_tokens"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
	Seed                *int          `json:"seed"`
	Stop                []string      `json:"stop"`
	Stream              bool          `json:"stream"`
	// ResponseFormat is the raw "response_format" field (nil when absent).
	ResponseFormat json.RawMessage `json:"response_format"`
	// ReasoningEffort is "reasoning_effort" (nil when absent).
	ReasoningEffort *string `json:"reasoning_effort"`
}

// JSONSchema is the request's structured-output request: the name and
// schema of its response_format when that is {"type": "json_schema",
// "json_schema": {...}}, and whether it asked for strict mode; ok is false
// when the request has none.
func (r *ChatRequest) JSONSchema() (name string, schema json.RawMessage, strict, ok bool) {
	if len(r.ResponseFormat) == 0 {
		return "", nil, false, false
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	}
	if json.Unmarshal(r.ResponseFormat, &rf) != nil || rf.Type != "json_schema" || len(rf.JSONSchema.Schema) == 0 {
		return "", nil, false, false
	}
	return rf.JSONSchema.Name, rf.JSONSchema.Schema, rf.JSONSchema.Strict, true
}

// System returns the content of the first system message, or "".
func (r *ChatRequest) System() string {
	for _, m := range r.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

// LastUser returns the content of the last user message, or "".
func (r *ChatRequest) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Prompt returns every message's content joined by newlines, for substring
// matching.
func (r *ChatRequest) Prompt() string {
	var b strings.Builder
	for i, m := range r.Messages {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.Content)
	}
	return b.String()
}

// EmbedRequest is the body of an embeddings request as the server decoded it.
// Input is normalised to a list: OpenAI accepts a string or a list of strings.
type EmbedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"-"`
	Dimensions     *int     `json:"dimensions"`
	EncodingFormat string   `json:"encoding_format"`
}

// Call is one request the server received.
type Call struct {
	N      int         // 1-based arrival order over all paths
	Path   string      // URL path, e.g. ChatPath
	Header http.Header // request headers (Authorization included, for tests that check it)
	Body   []byte      // raw request body
	Chat   *ChatRequest
	Embed  *EmbedRequest
}

// Fault is a failure the server injects instead of (or on top of) a normal
// reply. The zero Fault injects nothing.
type Fault struct {
	// Status is the HTTP status to answer with; 0 means 200.
	Status int
	// Message is the message of the OpenAI-style JSON error body
	// ({"error":{"message":...,"type":...,"code":...}}) sent when Status is
	// 400 or more and Body is "". Default: the status text.
	Message string
	// Body, when not "", is sent verbatim instead of the JSON reply or error
	// (for plain-text or HTML error pages, or malformed JSON).
	Body string
	// ContentType of Body; default "text/plain; charset=utf-8" for Body,
	// "application/json" otherwise.
	ContentType string
	// RetryAfter, when not "", is sent as the Retry-After header
	// (seconds, e.g. "2", or an HTTP date).
	RetryAfter string
	// Truncate sends the headers with the full Content-Length and then only
	// the first half of the body before closing the connection: the client
	// sees an unexpected EOF.
	Truncate bool
	// Empty sends the status and headers with an empty body.
	Empty bool
	// Delay is waited before answering (or until the client goes away).
	Delay time.Duration
	// Hangup closes the connection without any answer.
	Hangup bool
}

// Reply is what a Handler answers to one call.
type Reply struct {
	// Text is the assistant message of a chat reply.
	Text string
	// Vectors are the embeddings of an embeddings reply, one per input; nil
	// means the server's deterministic vectors (Vector with the requested
	// dimension, or DefaultEmbedDim).
	Vectors [][]float32
	// Usage overrides the token counts; nil means estimated (one token per
	// whitespace-separated word, see EstimateTokens).
	Usage *llm.Usage
	// Model overrides the model name in the reply; "" echoes the request's.
	Model string
	// Reasoning is sent beside the content, in the field ReasoningField
	// names ("reasoning_content" when ""; "reasoning" as OpenRouter and
	// newer vLLM send it, "thinking" as Ollama does). "" sends none.
	Reasoning      string
	ReasoningField string
	// ReasoningTokens is sent as usage.completion_tokens_details.reasoning_tokens.
	ReasoningTokens int
	// FinishReason is the choice's finish_reason; "" sends "stop".
	FinishReason string
	// NullContent sends "content": null (a reply that is all reasoning).
	NullContent bool
	// Fingerprint overrides the reply's system_fingerprint; "" sends
	// "fp_llmtest".
	Fingerprint string
	// Fault injects a failure.
	Fault Fault
}

// Handler decides the reply to one call. It runs on the server's goroutines,
// possibly concurrently: make it safe for concurrent use.
type Handler func(c Call) Reply

// Server is a local OpenAI-compatible server for tests. Its methods are
// safe for concurrent use.
type Server struct {
	// URL is the base URL to give a client (it ends in /v1, like
	// https://api.openai.com/v1).
	URL string

	srv     *httptest.Server
	handler atomic.Pointer[Handler]
	n       atomic.Int64
	chatN   atomic.Int64
	embedN  atomic.Int64
	mu      sync.Mutex
	calls   []Call
}

// NewServer starts a Server answering with h and closes it when the test
// ends. A nil h answers every chat with "ok" and every embedding with
// deterministic vectors.
func NewServer(t testing.TB, h Handler) *Server {
	t.Helper()
	if h == nil {
		h = Text("ok")
	}
	s := &Server{}
	s.handler.Store(&h)
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.srv.Close)
	return s
}

// SetHandler replaces the handler for the calls that follow.
func (s *Server) SetHandler(h Handler) { s.handler.Store(&h) }

// Requests is the number of requests that reached the server, on any path.
func (s *Server) Requests() int { return int(s.n.Load()) }

// ChatRequests is the number of requests to ChatPath.
func (s *Server) ChatRequests() int { return int(s.chatN.Load()) }

// EmbedRequests is the number of requests to EmbedPath.
func (s *Server) EmbedRequests() int { return int(s.embedN.Load()) }

// Calls returns a copy of every call received so far, in arrival order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Close shuts the server down now (it is also closed when the test ends);
// later requests are refused.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := readAll(r)
	n := int(s.n.Add(1))
	c := Call{N: n, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err != nil {
		s.record(c)
		writeError(w, http.StatusBadRequest, "could not read body: "+err.Error())
		return
	}
	if r.Method != http.MethodPost {
		s.record(c)
		writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	switch r.URL.Path {
	case ChatPath:
		s.chatN.Add(1)
		var req ChatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			s.record(c)
			writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
			return
		}
		c.Chat = &req
	case EmbedPath:
		s.embedN.Add(1)
		req, err := decodeEmbed(body)
		if err != nil {
			s.record(c)
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		c.Embed = req
	default:
		s.record(c)
		writeError(w, http.StatusNotFound, "Invalid URL (POST "+r.URL.Path+")")
		return
	}
	s.record(c)
	h := *s.handler.Load()
	rep := h(c)
	s.answer(w, r, c, rep)
}

func (s *Server) record(c Call) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

func readAll(r *http.Request) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r.Body)
	return b.Bytes(), err
}

func decodeEmbed(body []byte) (*EmbedRequest, error) {
	var raw struct {
		EmbedRequest
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("invalid JSON body: %w", err)
	}
	req := raw.EmbedRequest
	var one string
	if err := json.Unmarshal(raw.Input, &one); err == nil {
		req.Input = []string{one}
	} else if err := json.Unmarshal(raw.Input, &req.Input); err != nil {
		return nil, fmt.Errorf("'input' must be a string or a list of strings: %w", err)
	}
	for i, in := range req.Input {
		if in == "" {
			// The real API rejects empty strings.
			return nil, fmt.Errorf("'$.input[%d]' is invalid: empty string", i)
		}
	}
	return &req, nil
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, c Call, rep Reply) {
	f := rep.Fault
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if f.Hangup {
		hangup(w)
		return
	}
	status := f.Status
	if status == 0 {
		status = http.StatusOK
	}
	var body []byte
	ctype := "application/json"
	switch {
	case f.Body != "":
		body = []byte(f.Body)
		ctype = "text/plain; charset=utf-8"
	case status >= 400:
		body = errorBody(status, f.Message)
	case c.Chat != nil:
		body = chatBody(c, rep)
	default:
		b, err := embedBody(c, rep)
		if err != nil {
			status, body = http.StatusBadRequest, errorBody(http.StatusBadRequest, err.Error())
		} else {
			body = b
		}
	}
	if f.ContentType != "" {
		ctype = f.ContentType
	}
	if f.Empty {
		body = nil
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	if f.RetryAfter != "" {
		h.Set("Retry-After", f.RetryAfter)
	}
	if f.Truncate {
		truncate(w, status, body)
		return
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// truncate writes a raw HTTP/1.1 response announcing len(body) bytes, sends
// half of them and closes the connection.
func truncate(w http.ResponseWriter, status int, body []byte) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("llmtest: response writer cannot be hijacked")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.Header().Write(buf)
	buf.WriteString("\r\n")
	buf.Write(body[:len(body)/2])
	buf.Flush()
}

func hangup(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("llmtest: response writer cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		conn.Close()
	}
}

// errorBody is an OpenAI-style error body for status.
func errorBody(status int, msg string) []byte {
	if msg == "" {
		msg = http.StatusText(status)
	}
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusNotFound:
		code = "model_not_found"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": code,
	}})
	return b
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(errorBody(status, msg))
}

func chatBody(c Call, rep Reply) []byte {
	model := rep.Model
	if model == "" {
		model = c.Chat.Model
	}
	u := llm.Usage{PromptTokens: EstimateTokens(c.Chat.Prompt()), CompletionTokens: EstimateTokens(rep.Text) + EstimateTokens(rep.Reasoning)}
	if rep.Usage != nil {
		u = *rep.Usage
	}
	msg := map[string]any{"role": "assistant", "content": rep.Text}
	if rep.NullContent {
		msg["content"] = nil
	}
	if rep.Reasoning != "" {
		msg[cmp.Or(rep.ReasoningField, "reasoning_content")] = rep.Reasoning
	}
	usage := map[string]any{
		"prompt_tokens":     u.PromptTokens,
		"completion_tokens": u.CompletionTokens,
		"total_tokens":      u.PromptTokens + u.CompletionTokens,
	}
	if rep.ReasoningTokens > 0 {
		usage["completion_tokens_details"] = map[string]any{"reasoning_tokens": rep.ReasoningTokens}
	}
	b, _ := json.Marshal(map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", c.N),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       msg,
			"finish_reason": cmp.Or(rep.FinishReason, "stop"),
			"logprobs":      nil,
		}},
		"usage":              usage,
		"system_fingerprint": cmp.Or(rep.Fingerprint, "fp_llmtest"),
	})
	return b
}

func embedBody(c Call, rep Reply) ([]byte, error) {
	in := c.Embed.Input
	vecs := rep.Vectors
	if vecs == nil {
		dim := DefaultEmbedDim
		if c.Embed.Dimensions != nil {
			dim = *c.Embed.Dimensions
		}
		if dim <= 0 {
			return nil, fmt.Errorf("'dimensions' must be positive, got %d", dim)
		}
		for _, s := range in {
			vecs = append(vecs, Vector(s, dim))
		}
	}
	model := rep.Model
	if model == "" {
		model = c.Embed.Model
	}
	tokens := 0
	for _, s := range in {
		tokens += EstimateTokens(s)
	}
	if rep.Usage != nil {
		tokens = rep.Usage.PromptTokens
	}
	data := make([]any, len(vecs))
	for i, v := range vecs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	return json.Marshal(map[string]any{
		"object": "list",
		"data":   data,
		"model":  model,
		"usage":  map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// EstimateTokens is the server's token count: one token per
// whitespace-separated word (a rough stand-in for a tokenizer, good enough
// for tests that check usage is carried through).
func EstimateTokens(s string) int { return len(strings.Fields(s)) }

// Vector is the deterministic embedding used by the server and by Embedder:
// each lower-cased word is hashed (FNV-1a) to a coordinate and a sign, and
// the sum is L2-normalised. Texts sharing most words get a high cosine
// similarity; a text without words maps to a fixed unit vector. dim must be
// positive.
func Vector(text string, dim int) []float32 {
	v := make([]float32, dim)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(dim)] += sign
	}
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		v[0] = 1
		return v
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// RefusedURL returns a base URL on which nothing listens: a connection to
// it is refused. The port was free a moment ago; it stays unused in
// practice for the length of a test.
func RefusedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("llmtest: listen: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}
