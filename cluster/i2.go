package cluster

import "math"

// Rows also have a 2-bit code (256 bytes at dimension 1024), checked before
// the 4-bit one (i4.go). A unit row x is coded as x̃ = s·X with X in
// {-3, -1, 1, 3} (the uniform 4-level quantizer with the least mean squared
// error for a Gaussian: levels ±0.498 and ±1.494 standard deviations), and
// the bound of i8.go holds as for every code with its measured error:
//
//	q·x <= s_q s_x (Q·X) + |q̃||e_x| + |e_q||x|.
//
// |e_x| is about 0.35, so the check rules out only rows below about bar -
// 0.36; the rows it passes get the 4-bit check. Measured on package synth's
// stream at 100,000 rows (trace of the search, 300 queries): of about 3,870
// rows per join that passed the angular bound, about 3,800 had cosine 0.0
// to 0.4 and about 66 had 0.5 to 0.7, none 0.4 to 0.5. The 2-bit check
// stops the first group reading a quarter of an int8 row's bytes: the
// search is bound by the memory traffic of these rows.
//
// Layout: per block of 128 components, 32 bytes; byte j holds components j,
// j+32, j+64 and j+96 in bits 0-1, 2-3, 4-5 and 6-7, each as u = (X+3)/2 in
// [0, 3], so that the kernel unpacks with shifts and masks and multiplies
// the unsigned values with the query's int8 code (VPMADDUBSW); Q·X is then
// 2 Σ Q_i u_i - 3 ΣQ_i. The query's code is padded with zeros to a multiple
// of 128 components (twoBlock), so padded components add nothing.

const twoBlock = 128

// twoCodeDim returns the padded query code length the 2-bit kernel reads.
func twoCodeDim(dim int) int { return (dim + twoBlock - 1) / twoBlock * twoBlock }

// twoDim returns the byte length of a 2-bit code of dimension dim.
func twoDim(dim int) int { return twoCodeDim(dim) / 4 }

// gaussStep2 is the step of the uniform 4-level quantizer for a Gaussian
// (Max 1960: 0.9957 standard deviations); the scale s is half of it.
const gaussStep2 = 0.9957

// quantize2 writes the 2-bit code of x into dst (len(dst) = twoDim(len(x)))
// and returns the scale s (x̃_i = s·X_i) and an upper bound of |x - x̃| over
// the components of x (padded components are multiplied by zero query
// codes).
func quantize2(dst []byte, x []float32) (scale, errNorm float32) {
	clear(dst)
	var n2 float64
	for _, v := range x {
		n2 += float64(v) * float64(v)
	}
	s := float32(gaussStep2 / 2 * math.Sqrt(n2/float64(len(x))))
	if s == 0 || math.IsInf(float64(1/s), 0) {
		return 0, roundUp(math.Sqrt(n2)) // zero or subnormal: x̃ = 0
	}
	inv, sf := 1/(2*float64(s)), float64(s)
	var e2 float64
	for b := 0; b*twoBlock < len(x); b++ {
		out := dst[b*32 : (b+1)*32]
		for k := range 4 {
			lo := b*twoBlock + k*32
			if lo >= len(x) {
				break
			}
			for j, v := range x[lo:min(len(x), lo+32)] {
				// floor(v/step) + 2, clamped to [0, 3]; t >= 0 after the
				// clamp below, so the conversion truncates as floor.
				t := max(0, float64(v)*inv+2)
				u := min(3, int(t))
				d := float64(v) - sf*float64(2*u-3) // exact: 24 + 3 significant bits
				e2 += d * d
				out[j] |= byte(u) << (2 * k)
			}
		}
	}
	return s, roundUp(math.Sqrt(e2))
}

// dotsU2Go is the portable kernel: out[r] = Σ q_i·u_i over the 2-bit values
// u of row r of x (len(q)/4 bytes per row, len(q) a multiple of twoBlock),
// in the layout above.
func dotsU2Go(q []int8, x []byte, out []int32) {
	nb := len(q) / 4
	for r := range out {
		row := x[r*nb : (r+1)*nb]
		var s int32
		for i, v := range row {
			b, j := i/32, i%32
			for k := range 4 {
				s += int32(v>>(2*k)&3) * int32(q[b*twoBlock+k*32+j])
			}
		}
		out[r] = s
	}
}

// dot2 returns Q·X for the padded int8 code q (len a multiple of
// twoBlock) and one 2-bit code x (the offset removed: qsum is sumCode(q)).
func dot2(q []int8, qsum int32, x []byte) int32 {
	var out [1]int32
	dotsU2(q, x[:len(q)/4], out[:])
	return 2*out[0] - 3*qsum
}
