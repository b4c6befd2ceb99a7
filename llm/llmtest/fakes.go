package llmtest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/samem/trainer/llm"
)

// ErrScriptExhausted is returned by Chatter.Chat when no scripted reply is
// left (the test is also marked failed).
var ErrScriptExhausted = errors.New("llmtest: no scripted reply left")

// Scripted is one scripted answer of a Chatter: the response text, or Err
// when it is not nil.
type Scripted struct {
	Text  string
	Usage llm.Usage
	Err   error
	// Reasoning, FinishReason and Structured are returned as they are in
	// the Response.
	Reasoning    string
	FinishReason string
	Structured   bool
}

// Chatter is a scripted llm.Chatter. It answers requests with its scripted
// replies in order, records every request (for assertions on the exact
// prompt), and marks the test failed when asked for more replies than it
// has. It is safe for concurrent use, though the order of replies is then
// the order in which calls arrive.
type Chatter struct {
	// Model is reported in every Response; default "llmtest-chat".
	Model string

	t      testing.TB
	mu     sync.Mutex
	script []Scripted
	next   int
	reqs   []llm.Request
}

// NewChatter returns a Chatter that answers with replies in order.
func NewChatter(t testing.TB, replies ...string) *Chatter {
	c := &Chatter{t: t, Model: "llmtest-chat"}
	for _, r := range replies {
		c.script = append(c.script, Scripted{Text: r})
	}
	return c
}

// Add appends scripted answers (use Err to script a failure).
func (c *Chatter) Add(s ...Scripted) {
	c.mu.Lock()
	c.script = append(c.script, s...)
	c.mu.Unlock()
}

// Chat returns the next scripted reply. Usage is the scripted one, or
// estimated with EstimateTokens when the script gives none.
func (c *Chatter) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	req.Messages = append([]llm.Message(nil), req.Messages...)
	c.reqs = append(c.reqs, req)
	if c.next >= len(c.script) {
		last := ""
		if n := len(req.Messages); n > 0 {
			last = req.Messages[n-1].Content
		}
		c.t.Errorf("llmtest.Chatter: request %d (purpose %q) but only %d replies scripted; last message: %.200q",
			len(c.reqs), req.Purpose, len(c.script), last)
		return llm.Response{}, ErrScriptExhausted
	}
	s := c.script[c.next]
	c.next++
	if s.Err != nil {
		return llm.Response{}, s.Err
	}
	u := s.Usage
	if u == (llm.Usage{}) {
		p := 0
		for _, m := range req.Messages {
			p += EstimateTokens(m.Content)
		}
		u = llm.Usage{PromptTokens: p, CompletionTokens: EstimateTokens(s.Text)}
	}
	return llm.Response{Text: s.Text, Model: c.Model, Usage: u, Reasoning: s.Reasoning, FinishReason: s.FinishReason, Structured: s.Structured}, nil
}

// Requests returns a copy of the requests received so far, in order.
func (c *Chatter) Requests() []llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]llm.Request(nil), c.reqs...)
}

// Remaining is the number of scripted replies not yet used.
func (c *Chatter) Remaining() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.script) - c.next
}

// ChatFunc is an llm.Chatter made from a function, for fakes that answer
// from the request (for example by looking at req.Purpose).
type ChatFunc func(ctx context.Context, req llm.Request) (llm.Response, error)

// Chat calls f.
func (f ChatFunc) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	return f(ctx, req)
}

// Embedder is a deterministic llm.Embedder that needs no server: text maps
// to Vector(text, Dim()). It counts calls, records the texts and can be
// told to fail.
type Embedder struct {
	dim   int
	mu    sync.Mutex
	calls int
	texts []string
	err   error
}

// NewEmbedder returns an Embedder of dimension dim (DefaultEmbedDim when
// dim <= 0).
func NewEmbedder(dim int) *Embedder {
	if dim <= 0 {
		dim = DefaultEmbedDim
	}
	return &Embedder{dim: dim}
}

// Embed returns Vector(text, Dim()) for each text, or the error set by
// FailWith.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.calls++
	e.texts = append(e.texts, texts...)
	err := e.err
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		out[i] = Vector(s, e.dim)
	}
	return out, nil
}

// Model is "llmtest-embed".
func (e *Embedder) Model() string { return "llmtest-embed" }

// Dim is the vector dimension.
func (e *Embedder) Dim() int { return e.dim }

// FailWith makes every later Embed return err (nil restores success).
func (e *Embedder) FailWith(err error) {
	e.mu.Lock()
	e.err = err
	e.mu.Unlock()
}

// Calls is the number of Embed calls so far.
func (e *Embedder) Calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

// Texts returns every text embedded so far, in order.
func (e *Embedder) Texts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.texts...)
}

var (
	_ llm.Chatter  = (*Chatter)(nil)
	_ llm.Chatter  = ChatFunc(nil)
	_ llm.Embedder = (*Embedder)(nil)
)
