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
	"math"
	"slices"

	"github.com/samem/trainer/llm"
)

// Defaults of seed 001 Sec. 4.1-4.2 and seed 000 Sec. 4.2.
const (
	DefaultDecay     = 0.995 // recency decay per step (seed 001 Sec. 4.1: per game hour; our clock is agent steps)
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

// PaperWeights are seed 001's weights.
var PaperWeights = Weights{1, 1, 1}

// Stream is a memory stream. It is not safe for concurrent use; a copy
// (Copy) may be used concurrently with its original.
type Stream struct {
	// mems are the memories in creation order; their LastAccess is last[i]
	// (mems may be shared read-only with copies, last is each stream's own).
	mems []Memory
	last []int
	// sinceReflect sums the importance of memories added since the last reflection.
	sinceReflect float64
	// ix holds each distinct memory text's vector and what bounds its
	// relevance, for Retrieve (index.go).
	ix index
}

// NewStream returns an empty stream.
func NewStream() *Stream { return &Stream{} }

// restoreStream returns a stream of mems (in creation order, with their
// access times) as a checkpoint saved it.
func restoreStream(mems []Memory, sinceReflect float64) *Stream {
	s := &Stream{sinceReflect: sinceReflect}
	for _, m := range mems {
		s.append(m)
	}
	return s
}

// Copy returns a stream with the same memories that changes apart from s
// (an evaluation episode's private stream). It shares s's memories and
// embeddings read-only, so it costs a few bytes per memory, not a second
// embedding of every text.
func (s *Stream) Copy() *Stream {
	return &Stream{mems: slices.Clip(s.mems), last: slices.Clone(s.last), sinceReflect: s.sinceReflect, ix: s.ix.copy()}
}

// memory returns memory i with its access time.
func (s *Stream) memory(i int) Memory {
	m := s.mems[i]
	m.LastAccess = s.last[i]
	m.Evidence = slices.Clone(m.Evidence)
	return m
}

// Memories returns a copy of the memories in creation order.
func (s *Stream) Memories() []Memory {
	out := make([]Memory, len(s.mems))
	for i := range s.mems {
		out[i] = s.memory(i)
	}
	return out
}

// Len is the number of memories.
func (s *Stream) Len() int { return len(s.mems) }

// Add appends a memory created at step now and returns its ID.
func (s *Stream) Add(kind, text, task string, now int, importance float64, evidence []int) int {
	id := len(s.mems)
	if n := len(s.mems); n > 0 {
		id = s.mems[n-1].ID + 1
	}
	importance = math.Max(1, math.Min(10, importance))
	s.append(Memory{ID: id, Kind: kind, Text: text, Task: task, Created: now, LastAccess: now, Importance: importance, Evidence: slices.Clone(evidence)})
	if kind == KindObservation {
		s.sinceReflect += importance
	}
	return id
}

// append adds m as the newest memory.
func (s *Stream) append(m Memory) {
	s.mems = append(s.mems, m)
	s.last = append(s.last, m.LastAccess)
	s.ix.added(m)
}

// ShouldReflect reports whether the importance summed since the last
// reflection exceeds threshold (seed 001 Sec. 4.2).
func (s *Stream) ShouldReflect(threshold float64) bool { return s.sinceReflect > threshold }

// Reflected resets the importance sum.
func (s *Stream) Reflected() { s.sinceReflect = 0 }

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
// ties prefer the newer memory. It scores every candidate: it is the
// definition Retrieve's bounded search is held equal to
// (TestRetrieveEqualsScan).
func (s *Stream) Score(ctx context.Context, emb llm.Embedder, query string, now int, decay float64, w Weights, keep func(Memory) bool) ([]Scored, error) {
	if err := s.embed(ctx, emb, query); err != nil {
		return nil, err
	}
	var cand []Scored
	var rows []int32
	for i := range s.mems {
		if m := s.memory(i); keep == nil || keep(m) {
			cand = append(cand, Scored{Memory: m})
			rows = append(rows, s.ix.tid[i])
		}
	}
	if len(cand) == 0 {
		return nil, nil
	}
	q := s.ix.queryVec(query)
	rec := make([]float64, len(cand))
	imp := make([]float64, len(cand))
	rel := make([]float64, len(cand))
	for i, c := range cand {
		rec[i] = math.Pow(decay, float64(max(0, now-c.LastAccess)))
		imp[i] = c.Memory.Importance
		rel[i] = cosine(q, s.ix.raw(rows[i]))
	}
	minmax(rec)
	minmax(imp)
	minmax(rel)
	for i := range cand {
		cand[i].Recency, cand[i].Importance, cand[i].Relevance = rec[i], imp[i], rel[i]
		cand[i].Score = w.Recency*rec[i] + w.Importance*imp[i] + w.Relevance*rel[i]
	}
	slices.SortStableFunc(cand, byScore)
	return cand, nil
}

// byScore orders scored memories best first, the newer first on a tie.
func byScore(a, b Scored) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}

// Retrieve returns the k best memories for query and marks them accessed
// at now: the first k of Score, found without scoring every memory when
// keep is nil (index.go: bounds rule most memories out, and the rest are
// scored exactly as Score scores them).
func (s *Stream) Retrieve(ctx context.Context, emb llm.Embedder, query string, now, k int, decay float64, w Weights, keep func(Memory) bool) ([]Scored, error) {
	var sc []Scored
	var err error
	if keep == nil {
		sc, err = s.top(ctx, emb, query, now, k, decay, w)
		if checkTop != nil && err == nil {
			all, err := s.Score(ctx, emb, query, now, decay, w, nil)
			checkTop(sc, all[:min(k, len(all))], len(s.mems), err)
		}
	} else {
		sc, err = s.Score(ctx, emb, query, now, decay, w, keep)
		sc = sc[:min(k, len(sc))]
	}
	if err != nil {
		return nil, err
	}
	for _, m := range sc {
		s.touch(m.ID, now)
	}
	return sc, nil
}

// checkTop, when set (by tests), is given every result of the bounded
// search beside the first k of Score for the same query, with the number
// of memories searched.
var checkTop func(got, want []Scored, memories int, err error)

// touch marks the memory with id accessed at now.
func (s *Stream) touch(id, now int) {
	i, ok := slices.BinarySearchFunc(s.mems, id, func(m Memory, id int) int { return cmp.Compare(m.ID, id) })
	if ok {
		s.last[i] = now
		s.ix.accessed(i, s.last)
	}
}

// Recent returns the n most recently created memories, oldest first.
func (s *Stream) Recent(n int) []Memory {
	out := make([]Memory, 0, min(n, len(s.mems)))
	for i := max(0, len(s.mems)-n); i < len(s.mems); i++ {
		out = append(out, s.memory(i))
	}
	return out
}
