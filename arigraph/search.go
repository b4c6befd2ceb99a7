package arigraph

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/samem/trainer/llm"
)

// retrieval defaults. Seed 000 names the hyperparameters (Algorithm 1:
// episodic count k, semantic depth d and width w) but its text gives no
// values. The authors' published pipeline runs with top-k episodic 2, a
// history of 5 previous steps, and graph association to depth 2 (depth 1 when
// collecting the edges for outdated-edge detection); the width is not stated
// anywhere we could read, so w = 6 is our choice, which keeps working memory
// to a few dozen triplets at depth 2.
const (
	defaultDepth    = 2 // d: BFS depth of the semantic search (Algorithm 2)
	defaultWidth    = 6 // w: triplets retrieved per query vertex (Algorithm 2); our choice
	defaultEpisodes = 2 // k: episodic vertices returned (Algorithm 1)
	defaultHistory  = 5 // recent (action, observation) pairs in working memory (Sec. 4.2)
)

// vectors embeds texts through an llm.Embedder and keeps every vector it has
// computed, so that a triplet is embedded once per process. It is safe for
// concurrent use.
type vectors struct {
	emb llm.Embedder
	mu  sync.Mutex
	m   map[string][]float32
}

// newVectors returns a cache over emb.
func newVectors(emb llm.Embedder) *vectors {
	return &vectors{emb: emb, m: map[string][]float32{}}
}

// Get returns the vectors of texts, embedding the ones not cached in one call.
func (v *vectors) Get(ctx context.Context, texts []string) ([][]float32, error) {
	v.mu.Lock()
	var missing []string
	seen := map[string]bool{}
	for _, t := range texts {
		if _, ok := v.m[t]; !ok && !seen[t] {
			seen[t] = true
			missing = append(missing, t)
		}
	}
	v.mu.Unlock()
	if len(missing) > 0 {
		vecs, err := v.emb.Embed(ctx, missing)
		if err != nil {
			return nil, fmt.Errorf("embed %d texts: %w", len(missing), err)
		}
		if len(vecs) != len(missing) {
			return nil, fmt.Errorf("embed %d texts: got %d vectors", len(missing), len(vecs))
		}
		v.mu.Lock()
		for i, t := range missing {
			v.m[t] = vecs[i]
		}
		v.mu.Unlock()
	}
	out := make([][]float32, len(texts))
	v.mu.Lock()
	for i, t := range texts {
		out[i] = v.m[t]
	}
	v.mu.Unlock()
	return out, nil
}

func dot(a, b []float32) float64 {
	n := min(len(a), len(b))
	var s float64
	for i := 0; i < n; i++ {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// embedAndRetrieve returns the w edges of es most similar to the query q by
// dot product of embeddings (seed 000 Appendix A), best first; ties keep the
// order of es. w <= 0 returns nothing.
func embedAndRetrieve(ctx context.Context, vec *vectors, es []Triplet, q string, w int) ([]Triplet, error) {
	if w <= 0 || len(es) == 0 {
		return nil, nil
	}
	texts := make([]string, 0, len(es)+1)
	texts = append(texts, q)
	for _, e := range es {
		texts = append(texts, e.String())
	}
	vs, err := vec.Get(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("retrieve for %q: %w", q, err)
	}
	type scored struct {
		i int
		s float64
	}
	sc := make([]scored, len(es))
	for i := range es {
		sc[i] = scored{i, dot(vs[0], vs[i+1])}
	}
	slices.SortStableFunc(sc, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
	out := make([]Triplet, 0, min(w, len(sc)))
	for _, s := range sc[:min(w, len(sc))] {
		out = append(out, es[s.i])
	}
	return out, nil
}

// semanticSearch is Algorithm 2 of seed 000: a breadth-first search from the
// query q in which each dequeued query (q itself at distance 0, then the
// vertices incident to retrieved edges) retrieves its w most similar edges,
// and vertices are expanded only while their distance is below d. It returns
// the union of retrieved edges in the order first retrieved.
//
// The paper enqueues a vertex when it is "not in L" (the queue); we skip any
// vertex already enqueued once, which returns the same edges (a vertex's
// retrieval does not depend on its distance) without repeating work.
func semanticSearch(ctx context.Context, vec *vectors, es []Triplet, q string, d, w int) ([]Triplet, error) {
	type item struct {
		q    string
		dist int
	}
	queue := []item{{q, 0}}
	enqueued := map[string]bool{q: true}
	got := map[Triplet]bool{}
	var out []Triplet
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur.dist >= d {
			continue
		}
		found, err := embedAndRetrieve(ctx, vec, es, cur.q, w)
		if err != nil {
			return nil, err
		}
		for _, e := range found {
			for _, v := range []string{e.Subject, e.Object} {
				if !enqueued[v] {
					enqueued[v] = true
					queue = append(queue, item{v, cur.dist + 1})
				}
			}
			if !got[e] {
				got[e] = true
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// scoredEpisode is an episodic vertex with its relevance (Eq. 1).
type scoredEpisode struct {
	Episode
	Index int     // position in the graph's episode list
	Score float64 // rel(v_e) of seed 000 Eq. 1
}

// episodicRelevance is Eq. 1 of seed 000: n / max(N, 1) * log(max(N, 1)),
// where n counts the input triplets on the episodic edge and N all triplets
// on it. The log factor gives 0 to observations with a single triplet.
func episodicRelevance(n, total int) float64 {
	m := float64(max(total, 1))
	return float64(n) / m * math.Log(m)
}

// EpisodicSearch scores every episodic vertex of g against the input
// triplets by Eq. 1 and returns the k best with a positive score, best
// first; equal scores put the more recent observation first.
func (g *Graph) EpisodicSearch(input []Triplet, k int) []scoredEpisode {
	if k <= 0 {
		return nil
	}
	in := map[Triplet]bool{}
	for _, t := range input {
		in[t.Norm()] = true
	}
	var sc []scoredEpisode
	for i, e := range g.episodes {
		n := 0
		for _, t := range e.Triplets {
			if in[t] {
				n++
			}
		}
		s := episodicRelevance(n, len(e.Triplets))
		if s > 0 {
			sc = append(sc, scoredEpisode{Episode: e, Index: i, Score: s})
		}
	}
	slices.SortStableFunc(sc, func(a, b scoredEpisode) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.Index, a.Index)
	})
	return sc[:min(k, len(sc))]
}

// retrieval is the result of Algorithm 1.
type retrieval struct {
	Triplets []Triplet
	Episodes []scoredEpisode
}

// Search is Algorithm 1 of seed 000: a semantic search per query, their
// union, then the episodic search over that union.
func (g *Graph) Search(ctx context.Context, vec *vectors, queries []string, d, w, k int) (retrieval, error) {
	got := map[Triplet]bool{}
	var all []Triplet
	for _, q := range queries {
		ts, err := semanticSearch(ctx, vec, g.edges, q, d, w)
		if err != nil {
			return retrieval{}, err
		}
		for _, t := range ts {
			if !got[t] {
				got[t] = true
				all = append(all, t)
			}
		}
	}
	return retrieval{Triplets: all, Episodes: g.EpisodicSearch(all, k)}, nil
}
