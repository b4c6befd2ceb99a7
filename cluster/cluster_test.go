package cluster

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/samem/trainer/cluster/synth"
)

func stream(t testing.TB, dim int, seed uint64) *synth.Stream {
	t.Helper()
	st, err := synth.New(synth.Config{Dim: dim}, rand.New(rand.NewPCG(seed, 9)))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestNewConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Config{Dim: 8}, true},
		{"no dim", Config{}, false},
		{"negative dim", Config{Dim: -1}, false},
		{"threshold above 1", Config{Dim: 8, Threshold: 1.5}, false},
		{"threshold NaN", Config{Dim: 8, Threshold: float32(math.NaN())}, false},
		{"threshold 1", Config{Dim: 8, Threshold: 1}, true},
		{"M 1", Config{Dim: 8, M: 1}, false},
		{"fanout 1", Config{Dim: 8, Fanout: 1}, false},
		{"leaf size -1", Config{Dim: 8, LeafSize: -1}, false},
		{"graph off", Config{Dim: 8, Candidates: -1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if (err == nil) != tc.ok {
				t.Fatalf("New(%+v) error = %v, want ok %v", tc.cfg, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrConfig) {
				t.Errorf("error %v is not ErrConfig", err)
			}
		})
	}
}

func TestBadVectors(t *testing.T) {
	ix, err := New(Config{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for _, tc := range []struct {
		name string
		v    []float32
		want error
	}{
		{"short", []float32{1, 2, 3}, ErrDim},
		{"long", []float32{1, 2, 3, 4, 5}, ErrDim},
		{"nil", nil, ErrDim},
		{"zero", []float32{0, 0, 0, 0}, ErrVector},
		{"NaN", []float32{1, nan, 0, 0}, ErrVector},
		{"Inf", []float32{1, inf, 0, 0}, ErrVector},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, _, err := ix.Assign(tc.v, "x"); !errors.Is(err, tc.want) {
				t.Errorf("Assign(%v) error = %v, want %v", tc.v, err, tc.want)
			}
			if _, _, _, err := ix.Nearest(tc.v); !errors.Is(err, tc.want) {
				t.Errorf("Nearest(%v) error = %v, want %v", tc.v, err, tc.want)
			}
		})
	}
	if ix.Len() != 0 {
		t.Errorf("Len() = %d after rejected vectors, want 0", ix.Len())
	}
}

