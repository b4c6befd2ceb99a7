// Package fakeai is a local OpenAI-compatible server for the benchmark
// suite: it answers POST /v1/chat/completions and POST /v1/embeddings after a
// fixed added latency, with replies a function of the request, so that
// parallel episodes can be timed against a model whose cost is pure waiting
// (the parallel-episodes target: a local OpenAI-compatible server that
// adds 200 ms to every call).
//
// llm/llmtest has a richer server, but it needs a testing.TB and records
// every call; the benchmark program runs outside tests and long enough that
// an ever-growing record would be noise in the figures.
package fakeai

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Paths the server answers; the base URL to give a client ends in /v1.
const (
	ChatPath  = "/v1/chat/completions"
	EmbedPath = "/v1/embeddings"
)

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Config configures a Server.
type Config struct {
	// Latency is added to every call before it is answered (0: none).
	Latency time.Duration
	// Jitter, when positive, adds a uniform extra wait in [0, Jitter) drawn
	// from Rand (default a PCG seeded (1, 2)), so that concurrent callers
	// interleave differently from run to run of a test.
	Jitter time.Duration
	Rand   *rand.Rand
	// Dim is the dimension of the embeddings (default 1024).
	Dim int
	// Reply answers a chat from its messages; default: "ok".
	Reply func(msgs []Message) string
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL for clients (ending in /v1).
	URL string

	cfg         Config
	randMu      sync.Mutex
	srv         *httptest.Server
	chat, embed atomic.Int64
	inFlight    atomic.Int64
	peak        atomic.Int64
}

// ErrRequest is wrapped by the errors DecodeChat and DecodeEmbed return for
// a malformed request body.
var ErrRequest = errors.New("fakeai: malformed request")

// New starts a server; Close stops it.
func New(cfg Config) *Server {
	if cfg.Dim <= 0 {
		cfg.Dim = 1024
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(1, 2))
	}
	if cfg.Reply == nil {
		cfg.Reply = func([]Message) string { return "ok" }
	}
	s := &Server{cfg: cfg}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Calls returns the chat and embedding requests answered so far.
func (s *Server) Calls() (chat, embed int64) { return s.chat.Load(), s.embed.Load() }

// PeakInFlight is the largest number of requests the server held at once:
// with W workers and nothing serialising them it reaches W.
func (s *Server) PeakInFlight() int64 { return s.peak.Load() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	wait := s.cfg.Latency
	if s.cfg.Jitter > 0 {
		s.randMu.Lock()
		wait += time.Duration(s.cfg.Rand.Int64N(int64(s.cfg.Jitter)))
		s.randMu.Unlock()
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if r.Method != http.MethodPost {
		fail(w, http.StatusMethodNotAllowed, "POST only")
		return
	}
	switch r.URL.Path {
	case ChatPath:
		model, msgs, err := DecodeChat(body)
		if err != nil {
			fail(w, http.StatusBadRequest, err.Error())
			return
		}
		s.chat.Add(1)
		text := s.cfg.Reply(msgs)
		reply(w, map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]string{"role": "assistant", "content": text}}},
			"usage": map[string]int{"prompt_tokens": words(msgs), "completion_tokens": len(strings.Fields(text)),
				"total_tokens": words(msgs) + len(strings.Fields(text))},
		})
	case EmbedPath:
		model, inputs, err := DecodeEmbed(body)
		if err != nil {
			fail(w, http.StatusBadRequest, err.Error())
			return
		}
		s.embed.Add(1)
		data := make([]any, len(inputs))
		tokens := 0
		for i, in := range inputs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Vector(in, s.cfg.Dim)}
			tokens += len(strings.Fields(in))
		}
		reply(w, map[string]any{"object": "list", "model": model, "data": data,
			"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
	default:
		fail(w, http.StatusNotFound, "unknown path "+r.URL.Path)
	}
}

func words(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(strings.Fields(m.Content))
	}
	return n
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}})
}

// DecodeChat reads a chat completion request body.
func DecodeChat(body []byte) (model string, msgs []Message, err error) {
	var req struct {
		Model    string    `json:"model"`
		Messages []Message `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", nil, fmt.Errorf("%w: chat: %v", ErrRequest, err)
	}
	if len(req.Messages) == 0 {
		return "", nil, fmt.Errorf("%w: chat: no messages", ErrRequest)
	}
	return req.Model, req.Messages, nil
}

// DecodeEmbed reads an embeddings request body; "input" may be a string or a
// list of strings, as in the OpenAI API.
func DecodeEmbed(body []byte) (model string, inputs []string, err error) {
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", nil, fmt.Errorf("%w: embeddings: %v", ErrRequest, err)
	}
	var one string
	if err := json.Unmarshal(req.Input, &one); err == nil {
		return req.Model, []string{one}, nil
	}
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		return "", nil, fmt.Errorf("%w: embeddings: input is neither a string nor a list of strings", ErrRequest)
	}
	if len(inputs) == 0 {
		return "", nil, fmt.Errorf("%w: embeddings: empty input", ErrRequest)
	}
	return req.Model, inputs, nil
}

// Vector is the embedding of text: a unit vector of dimension dim drawn from
// a generator seeded by the text's hash, so equal texts get equal vectors
// and different texts nearly orthogonal ones (cosine about 1/sqrt(dim)),
// far below SAMem's 0.85 threshold: each distinct text is its own cluster.
func Vector(text string, dim int) []float32 {
	h := fnv.New64a()
	io.WriteString(h, text)
	r := rand.New(rand.NewPCG(h.Sum64(), 0x5eed))
	v := make([]float32, dim)
	var ss float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		ss += x * x
	}
	inv := 1 / math.Sqrt(ss)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}
