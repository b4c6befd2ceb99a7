package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDot4 checks the 4-bit kernel in use (assembly on amd64 with AVX2)
// against the integer product of the codes decoded one by one, on random
// and extreme codes.
func TestDot4(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name string
		dim  int
		q    func(i int) int8
		x    func(i int) float32
	}{
		{"random", 1024, func(int) int8 { return int8(rng.IntN(255) - 127) }, func(int) float32 { return float32(rng.NormFloat64()) }},
		{"max", 128, func(int) int8 { return 127 }, func(int) float32 { return 1 }},
		{"min", 128, func(int) int8 { return -127 }, func(int) float32 { return -1 }},
		{"mixed", 64, func(int) int8 { return -127 }, func(int) float32 { return 1 }},
		{"padded", 100, func(i int) int8 { return int8(127 - 254*(i%2)) }, func(i int) float32 { return float32(i%7) - 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 5
			cd := codeDim(tc.dim)
			q := make([]int8, cd)
			for i := range tc.dim {
				q[i] = tc.q(i)
			}
			x := make([]byte, n*cd/2)
			want := make([]int32, n)
			for r := range n {
				v := make([]float32, tc.dim)
				for i := range v {
					v[i] = tc.x(i)
				}
				s, _ := quantize4(x[r*cd/2:(r+1)*cd/2], v)
				inv := inv4(s)
				for i, f := range v {
					want[r] += int32(q[i]) * int32(code4(f, inv))
				}
			}
			got, port := make([]int32, n), make([]int32, n)
			dotsU4(q, x, got)
			dotsU4Go(q, x, port)
			qs := sumCode(q)
			for r := range n {
				if got[r]-8*qs != want[r] || port[r]-8*qs != want[r] {
					t.Fatalf("row %d: kernel %d, portable %d, want %d (avx2 %v)", r, got[r]-8*qs, port[r]-8*qs, want[r], useAVX2)
				}
				if d := dot4(q, qs, x[r*cd/2:]); d != want[r] {
					t.Fatalf("row %d: dot4 %d, want %d", r, d, want[r])
				}
			}
		})
	}
}

// TestQuantize4Bound checks the bound the search relies on with 4-bit row
// codes: s_q s_x (Q·X) + |q̃||e_x| + |e_q| is never below the real product,
// and the error stays near the Gaussian optimum (0.10 to 0.14 for random unit rows).
func TestQuantize4Bound(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dim := range []int{3, 64, 100, 1024} {
		t.Run(fmt.Sprint(dim), func(t *testing.T) {
			cd := codeDim(dim)
			for k := range 300 {
				q, x := randUnit(rng, dim), randUnit(rng, dim)
				outlier := k%4 == 1
				switch k % 4 {
				case 0: // near-duplicates: the tight case
					for i := range x {
						x[i] = q[i] + float32(0.01*rng.NormFloat64()/math.Sqrt(float64(dim)))
					}
					Normalize(x, x)
				case 1: // one large outlier component, as real embeddings have
					x[rng.IntN(dim)] = 0.5
					Normalize(x, x)
				}
				qc, xc := make([]int8, cd), make([]byte, cd/2)
				qs, qe := quantize(qc, q)
				xs, xe := quantize4(xc, x)
				var real float64
				for i := range q {
					real += float64(q[i]) * float64(x[i])
				}
				ub := float64(qs)*float64(xs)*float64(dot4(qc, sumCode(qc), xc)) + codeNorm(qc, qs)*float64(xe) + float64(qe)*(1+1e-5)
				if ub < real {
					t.Fatalf("bound %v below product %v", ub, real)
				}
				// A large outlier component costs the code its
				// precision (bounds stay valid, only looser).
				if dim == 1024 && !outlier && xe > 0.15 {
					t.Fatalf("4-bit error %v, want <= 0.15", xe)
				}
			}
		})
	}
}

func BenchmarkDotsU4(b *testing.B) {
	for _, n := range []int{1, 64, 1024} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			q, x := make([]int8, 1024), make([]byte, n*512)
			for i := range q {
				q[i] = int8(rng.IntN(255) - 127)
			}
			for i := range x {
				x[i] = byte(rng.IntN(256))
			}
			out := make([]int32, n)
			b.SetBytes(int64(len(x)))
			for b.Loop() {
				dotsU4(q, x, out)
			}
		})
	}
}
