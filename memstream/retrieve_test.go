package memstream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/samem/trainer/llm/offline"
)

// compared counts the comparisons compareTop made: All of them, and
// Large those on a stream of at least scanBelow memories, where Retrieve
// searches with its bounds instead of scanning.
type compared struct{ All, Large atomic.Int64 }

// compareTop makes every Retrieve of the test compare its bounded search
// with the first k of Score for the same query (checkTop), exactly:
// memories, order and every score component, bit for bit. It returns the
// number of comparisons made.
func compareTop(t *testing.T) *compared {
	t.Helper()
	var n compared
	var bad atomic.Int64
	checkTop = func(got, want []Scored, memories int, err error) {
		n.All.Add(1)
		if memories >= scanBelow {
			n.Large.Add(1)
		}
		if err != nil {
			t.Errorf("Score: %v", err)
			return
		}
		if !reflect.DeepEqual(got, want) && bad.Add(1) <= 3 {
			t.Errorf("bounded search differs from the scan:\n got %s\nwant %s", describe(got), describe(want))
		}
	}
	t.Cleanup(func() { checkTop = nil })
	return &n
}

func describe(sc []Scored) string {
	s := ""
	for _, x := range sc {
		s += fmt.Sprintf("[%d %q %.17g = %.17g %.17g %.17g] ", x.ID, x.Text, x.Score, x.Recency, x.Importance, x.Relevance)
	}
	return s
}

// vecEmbedder gives each text a vector from a function of the text.
type vecEmbedder struct {
	dim int
	vec func(text string) []float32
}

func (v vecEmbedder) Model() string { return "test-vectors" }
func (v vecEmbedder) Dim() int      { return v.dim }
func (v vecEmbedder) Embed(_ context.Context, ts []string) ([][]float32, error) {
	out := make([][]float32, len(ts))
	for i, t := range ts {
		out[i] = v.vec(t)
	}
	return out, nil
}

// seeded returns a vector drawn from a source seeded by the text.
func seeded(text string, dim int, f func(r *rand.Rand, i int) float32) []float32 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(text); i++ {
		h = (h ^ uint64(text[i])) * 1099511628211
	}
	r := rand.New(rand.NewPCG(h, 7))
	v := make([]float32, dim)
	for i := range v {
		v[i] = f(r, i)
	}
	return v
}

// householdText is an observation of the kind the household world prints.
func householdText(r *rand.Rand) string {
	objs := []string{"apple", "mug", "knife", "plate", "soapbar", "cd", "pen", "book", "lettuce", "tomato", "spoon", "bowl"}
	recs := []string{"countertop", "cabinet", "drawer", "fridge", "shelf", "sinkbasin", "microwave", "desk", "bed", "garbagecan"}
	switch r.IntN(5) {
	case 0:
		return "Nothing happens."
	case 1:
		return fmt.Sprintf("You pick up the %s %d from the %s %d.", objs[r.IntN(len(objs))], 1+r.IntN(3), recs[r.IntN(len(recs))], 1+r.IntN(4))
	case 2:
		return fmt.Sprintf("The %s %d is closed.", recs[r.IntN(len(recs))], 1+r.IntN(4))
	}
	s := fmt.Sprintf("You arrive at loc %d. On the %s %d, you see", r.IntN(40), recs[r.IntN(len(recs))], 1+r.IntN(4))
	for j := range 1 + r.IntN(4) {
		if j > 0 {
			s += ","
		}
		s += fmt.Sprintf(" a %s %d", objs[r.IntN(len(objs))], 1+r.IntN(3))
	}
	return s + "."
}

