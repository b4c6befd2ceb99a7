package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDot2 checks the 2-bit kernel in use (assembly on amd64 with AVX2)
// against the integer product of the codes decoded one by one.
func TestDot2(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		name string
		dim  int
		q    func(i int) int8
		x    func(i int) float32
	}{
		{"random", 1024, func(int) int8 { return int8(rng.IntN(255) - 127) }, func(int) float32 { return float32(rng.NormFloat64()) }},
		{"max", 128, func(int) int8 { return 127 }, func(int) float32 { return 1 }},
		{"min", 256, func(int) int8 { return -127 }, func(int) float32 { return -1 }},
		{"padded", 100, func(i int) int8 { return int8(127 - 254*(i%2)) }, func(i int) float32 { return float32(i%7) - 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 5
			q := make([]int8, twoCodeDim(tc.dim))
			for i := range tc.dim {
				q[i] = tc.q(i)
			}
			td := twoDim(tc.dim)
			x := make([]byte, n*td)
			want := make([]int32, n)
			for r := range n {
				v := make([]float32, tc.dim)
				for i := range v {
					v[i] = tc.x(i)
				}
				s, _ := quantize2(x[r*td:(r+1)*td], v)
				for i, f := range v {
					u := max(0, min(3, math.Floor(float64(f)/(2*float64(s)))+2))
					want[r] += int32(q[i]) * int32(2*u-3)
				}
			}
			got, port := make([]int32, n), make([]int32, n)
			dotsU2(q, x, got)
			dotsU2Go(q, x, port)
			qs := sumCode(q)
			for r := range n {
				if 2*got[r]-3*qs != want[r] || 2*port[r]-3*qs != want[r] {
					t.Fatalf("row %d: kernel %d, portable %d, want %d (avx2 %v)", r, 2*got[r]-3*qs, 2*port[r]-3*qs, want[r], useAVX2)
				}
				if d := dot2(q, qs, x[r*td:]); d != want[r] {
					t.Fatalf("row %d: dot2 %d, want %d", r, d, want[r])
				}
			}
		})
	}
}

// TestQuantize2Bound checks the bound the search relies on with 2-bit row
// codes, s_q s_x (Q·X) + |q̃||e_x| + |e_q| >= q·x, including dimensions
// that are not a multiple of the block, and that the error stays near the
// Gaussian optimum (about 0.35 for random unit rows).
func TestQuantize2Bound(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, dim := range []int{3, 64, 100, 1024} {
		t.Run(fmt.Sprint(dim), func(t *testing.T) {
			for k := range 300 {
				q, x := randUnit(rng, dim), randUnit(rng, dim)
				if k%3 == 0 { // near-duplicates: the tight case
					for i := range x {
						x[i] = q[i] + float32(0.01*rng.NormFloat64()/math.Sqrt(float64(dim)))
					}
					Normalize(x, x)
				}
				qc := make([]int8, twoCodeDim(dim))
				qs, qe := quantize(qc[:codeDim(dim)], q)
				xc := make([]byte, twoDim(dim))
				xs, xe := quantize2(xc, x)
				var real float64
				for i := range q {
					real += float64(q[i]) * float64(x[i])
				}
				ub := float64(qs)*float64(xs)*float64(dot2(qc, sumCode(qc), xc)) + codeNorm(qc, qs)*float64(xe) + float64(qe)*(1+1e-5)
				if ub < real {
					t.Fatalf("bound %v below product %v", ub, real)
				}
				if dim == 1024 && xe > 0.4 {
					t.Fatalf("2-bit error %v, want <= 0.4", xe)
				}
			}
		})
	}
}