// TestAssignRule checks the paper's rule on hand-made vectors: join when the
// cosine exceeds the threshold (strictly), else create.
func TestAssignRule(t *testing.T) {
	ix, err := New(Config{Dim: 2, Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		v       []float32
		text    string
		wantID  int64
		created bool
	}{
		{[]float32{1, 0}, "a", 0, true},
		{[]float32{2, 0}, "a again", 0, false},                    // cosine 1
		{[]float32{0, 1}, "b", 1, true},                           // cosine 0
		{[]float32{0.5, float32(math.Sqrt(3)) / 2}, "", 1, false}, // 0.866 to b, 0.5 to a
		{[]float32{-1, 0}, "c", 2, true},
	}
	for i, s := range steps {
		id, created, _, err := ix.Assign(s.v, s.text)
		if err != nil {
			t.Fatal(err)
		}
		if id != s.wantID || created != s.created {
			t.Errorf("step %d: Assign(%v) = (%d, %v), want (%d, %v)", i, s.v, id, created, s.wantID, s.created)
		}
	}
	got, ok := ix.Get(0)
	if !ok || got.Text != "a" || got.Members != 2 || got.Vector[0] != 1 {
		t.Errorf("Get(0) = %+v, %v; want text a, 2 members, unit vector", got, ok)
	}
	// Exactly at the threshold is not "exceeds": a vector at 60 degrees from
	// a and 150 from c, and 30 from b... use a fresh index for clarity.
	ix2, _ := New(Config{Dim: 2, Threshold: 0.6})
	ix2.Assign([]float32{1, 0}, "")
	_, created, sim, _ := ix2.Assign([]float32{0.6, 0.8}, "")
	if !created || sim != 0.6 {
		t.Errorf("cosine equal to the threshold: created %v sim %v, want a new cluster at 0.6", created, sim)
	}
}

func TestRemoveAndNearest(t *testing.T) {
	const dim = 64
	st := stream(t, dim, 3)
	ix, err := New(Config{Dim: dim, LeafSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := NewExact(dim)
	var vs [][]float32
	for range 600 {
		v := st.Next()
		vs = append(vs, v)
		id, created, _, err := ix.Assign(v, "t")
		if err != nil {
			t.Fatal(err)
		}
		if created {
			ex.Add(id, v)
		}
	}
	n := ix.Len()
	// Remove every third cluster, then enough to force a compaction.
	for round, step := range []int{3, 2} {
		var drop []int64
		for _, c := range ix.Clusters() {
			if c.ID%int64(step) == 0 {
				drop = append(drop, c.ID)
			}
		}
		ix.Remove(drop...)
		ix.Remove(drop...) // removing twice is harmless
		ex.Remove(drop...)
		if ix.Len() != ex.Len() {
			t.Fatalf("round %d: Len() = %d, exact scan has %d", round, ix.Len(), ex.Len())
		}
		for _, id := range drop {
			if _, ok := ix.Get(id); ok {
				t.Fatalf("Get(%d) found a removed cluster", id)
			}
		}
		for i, v := range vs {
			wantID, wantSim, join, _ := ex.Decide(v, 0.85)
			id, sim, ok, err := ix.Nearest(v)
			if err != nil {
				t.Fatal(err)
			}
			if ok != join || (ok && (id != wantID || sim != wantSim)) {
				t.Fatalf("round %d, vector %d: Nearest = (%d, %v, %v), exact = (%d, %v, %v)", round, i, id, sim, ok, wantID, wantSim, join)
			}
		}
	}
	if ix.Len() >= n {
		t.Fatalf("Len() = %d, want fewer than %d", ix.Len(), n)
	}
	// New ids keep growing after removals.
	next := ix.NextID()
	id, created, _, err := ix.Assign(st.NextNew(), "new")
	if err != nil || !created || id != next {
		t.Errorf("Assign after removals = (%d, %v, %v), want a new cluster %d", id, created, err, next)
	}
}

func TestRestore(t *testing.T) {
	const dim = 48
	st := stream(t, dim, 4)
	ix, _ := New(Config{Dim: dim, FirstID: 10})
	for i := range 300 {
		if _, _, _, err := ix.Assign(st.Next(), string(rune('a'+i%26))); err != nil {
			t.Fatal(err)
		}
	}
	ix.Remove(10, 12)
	cs := ix.Clusters()
	if !slices.IsSortedFunc(cs, func(a, b Cluster) int { return cmpInt64(a.ID, b.ID) }) {
		t.Fatal("Clusters() not sorted by id")
	}
	rev := slices.Clone(cs)
	slices.Reverse(rev)
	re, err := Restore(Config{Dim: dim, FirstID: ix.NextID()}, rev)
	if err != nil {
		t.Fatal(err)
	}
	got := re.Clusters()
	if len(got) != len(cs) {
		t.Fatalf("restored %d clusters, want %d", len(got), len(cs))
	}
	for i := range cs {
		if got[i].ID != cs[i].ID || got[i].Text != cs[i].Text || got[i].Members != cs[i].Members || !slices.Equal(got[i].Vector, cs[i].Vector) {
			t.Fatalf("cluster %d: restored %+v, want %+v", i, got[i].ID, cs[i].ID)
		}
	}
	if re.NextID() != ix.NextID() {
		t.Errorf("NextID() = %d, want %d", re.NextID(), ix.NextID())
	}
	for range 200 {
		v := st.Next()
		a1, c1, s1, _ := ix.Assign(v, "")
		a2, c2, s2, _ := re.Assign(v, "")
		if a1 != a2 || c1 != c2 || (!c1 && s1 != s2) {
			t.Fatalf("after restore: Assign = (%d, %v, %v), original (%d, %v, %v)", a2, c2, s2, a1, c1, s1)
		}
	}
	// Clusters() hands out copies.
	cs[0].Vector[0] = 42
	if c, _ := ix.Get(cs[0].ID); c.Vector[0] == 42 {
		t.Error("Clusters() shares the stored vector")
	}
	for _, bad := range [][]Cluster{
		{{ID: 1, Members: 1, Vector: make([]float32, dim)}},                                    // zero vector
		{{ID: 1, Members: 0, Vector: cs[1].Vector}},                                            // no members
		{{ID: 1, Members: 1, Vector: cs[1].Vector[:3]}},                                        // wrong dim
		{{ID: 1, Members: 1, Vector: cs[1].Vector}, {ID: 1, Members: 1, Vector: cs[2].Vector}}, // duplicate
	} {
		if _, err := Restore(Config{Dim: dim}, bad); err == nil {
			t.Errorf("Restore(%v...) succeeded, want an error", bad[0].ID)
		}
	}
}

func TestAssignCopiesVector(t *testing.T) {
	ix, _ := New(Config{Dim: 3})
	v := []float32{1, 0, 0}
	ix.Assign(v, "")
	v[0], v[1] = 0, 1
	if c, _ := ix.Get(0); c.Vector[0] != 1 {
		t.Errorf("stored vector changed with the caller's slice: %v", c.Vector)
	}
}

// TestConcurrent runs Assign, Nearest and Remove from several goroutines;
// run with -race. Afterwards every stored cluster is still found exactly.
func TestConcurrent(t *testing.T) {
	const dim = 32
	ix, _ := New(Config{Dim: dim, LeafSize: 4})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := stream(t, dim, uint64(100+w))
			for i := range 150 {
				v := st.Next()
				if w%2 == 0 {
					ix.Assign(v, "")
				} else if _, _, _, err := ix.Nearest(v); err != nil {
					t.Error(err)
				}
				if i%50 == 49 {
					ix.Remove(int64(i))
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range ix.Clusters() {
		id, sim, ok, err := ix.Nearest(c.Vector)
		if err != nil || !ok || id != c.ID || sim < 0.999 {
			t.Fatalf("Nearest(vector of %d) = (%d, %v, %v, %v)", c.ID, id, sim, ok, err)
		}
	}
}

// TestDotMatchesGemv pins the assumption that makes decisions comparable bit
// for bit: one dot product equals the Gemv row the exact scan computes.
func TestDotMatchesGemv(t *testing.T) {
	const dim = 1024
	st := stream(t, dim, 5)
	ex, _ := NewExact(dim)
	var vs [][]float32
	for i := range 50 {
		v := st.Next()
		vs = append(vs, v)
		ex.Add(int64(i), v)
	}
	q := st.Next()
	qn, _ := Normalize(make([]float32, dim), q)
	_, _, _, _ = ex.Nearest(q)
	for i, v := range vs {
		vn, _ := Normalize(make([]float32, dim), v)
		if got, want := dot(qn, vn), ex.sims[i]; got != want {
			t.Fatalf("row %d: dot = %v, Gemv = %v", i, got, want)
		}
	}
}

func TestNormalizeIdempotent(t *testing.T) {
	st := stream(t, 256, 6)
	for range 100 {
		v := st.Next()
		for i := range v {
			v[i] *= 3.7
		}
		a, err := Normalize(make([]float32, len(v)), v)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Normalize(make([]float32, len(v)), a)
		if !slices.Equal(a, b) {
			t.Fatal("Normalize(Normalize(v)) != Normalize(v)")
		}
	}
}
