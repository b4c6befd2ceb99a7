// Package memstream is the Generative Agents memory stream (seed 001 Sec.
// 4.1-4.2), AriGraph's RAG baseline (seed 000 Sec. 4.2): memory objects with
// creation and last-access times, retrieval by recency, importance and
// relevance (each min-max normalised, weighted, summed), and reflection when
// the summed importance of recent memories passes a threshold. The agent
// built on it (method.go) is the Ariadne agent with its graph replaced by the
// stream, as in seed 000 Sec. 4.2.
package memstream

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/samem/trainer/llm"
)

// Defaults of seed 001 Sec. 4.1-4.2 and seed 000 Sec. 4.2.
const (
	defaultDecay     = 0.995 // recency decay per step (seed 001 Sec. 4.1: per game hour; our clock is agent steps)
	defaultThreshold = 150   // summed importance that triggers reflection (Sec. 4.2)
	defaultK         = 5     // retrieved memories in working memory (seed 000 Sec. 4.2)
	defaultRecent    = 100   // recent records shown when asking reflection questions (Sec. 4.2)
	defaultQuestions = 3     // reflection questions (Sec. 4.2)
	DefaultInsights  = 5     // insights per reflection (Sec. 4.2)
)

// Kinds of memory.
const (
	KindObservation = "observation"
	KindReflection  = "reflection"
)

// Memory is one memory object (seed 001 Sec. 4.1).
type Memory struct {
	ID         int     `parquet:"id"`
	Kind       string  `parquet:"kind,dict"`
	Text       string  `parquet:"text,zstd"`
	Task       string  `parquet:"task,dict"`   // the task (environment instance) it was observed in
	Created    int     `parquet:"created"`     // step of creation
	LastAccess int     `parquet:"last_access"` // step of the last retrieval
	Importance float64 `parquet:"importance"`  // 1..10
	Evidence   []int   `parquet:"evidence,list"`
}

// Weights of the retrieval score; seed 001 Sec. 4.1 sets all three to 1.
type Weights struct {
	Recency    float64 `json:"recency"`
	Importance float64 `json:"importance"`
	Relevance  float64 `json:"relevance"`
}

// paperWeights are seed 001's weights.
var paperWeights = Weights{1, 1, 1}

// stream is a memory stream. It is not safe for concurrent use.
type stream struct {
	mems []Memory
	vecs map[string][]float32
	// sinceReflect sums the importance of memories added since the last reflection.
	sinceReflect float64
}

// newStream returns an empty stream.
func newStream() *stream { return &stream{vecs: map[string][]float32{}} }

// Memories returns a copy of the memories in creation order.
func (s *stream) Memories() []Memory {
	out := make([]Memory, len(s.mems))
	for i, m := range s.mems {
		m.Evidence = slices.Clone(m.Evidence)
		out[i] = m
	}
	return out
}

// Len is the number of memories.
func (s *stream) Len() int { return len(s.mems) }

// Add appends a memory created at step now and returns its ID.
func (s *stream) Add(kind, text, task string, now int, importance float64, evidence []int) int {
	id := len(s.mems)
	if n := len(s.mems); n > 0 {
		id = s.mems[n-1].ID + 1
	}
	importance = math.Max(1, math.Min(10, importance))
	s.mems = append(s.mems, Memory{ID: id, Kind: kind, Text: text, Task: task, Created: now, LastAccess: now, Importance: importance, Evidence: slices.Clone(evidence)})
	if kind == KindObservation {
		s.sinceReflect += importance
	}
	return id
}

// ShouldReflect reports whether the importance summed since the last
// reflection exceeds threshold (seed 001 Sec. 4.2).
func (s *stream) ShouldReflect(threshold float64) bool { return s.sinceReflect > threshold }

// Reflected resets the importance sum.
func (s *stream) Reflected() { s.sinceReflect = 0 }

// Scored is a memory with its retrieval score and components.
type Scored struct {
	Memory
	Score, Recency, Importance, Relevance float64
}

// minmax scales xs to [0, 1] in place (seed 001 Sec. 4.1). When all values
// are equal they carry no ranking information and all become 0, leaving the
// other components in charge.
func minmax(xs []float64) {
	if len(xs) == 0 {
		return
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	for i := range xs {
		if hi > lo {
			xs[i] = (xs[i] - lo) / (hi - lo)
		} else {
			xs[i] = 0
		}
	}
}

func (s *stream) embed(ctx context.Context, emb llm.Embedder, texts []string) error {
	var miss []string
	for _, t := range texts {
		if _, ok := s.vecs[t]; !ok && !slices.Contains(miss, t) {
			miss = append(miss, t)
		}
	}
	if len(miss) == 0 {
		return nil
	}
	vs, err := emb.Embed(ctx, miss)
	if err != nil {
		return fmt.Errorf("embed %d memories: %w", len(miss), err)
	}
	if len(vs) != len(miss) {
		return fmt.Errorf("embed %d memories: got %d vectors", len(miss), len(vs))
	}
	for i, t := range miss {
		s.vecs[t] = vs[i]
	}
	return nil
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range min(len(a), len(b)) {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

// Score computes the retrieval scores of the memories selected by keep (nil
// keeps all) for query at step now (seed 001 Sec. 4.1): recency
// decay^(now - last access), importance, and cosine relevance, each
// min-max normalised over the candidates, weighted and summed. Best first;
// ties prefer the newer memory.
func (s *stream) Score(ctx context.Context, emb llm.Embedder, query string, now int, decay float64, w Weights, keep func(Memory) bool) ([]Scored, error) {
	var cand []Scored
	texts := []string{query}
	for _, m := range s.mems {
		if keep == nil || keep(m) {
			cand = append(cand, Scored{Memory: m})
			texts = append(texts, m.Text)
		}
	}
	if len(cand) == 0 {
		return nil, nil
	}
	if err := s.embed(ctx, emb, texts); err != nil {
		return nil, err
	}
	q := s.vecs[query]
	rec := make([]float64, len(cand))
	imp := make([]float64, len(cand))
	rel := make([]float64, len(cand))
	for i, c := range cand {
		rec[i] = math.Pow(decay, float64(max(0, now-c.LastAccess)))
		imp[i] = c.Memory.Importance
		rel[i] = cosine(q, s.vecs[c.Text])
	}
	minmax(rec)
	minmax(imp)
	minmax(rel)
	for i := range cand {
		cand[i].Recency, cand[i].Importance, cand[i].Relevance = rec[i], imp[i], rel[i]
		cand[i].Score = w.Recency*rec[i] + w.Importance*imp[i] + w.Relevance*rel[i]
	}
	slices.SortStableFunc(cand, func(a, b Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return cand, nil
}

// Retrieve returns the k best memories for query and marks them accessed at now.
func (s *stream) Retrieve(ctx context.Context, emb llm.Embedder, query string, now, k int, decay float64, w Weights, keep func(Memory) bool) ([]Scored, error) {
	sc, err := s.Score(ctx, emb, query, now, decay, w, keep)
	if err != nil {
		return nil, err
	}
	sc = sc[:min(k, len(sc))]
	idx := map[int]int{}
	for i, m := range s.mems {
		idx[m.ID] = i
	}
	for _, m := range sc {
		s.mems[idx[m.ID]].LastAccess = now
	}
	return sc, nil
}

// Recent returns the n most recently created memories, oldest first.
func (s *stream) Recent(n int) []Memory {
	return s.Memories()[max(0, len(s.mems)-n):]
}
