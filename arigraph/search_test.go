package arigraph

import (
	"context"
	"math"
	"slices"
	"testing"
)

func tr(s, r, o string) Triplet { return Triplet{s, r, o} }

// chain is a hand-built graph: a chain of entities where each edge shares
// exactly one entity with the next, plus an unrelated edge. Edges are
// inserted back to front so that when a vertex's two edges tie on
// similarity, the forward one (inserted earlier) wins.
//
//	alpha -r1- bravo -r2- charlie -r3- delta ; zulu -r9- yankee
func chain() *Graph {
	g := NewGraph()
	g.Add(
		tr("charlie", "r3", "delta"),
		tr("bravo", "r2", "charlie"),
		tr("alpha", "r1", "bravo"),
		tr("zulu", "r9", "yankee"),
	)
	return g
}

func TestSemanticSearchDepthWidth(t *testing.T) {
	g := chain()
	vec := newVectors(&bowEmbedder{dim: 4096})
	ab, bc, cd, zy := tr("alpha", "r1", "bravo"), tr("bravo", "r2", "charlie"), tr("charlie", "r3", "delta"), tr("zulu", "r9", "yankee")
	tests := []struct {
		q    string
		d, w int
		want []Triplet
	}{
		// depth 0: the query itself is not expanded.
		{"alpha", 0, 5, nil},
		// depth 1, width 1: only the query's best edge.
		{"alpha", 1, 1, []Triplet{ab}},
		// depth 2: bravo (distance 1) expands; charlie (distance 2) does not.
		{"alpha", 2, 1, []Triplet{ab, bc}},
		// depth 3: charlie expands too.
		{"alpha", 3, 1, []Triplet{ab, bc, cd}},
		// depth 4 adds nothing: delta's best edge is already found.
		{"alpha", 4, 1, []Triplet{ab, bc, cd}},
		// width 2 at depth 1: the query's two best edges; the second has no
		// word in common (similarity 0) and comes by graph order, as top-w does.
		{"alpha", 1, 2, []Triplet{ab, cd}},
		// the unrelated component stays apart at width 1.
		{"zulu", 3, 1, []Triplet{zy}},
	}
	for _, tc := range tests {
		got, err := semanticSearch(context.Background(), vec, g.Triplets(), tc.q, tc.d, tc.w)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("semanticSearch(%q, d=%d, w=%d) = %v, want %v", tc.q, tc.d, tc.w, got, tc.want)
		}
	}
}

func TestSemanticSearchWidthZeroAndEmpty(t *testing.T) {
	vec := newVectors(&bowEmbedder{dim: 64})
	if got, _ := semanticSearch(context.Background(), vec, chain().Triplets(), "alpha", 3, 0); len(got) != 0 {
		t.Errorf("w=0 gave %v", got)
	}
	if got, _ := semanticSearch(context.Background(), vec, nil, "alpha", 3, 3); len(got) != 0 {
		t.Errorf("empty graph gave %v", got)
	}
}

func TestVectorsCacheEmbedsOnce(t *testing.T) {
	e := &bowEmbedder{dim: 64}
	vec := newVectors(e)
	for range 3 {
		if _, err := vec.Get(context.Background(), []string{"a", "b", "a"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.calls.Load(); n != 1 {
		t.Errorf("Embed called %d times, want 1", n)
	}
}

func TestEpisodicRelevance(t *testing.T) {
	tests := []struct {
		n, total int
		want     float64
	}{
		{0, 0, 0},
		{1, 1, 0}, // log(1) = 0: a one-triplet observation scores nothing
		{2, 2, math.Log(2)},
		{1, 4, 0.25 * math.Log(4)},
		{3, 4, 0.75 * math.Log(4)},
		{0, 5, 0},
	}
	for _, tc := range tests {
		if got := episodicRelevance(tc.n, tc.total); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("episodicRelevance(%d, %d) = %v, want %v", tc.n, tc.total, got, tc.want)
		}
	}
}

func TestEpisodicSearch(t *testing.T) {
	g := NewGraph()
	a, b, c, d := tr("a", "r", "b"), tr("c", "r", "d"), tr("e", "r", "f"), tr("g", "r", "h")
	g.AddEpisode(0, "one triplet", []Triplet{a})                          // n=1 N=1 -> 0, dropped
	g.AddEpisode(1, "two of two", []Triplet{a, b})                        // n=2 N=2 -> log 2 = 0.693
	g.AddEpisode(2, "one of four", []Triplet{a, c, d, tr("x", "r", "y")}) // n=1 N=4 -> 0.347
	g.AddEpisode(3, "two of four", []Triplet{a, b, c, d})                 // n=2 N=4 -> 0.693
	g.AddEpisode(4, "none", []Triplet{c, d})                              // n=0 -> dropped
	got := g.EpisodicSearch([]Triplet{a, b}, 3)
	var steps []int
	for _, e := range got {
		steps = append(steps, e.Step)
	}
	// steps 1 and 3 tie at log 2; the more recent (3) comes first.
	if want := []int{3, 1, 2}; !slices.Equal(steps, want) {
		t.Errorf("EpisodicSearch order = %v, want %v", steps, want)
	}
	if math.Abs(got[0].Score-math.Log(2)) > 1e-12 || math.Abs(got[2].Score-0.25*math.Log(4)) > 1e-12 {
		t.Errorf("scores = %v, %v", got[0].Score, got[2].Score)
	}
	if got := g.EpisodicSearch([]Triplet{a, b}, 1); len(got) != 1 || got[0].Step != 3 {
		t.Errorf("top-1 = %+v", got)
	}
	if got := g.EpisodicSearch([]Triplet{a}, 0); got != nil {
		t.Errorf("k=0 gave %v", got)
	}
}

func TestSearchUnionsQueries(t *testing.T) {
	g := chain()
	g.AddEpisode(0, "alpha and bravo", []Triplet{tr("alpha", "r1", "bravo"), tr("bravo", "r2", "charlie")})
	g.AddEpisode(1, "zulu", []Triplet{tr("zulu", "r9", "yankee"), tr("charlie", "r3", "delta")})
	r, err := g.Search(context.Background(), newVectors(&bowEmbedder{dim: 4096}), []string{"alpha", "zulu"}, 1, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []Triplet{tr("alpha", "r1", "bravo"), tr("zulu", "r9", "yankee")}
	if !slices.Equal(r.Triplets, want) {
		t.Errorf("Search triplets = %v, want %v", r.Triplets, want)
	}
	if len(r.Episodes) != 2 {
		t.Errorf("Search episodes = %+v, want both (one matching triplet of two each)", r.Episodes)
	}
}
