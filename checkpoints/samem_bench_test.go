package checkpoints

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSAMem times SaveSAMem and LoadSAMem of memories sized by n
// Q-table entries (n/100 states and as many thoughts, 100 entries per state,
// 1024-dimensional embeddings). The target (docs/PERFORMANCE.md) is n =
// 1,000,000: saved in
// at most 2 s, loaded in at most 1.5 s; go run ./cmd/bench -only checkpoint
// measures that size with its peak memory, this benchmark the scaling:
//
//	go test -run '^$' -bench SAMem -benchtime 3x ./checkpoints
func BenchmarkSAMem(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		st := makeState(rand.New(rand.NewPCG(1, uint64(n))), n/100, n/100, 100, 1024)
		b.Run(fmt.Sprintf("save/n=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				must(b, SaveSAMem(b.Context(), dir, st))
			}
		})
		b.Run(fmt.Sprintf("load/n=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			must(b, SaveSAMem(b.Context(), dir, st))
			for b.Loop() {
				got, err := LoadSAMem(b.Context(), dir, 1024)
				must(b, err)
				if len(got.QTable) != len(st.QTable) {
					b.Fatalf("loaded %d entries, saved %d", len(got.QTable), len(st.QTable))
				}
			}
		})
	}
}
