package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/samem/trainer/cluster/synth"
)

// benchStore returns n cluster representatives and 256 queries (about a
// third new) from the realistic stream, dimension 1024.
func benchStore(b *testing.B, n int) ([]Cluster, [][]float32) {
	b.Helper()
	st, err := synth.New(synth.Config{}, rand.New(rand.NewPCG(1, uint64(n))))
	if err != nil {
		b.Fatal(err)
	}
	cs := make([]Cluster, n)
	for i := range cs {
		cs[i] = Cluster{ID: int64(i), Members: 1, Vector: st.NextNew()}
	}
	qs := make([][]float32, 256)
	for i := range qs {
		qs[i] = st.Next()
	}
	return cs, qs
}

// BenchmarkNearest times one exact join-or-new decision of the index, with
// and without the HNSW candidate stage, beside the exact Gemv scan on the
// same store (the baseline). go run ./bench/cluster prints medians at
// 100,000 stored vectors.
func BenchmarkNearest(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		cs, qs := benchStore(b, n)
		for _, tc := range []struct {
			name string
			cand int
		}{{"graph", 0}, {"lists", -1}} {
			b.Run(fmt.Sprintf("n=%d/%s", n, tc.name), func(b *testing.B) {
				ix, err := Restore(Config{Dim: 1024, Candidates: tc.cand}, cs)
				if err != nil {
					b.Fatal(err)
				}
				// Work counts per decision, measured outside the timed loop:
				// pivots scanned, rows given a 4-bit code product, rows given an
				// exact float32 product.
				sc := ix.scratch.Get().(*scratch)
				var codeDots, rowDots int
				for _, q := range qs {
					u, _ := Normalize(make([]float32, len(q)), q)
					ix.search(sc, u)
					codeDots += sc.codeDots
					rowDots += sc.rowDots
				}
				for i := 0; b.Loop(); i++ {
					if _, _, _, err := ix.Nearest(qs[i%len(qs)]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(sc.dots), "pivots/op")
				b.ReportMetric(float64(codeDots)/float64(len(qs)), "coderows/op")
				b.ReportMetric(float64(rowDots)/float64(len(qs)), "exactrows/op")
			})
		}
		b.Run(fmt.Sprintf("n=%d/exact", n), func(b *testing.B) {
			ex, _ := NewExact(1024)
			for _, c := range cs {
				ex.Add(c.ID, c.Vector)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, _, _, err := ex.Decide(qs[i%len(qs)], 0.85); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAssignNew times Assign of vectors that found new clusters
// (decision and insertion) into a store of n.
func BenchmarkAssignNew(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		cs, _ := benchStore(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			ix, err := Restore(Config{Dim: 1024}, cs)
			if err != nil {
				b.Fatal(err)
			}
			st, _ := synth.New(synth.Config{}, rand.New(rand.NewPCG(2, 2)))
			b.ResetTimer()
			for b.Loop() {
				if _, _, _, err := ix.Assign(st.NextNew(), ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRestore times a bulk build of n clusters (codes, lists, graph):
// SAMem's load of a checkpoint without index files rebuilds two indexes of
// 10,000 (target: 1.5 s for the whole load).
func BenchmarkRestore(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		cs, _ := benchStore(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Restore(Config{Dim: 1024}, cs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRestoreImage times RestoreImage of n clusters from the image of
// their index (read from its file's bytes: ReadImage included), the path
// of a checkpoint with index files, beside BenchmarkRestore, the
// rebuild it replaces.
func BenchmarkRestoreImage(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		cs, _ := benchStore(b, n)
		ix, err := Restore(Config{Dim: 1024}, cs)
		if err != nil {
			b.Fatal(err)
		}
		cs, file := imageBytes(b, ix)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			for b.Loop() {
				img, err := ReadImage(file)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := RestoreImage(Config{Dim: 1024}, cs, img); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
