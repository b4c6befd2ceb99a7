package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotsI8 compares the kernel in use (assembly on amd64 with AVX2)
// with the portable one, on random codes and on the extremes where a
// saturating instruction would go wrong.
func TestDotsI8(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(c []int8, f func(i int) int8) {
		for i := range c {
			c[i] = f(i)
		}
	}
	for _, tc := range []struct {
		name string
		dim  int
		q, x func(i int) int8
	}{
		{"random", 1024, func(int) int8 { return int8(rng.IntN(255) - 127) }, func(int) int8 { return int8(rng.IntN(255) - 127) }},
		{"max", 128, func(int) int8 { return 127 }, func(int) int8 { return 127 }},
		{"min", 128, func(int) int8 { return -127 }, func(int) int8 { return -127 }},
		{"mixed", 64, func(int) int8 { return -127 }, func(int) int8 { return 127 }},
		{"alternating", 192, func(i int) int8 { return int8(127 - 254*(i%2)) }, func(i int) int8 { return int8(127 - 254*(i/2%2)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 5
			q, x := make([]int8, tc.dim), make([]int8, n*tc.dim)
			fill(q, tc.q)
			fill(x, tc.x)
			got, want := make([]int32, n), make([]int32, n)
			dotsI8(q, x, got)
			dotsI8Go(q, x, want)
			for r := range n {
				if got[r] != want[r] {
					t.Fatalf("row %d: %d, want %d (avx2 %v)", r, got[r], want[r], useAVX2)
				}
			}
		})
	}
}

// TestQuantizeBound checks the bound the search relies on: for coded unit
// vectors, s_q s_x (Q·X) + |q̃||e_x| + |e_q| is never below the real product.
func TestQuantizeBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{3, 64, 100, 1024} {
		t.Run(fmt.Sprint(dim), func(t *testing.T) {
			cd := codeDim(dim)
			for range 200 {
				q, x := randUnit(rng, dim), randUnit(rng, dim)
				if rng.IntN(4) == 0 { // near-duplicates: the tight case
					for i := range x {
						x[i] = q[i] + float32(0.01*rng.NormFloat64()/math.Sqrt(float64(dim)))
					}
					Normalize(x, x)
				}
				qc, xc := make([]int8, cd), make([]int8, cd)
				qs, qe := quantize(qc, q)
				xs, xe := quantize(xc, x)
				var real float64
				for i := range q {
					real += float64(q[i]) * float64(x[i])
				}
				ub := float64(qs)*float64(xs)*float64(dotI8(qc, xc)) + codeNorm(qc, qs)*float64(xe) + float64(qe)*(1+1e-5)
				if ub < real {
					t.Fatalf("bound %v below product %v", ub, real)
				}
				if ub-real > 0.1 {
					t.Fatalf("bound %v too loose for product %v (errors %v, %v)", ub, real, qe, xe)
				}
			}
		})
	}
}

func randUnit(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	Normalize(v, v)
	return v
}

func BenchmarkDotsI8(b *testing.B) {
	for _, n := range []int{1, 64, 1024} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			q, x := make([]int8, 1024), make([]int8, n*1024)
			for i := range q {
				q[i] = int8(rng.IntN(255) - 127)
			}
			for i := range x {
				x[i] = int8(rng.IntN(255) - 127)
			}
			out := make([]int32, n)
			b.SetBytes(int64(len(x)))
			for b.Loop() {
				dotsI8(q, x, out)
			}
		})
	}
}
