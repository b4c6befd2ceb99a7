package cluster

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel (i8_amd64.s); measured about 4x
// faster than dotsI8Go per row would allow for the 2 ms target otherwise.
var useAVX2 = cpu.X86.HasAVX2

// dotsI8AVX2 computes out[r] = q·x_r for n rows of dim codes each; dim is a
// positive multiple of codeBlock and no code is -128 (the products are then
// exact: |x|·(q·sign x) pairs sum to at most 2·127·127 < 2^15).
//
//go:noescape
func dotsI8AVX2(q, x *int8, dim, n int, out *int32)

// dotsI8 writes q·x_r into out for the len(out) rows of x.
func dotsI8(q, x []int8, out []int32) {
	if !useAVX2 || len(out) == 0 {
		dotsI8Go(q, x, out)
		return
	}
	_ = x[len(out)*len(q)-1] // bounds check for the assembly
	dotsI8AVX2(&q[0], &x[0], len(q), len(out), &out[0])
}

// prefetch asks the CPU to bring the n > 0 bytes at p into the cache; the
// search issues it for rows it will take an int8 product of a few rows
// later, so that the memory latency of rows scattered over lists overlaps.
//
//go:noescape
func prefetch(p *byte, n int)

// dotsU4AVX2 computes out[r] = Σ q_i·u_i for n rows of dim/2 bytes of
// unsigned nibbles each (i4.go); dim is a positive multiple of codeBlock and
// no code is -128 (pairs then sum to at most 2·15·127, exact in int16).
//
//go:noescape
func dotsU4AVX2(q *int8, x *byte, dim, n int, out *int32)

// dotsU4 writes Σ q_i·u_i of each row of x into out (len(out) rows).
func dotsU4(q []int8, x []byte, out []int32) {
	if !useAVX2 || len(out) == 0 {
		dotsU4Go(q, x, out)
		return
	}
	_ = x[len(out)*len(q)/2-1] // bounds check for the assembly
	dotsU4AVX2(&q[0], &x[0], len(q), len(out), &out[0])
}

// dotsU2AVX2 computes out[r] = Σ q_i·u_i for n rows of dim/4 bytes of
// 2-bit values each (i2.go); dim is a positive multiple of twoBlock and no
// code is -128.
//
//go:noescape
func dotsU2AVX2(q *int8, x *byte, dim, n int, out *int32)

// dotsU2 writes Σ q_i·u_i of each row of x into out (len(out) rows).
func dotsU2(q []int8, x []byte, out []int32) {
	if !useAVX2 || len(out) == 0 {
		dotsU2Go(q, x, out)
		return
	}
	_ = x[len(out)*len(q)/4-1] // bounds check for the assembly
	dotsU2AVX2(&q[0], &x[0], len(q), len(out), &out[0])
}
