package qlearn

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// bigTable fills a table with nStates rows of perRow random thoughts out of
// nThoughts, the memory size of the per-step overhead target
// (docs/PERFORMANCE.md).
func bigTable(b *testing.B, nStates, nThoughts, perRow int) *Table {
	b.Helper()
	tb := newTable(b)
	rng := rand.New(rand.NewPCG(1, 2))
	for s := range int64(nStates) {
		for range perRow {
			must(b, tb.Set(s, rng.Int64N(int64(nThoughts)), rng.Float64()))
		}
	}
	return tb
}

// BenchmarkStep measures one training step's table work (an Update with its
// bootstrap, then a Best for the next decision) at 10,000 states x 10,000
// thoughts; the target allows 1 ms for the whole trainer overhead per
// step (docs/PERFORMANCE.md).
func BenchmarkStep(b *testing.B) {
	for _, perRow := range []int{10, 100} {
		b.Run(fmt.Sprintf("states=10000/thoughts=10000/perRow=%d", perRow), func(b *testing.B) {
			tb := bigTable(b, 10000, 10000, perRow)
			rng := rand.New(rand.NewPCG(3, 4))
			for i := 0; b.Loop(); i++ {
				s, next := rng.Int64N(10000), rng.Int64N(10000)
				if _, err := tb.Update(s, rng.Int64N(10000), rng.Float64(), next, i%30 == 0, int64(i)); err != nil {
					b.Fatal(err)
				}
				tb.Best(next)
			}
			b.ReportMetric(float64(tb.Len()), "entries")
		})
	}
}

// BenchmarkBest measures argmax alone.
func BenchmarkBest(b *testing.B) {
	tb := bigTable(b, 10000, 10000, 100)
	rng := rand.New(rand.NewPCG(3, 4))
	for b.Loop() {
		tb.Best(rng.Int64N(10000))
	}
}