// TestRetrieveEqualsScan: on streams of every kind of vector (hashed
// household text, random directions, a few tight clusters with exact
// duplicates and a zero vector), with integer and fractional importance,
// shared access times, and weights that favour each component (one
// negative), every Retrieve returns exactly the first k of Score, while
// memories are added and retrieved, as the method does; and most searches
// score a small part of the stream exactly.
func TestRetrieveEqualsScan(t *testing.T) {
	n := compareTop(t)
	centres := make([][]float32, 4)
	for i := range centres {
		centres[i] = seeded(fmt.Sprint("centre", i), 24, func(r *rand.Rand, _ int) float32 { return float32(r.NormFloat64()) })
	}
	embedders := map[string]vecEmbedder{
		"hashed": {1024, func(t string) []float32 { v := make([]float32, 1024); offline.New(1024).EmbedTo(v, t); return v }},
		"random": {48, func(t string) []float32 {
			return seeded(t, 48, func(r *rand.Rand, _ int) float32 { return float32(r.NormFloat64()) })
		}},
		"clustered": {24, func(t string) []float32 {
			if t == "Nothing happens." {
				return make([]float32, 24) // a zero vector: relevance 0
			}
			c := centres[len(t)%len(centres)]
			return seeded(t[:min(len(t), 20)], 24, func(r *rand.Rand, i int) float32 { return c[i] + 0.05*float32(r.NormFloat64()) })
		}},
	}
	weights := []Weights{PaperWeights, {Recency: 1}, {Relevance: 1}, {Importance: 1}, {0.5, 2, 1}, {1, 1, -1}}
	// 1,500 memories per case; -short keeps every case at 500 (still
	// several times scanBelow, so most searches are bounded), and the
	// full tier (make test) runs the 1,500.
	steps := 1500
	if testing.Short() {
		steps = 500
	}
	for name, emb := range embedders {
		for wi, w := range weights {
			t.Run(fmt.Sprintf("%s/weights%d", name, wi), func(t *testing.T) {
				ctx := context.Background()
				r := rand.New(rand.NewPCG(uint64(wi), 3))
				s := NewStream()
				now, bounded, searches := 0, 0, 0
				for step := range steps {
					imp := float64(1 + r.IntN(10))
					if wi%2 == 1 {
						imp = 1 + 9*r.Float64()
					}
					s.Add(KindObservation, householdText(r), "t", now, imp, nil)
					if r.IntN(4) > 0 {
						now++ // some memories share a step
					}
					if step%7 != 0 {
						continue
					}
					k := []int{1, 5, 10}[r.IntN(3)]
					q := householdText(r)
					if r.IntN(3) == 0 {
						q = s.mems[r.IntN(len(s.mems))].Text // a query equal to a memory's text
					}
					if _, err := s.Retrieve(ctx, emb, q, now, k, DefaultDecay, w, nil); err != nil {
						t.Fatal(err)
					}
					searches++
					if s.ix.sc.scored > 0 {
						bounded++
					}
				}
				if bounded < searches/2 {
					t.Errorf("%d of %d searches were bounded, want most", bounded, searches)
				}
			})
		}
	}
	if n.All.Load() == 0 {
		t.Fatal("no retrieval was compared")
	}
}

// TestCopyIsApart: a copy's memories and access times change apart from
// its original's, both ways, and retrievals on each equal their scans.
func TestCopyIsApart(t *testing.T) {
	compareTop(t)
	ctx := context.Background()
	emb := offline.New(128)
	r := rand.New(rand.NewPCG(4, 4))
	s := NewStream()
	for i := range 200 {
		s.Add(KindObservation, householdText(r), "t", i, float64(1+r.IntN(10)), nil)
	}
	if _, err := s.Retrieve(ctx, emb, "You arrive at loc 3.", 200, 5, DefaultDecay, PaperWeights, nil); err != nil {
		t.Fatal(err)
	}
	before := s.Memories()
	c := s.Copy()
	for i := range 50 {
		c.Add(KindObservation, fmt.Sprintf("copy only %d %s", i, householdText(r)), "e", 200+i, 5, nil)
		if _, err := c.Retrieve(ctx, emb, householdText(r), 200+i, 5, DefaultDecay, PaperWeights, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(s.Memories(), before) {
		t.Error("the copy's additions and accesses changed the original")
	}
	for i := range 50 {
		s.Add(KindObservation, fmt.Sprintf("original only %d", i), "t", 200+i, 5, nil)
		if _, err := s.Retrieve(ctx, emb, householdText(r), 200+i, 5, DefaultDecay, PaperWeights, nil); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 250 || s.Len() != 250 || c.mems[249].Text == s.mems[249].Text {
		t.Errorf("lengths %d and %d, last texts %q and %q: want 250 each, apart", c.Len(), s.Len(), c.mems[249].Text, s.mems[249].Text)
	}
}
