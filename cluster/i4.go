package cluster

import "math"

// Rows are coded in 4 bits per component for the search's first check (the
// pivots and the query keep the int8 codes of i8.go). A unit row x is coded
// as x̃ = s·X with X in [-8, 7]^dim; the bound of i8.go holds for any code
// with its measured error e = x - x̃:
//
//	q·x <= s_q s_x (Q·X) + |q̃||e_x| + |e_q||x|.
//
// With 4 bits, |e_x| is about 0.1 instead of 0.009, so the check rules out
// only rows more than about 0.12 below the bar; a row that passes goes
// straight to the exact float32 product. Measured on package synth's stream
// at 100,000 rows (TestDiag-style trace of the int8 search, 300 queries):
// the rows the int8 check examined had cosines 0.0 to 0.4 (3,800 of about
// 3,870 per join) and 0.5 to 0.7 (about 66); at most one per query was
// within 0.2 of the bar. So a check half as precise loses nothing, and it
// reads 512 bytes per row instead of 1 KiB: the search is bound by the
// memory traffic of these rows.
//
// Layout: per block of 64 components, 32 bytes; byte j holds component j
// (low nibble) and component j+32 (high nibble), each as X+8 in [0, 15], so
// that the kernel unpacks a block with one shift and two masks and
// multiplies the unsigned nibbles with the query's signed int8 code
// (VPMADDUBSW); Q·X is then Σ Q_i (X_i+8) - 8 ΣQ_i.

// nibbleDim returns the byte length of a 4-bit code of dimension dim.
func nibbleDim(dim int) int { return codeDim(dim) / 2 }

// gaussStep is the step of the 16-level uniform quantizer with the least
// mean squared error for a Gaussian (Max 1960: 0.3352 standard deviations);
// components of embeddings are close to Gaussian, and clipping the few
// larger ones costs less than a coarser step for all.
const gaussStep = 0.3352

// quantize4 writes the 4-bit code of x into dst (len(dst) =
// nibbleDim(len(x)); padding codes 0) and returns the scale s and an upper
// bound of |x - s·X|.
//
// It codes once with the Gaussian step and, only when that error exceeds
// about 0.13 |x| (a few large components were clipped), once more with
// max|x_i|/7.5, keeping the better: a bulk build codes every row, and
// checkpoint loads rebuild the index (seed 002's memory of 10,000 states and
// 10,000 thoughts must load in 1.5 s, docs/PERFORMANCE.md).
func quantize4(dst []byte, x []float32) (scale, errNorm float32) {
	var m float32
	var n2 float64
	for _, v := range x {
		m = max(m, abs32(v))
		n2 += float64(v) * float64(v)
	}
	s := float32(gaussStep * math.Sqrt(n2/float64(len(x))))
	if m == 0 || s == 0 || math.IsInf(float64(1/s), 0) {
		encode4(dst, x, 0) // zero or subnormal: code nothing
		return 0, roundUp(math.Sqrt(n2))
	}
	e := encode4(dst, x, s)
	if s2 := m / 7.5; e*e > 0.017*n2 && s2 > s {
		if alt := err4(x, s2); alt < e {
			s, e = s2, encode4(dst, x, s2)
		}
	}
	return s, roundUp(e)
}

// code4 returns the code of v for the inverse scale inv (rounding mode does
// not matter: the error is measured; RoundToEven is one instruction on
// amd64).
func code4(v float32, inv float64) float64 {
	return max(-8, min(7, math.RoundToEven(float64(v)*inv)))
}

func inv4(s float32) float64 {
	if s == 0 {
		return 0
	}
	return 1 / float64(s)
}

// err4 returns |x - s·X| for the code X of x with scale s (s·X is exact in
// float64: 24 + 4 significant bits).
func err4(x []float32, s float32) float64 {
	inv, sf := inv4(s), float64(s)
	var e2 float64
	for _, v := range x {
		d := float64(v) - sf*code4(v, inv)
		e2 += d * d
	}
	return math.Sqrt(e2)
}

// encode4 writes the code of x for scale s into dst and returns its error
// |x - s·X|.
func encode4(dst []byte, x []float32, s float32) float64 {
	inv, sf := inv4(s), float64(s)
	const half = codeBlock / 2
	var e2 float64
	for b := 0; b*codeBlock < len(dst)*2; b++ {
		out := dst[b*half : (b+1)*half]
		for j := range out {
			var u [2]byte
			for h, i := range [2]int{b*codeBlock + j, b*codeBlock + j + half} {
				u[h] = 8
				if i < len(x) {
					c := code4(x[i], inv)
					d := float64(x[i]) - sf*c
					e2 += d * d
					u[h] = byte(int(c) + 8)
				}
			}
			out[j] = u[0] | u[1]<<4
		}
	}
	return math.Sqrt(e2)
}

// sumCode returns ΣQ_i of an int8 code, the correction of the kernels'
// offset nibbles.
func sumCode(q []int8) int32 {
	var s int32
	for _, v := range q {
		s += int32(v)
	}
	return s
}

// dotsU4Go is the portable kernel: out[r] = Σ q_i·u_i over the unsigned
// nibbles u of row r of x (len(q)/2 bytes per row), in the layout above.
func dotsU4Go(q []int8, x []byte, out []int32) {
	nb := len(q) / 2
	for r := range out {
		row := x[r*nb : (r+1)*nb]
		var s int32
		for i, v := range row {
			b, j := i/(codeBlock/2), i%(codeBlock/2)
			s += int32(v&0x0F)*int32(q[b*codeBlock+j]) + int32(v>>4)*int32(q[b*codeBlock+j+codeBlock/2])
		}
		out[r] = s
	}
}

// dot4 returns Q·X for the int8 code q and one 4-bit code x (the offset
// removed: qsum is sumCode(q)).
func dot4(q []int8, qsum int32, x []byte) int32 {
	var out [1]int32
	dotsU4(q, x[:len(q)/2], out[:])
	return out[0] - 8*qsum
}
