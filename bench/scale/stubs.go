package scale

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// stubEmbedder returns vectors registered in advance, instantly: the cost
// of a model's embedding call is outside the trainer's overhead.
type stubEmbedder struct {
	dim  int
	mu   sync.RWMutex
	vecs map[string][]float32
}

func newStubEmbedder(dim int) *stubEmbedder {
	return &stubEmbedder{dim: dim, vecs: map[string][]float32{}}
}

func (e *stubEmbedder) add(text string, v []float32) {
	e.mu.Lock()
	e.vecs[text] = v
	e.mu.Unlock()
}

func (e *stubEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e.vecs[t]
		if !ok {
			return nil, fmt.Errorf("stub embedder: no vector for %q", t)
		}
		out[i] = v
	}
	return out, nil
}

func (e *stubEmbedder) Model() string { return "bench-stub" }
func (e *stubEmbedder) Dim() int      { return e.dim }

// feed hands out prepared texts in order, to every session: the stub
// summariser and thinker return instantly, so what a step costs is the
// method's own work.
type feed struct {
	texts []string
	next  atomic.Int64
}

func (f *feed) take() string {
	i := f.next.Add(1) - 1
	return f.texts[int(i)%len(f.texts)]
}

type stubSummarizer struct{ f *feed }

func (s stubSummarizer) Begin(envbridge.Task, envbridge.Style) summarize.Session { return s }
func (s stubSummarizer) Summarize(context.Context, string, envbridge.Observation) (string, error) {
	return s.f.take(), nil
}

type stubThinker struct{ f *feed }

func (s stubThinker) Begin(envbridge.Task, envbridge.Style, *rand.Rand) thought.Session { return s }
func (s stubThinker) Think(_ context.Context, in thought.Input) (thought.Decision, error) {
	return thought.Decision{Thought: s.f.take(), Action: "advance", Matched: true}, nil
}
