package cluster

import (
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/samem/trainer/cluster/synth"
)

var streamSeed = flag.Uint64("stream-seed", 20261122, "seed of the synthetic embedding stream in TestAssignMatchesExact")

// TestAssignMatchesExact feeds 10,000 realistic vectors (2,000 under
// -short; package synth: clusters in topics in domains, about a third of
// them new) through Assign and through an exact scan, and requires every
// join-or-new decision, the joined cluster and its similarity to be the
// same, with and without the HNSW candidate stage (decisions must not
// depend on it: the bounds prove them). The index with the graph takes the
// first graphN vectors only, to keep the test quick under -race. Each index
// is saved and loaded through its image half-way (the decisions after the
// load are checked as before).
func TestAssignMatchesExact(t *testing.T) {
	n, graphN := 10000, 5000
	if testing.Short() {
		// The same property over the stream's first 2,000 vectors.
		n, graphN = 2000, 1000
	}
	seed := *streamSeed
	t.Logf("stream seed %d (replay with -stream-seed)", seed)
	st, err := synth.New(synth.Config{}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"graph", "lists only"}
	cfgs := []Config{{Dim: 1024}, {Dim: 1024, Candidates: -1}}
	// Each index goes through a save/load cycle (its image written and
	// read back) half-way through its vectors.
	reloadAt := []int{graphN / 2, n / 2}
	var ixs []*Index
	for _, cfg := range cfgs {
		ix, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ixs = append(ixs, ix)
	}
	ex, err := NewExact(1024)
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	for i := range n {
		v := st.Next()
		wantID, wantSim, join, err := ex.Decide(v, 0.85)
		if err != nil {
			t.Fatal(err)
		}
		for k, ix := range ixs {
			if k == 0 && i >= graphN {
				continue
			}
			if i == reloadAt[k] {
				re := reload(t, ix, cfgs[k])
				sameLists(t, ix, re)
				ixs[k], ix = re, re
			}
			id, isNew, sim, err := ix.Assign(v, "")
			if err != nil {
				t.Fatal(err)
			}
			if isNew == join || (join && (id != wantID || sim != wantSim)) || (isNew && id != ex.nextIDFor()) {
				t.Fatalf("%s, vector %d: Assign = (id %d, new %v, sim %v), exact scan = (id %d, join %v, sim %v)", names[k], i, id, isNew, sim, wantID, join, wantSim)
			}
		}
		if !join {
			created++
			if err := ex.Add(ex.nextIDFor(), v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if created < n/5 || created > n/2 {
		t.Errorf("%d of %d vectors new; the stream is meant to have about 35 %%", created, n)
	}
	t.Logf("%d vectors, %d new (%.1f %%)", n, created, 100*float64(created)/float64(n))
}

// nextIDFor is the id Index gives the next new cluster when ids start at 0
// and nothing is removed: the number of clusters so far.
func (e *Exact) nextIDFor() int64 { return int64(len(e.ids)) }
