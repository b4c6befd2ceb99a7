package cluster

import "math"

// Int8 codes give the query and every list pivot a quarter-size copy used
// only to prove that a list cannot matter (rows have coarser codes with the
// same bound: i2.go, i4.go; the paragraph below describes the int8 codes
// rows had first). A unit vector x is coded
// as x̃ = s·X with X in [-127, 127]^dim and s = max|x_i|/127, and the norm of
// the coding error e = x - x̃ is stored rounded up. For a query coded the
// same way (q = q̃ + e_q),
//
//	q·x = q̃·x̃ + q̃·e + e_q·x <= s_q s_x (Q·X) + |q̃||e| + |e_q||x|
//
// (Cauchy-Schwarz on the two error terms), where Q·X is an exact integer.
// On unit vectors of dimension 1024 both error norms are about 0.009, so a
// row whose similarity is more than about 0.02 below the bar is ruled out by
// a 1 KiB integer product instead of a 4 KiB float32 one, and the exact
// float32 product (the oracle's kernel) is computed only for rows within
// that margin of the bar. Rows of the query's own topic (cosine about 0.6
// on package synth's stream) cannot be ruled out by any pivot or projection
// bound (their own directions are spread over all dimensions), which is
// why per-row codes are needed at all.

// codeBlock is the granularity of the int8 kernel: codes are padded with
// zeros to a multiple of it.
const codeBlock = 64

// codeDim returns the padded code length for dimension dim.
func codeDim(dim int) int { return (dim + codeBlock - 1) / codeBlock * codeBlock }

// quantize writes the int8 code of x into dst (len(dst) = codeDim(len(x));
// the padding is zeroed) and returns the scale s (x̃_i = s·dst[i] exactly,
// in real arithmetic) and an upper bound of |x - x̃|.
func quantize(dst []int8, x []float32) (scale, errNorm float32) {
	clear(dst)
	var m float32
	for _, v := range x {
		m = max(m, abs32(v))
	}
	if m == 0 {
		return 0, roundUp(norm64(x))
	}
	scale = m / 127
	if scale == 0 { // m is subnormal: code nothing, the error is the vector
		return 0, roundUp(norm64(x))
	}
	s := float64(scale)
	inv := 1 / s // any integer code is valid: the error is measured below
	var e2 float64
	for i, v := range x {
		c := math.Round(float64(v) * inv)
		c = max(-127, min(127, c))
		dst[i] = int8(c)
		d := float64(v) - s*c // s*c is exact: 24 + 7 significant bits
		e2 += d * d
	}
	return scale, roundUp(math.Sqrt(e2))
}

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

func norm64(x []float32) float64 {
	var n float64
	for _, v := range x {
		n += float64(v) * float64(v)
	}
	return math.Sqrt(n)
}

// roundUp returns a float32 not below v, widened by a relative 1e-9 against
// the rounding of the float64 sum that measured v.
func roundUp(v float64) float32 {
	v *= 1 + 1e-9
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// codeNorm returns |q̃| = s·|Q| for a code and its scale, rounded up.
func codeNorm(code []int8, scale float32) float64 {
	var n int64
	for _, c := range code {
		n += int64(c) * int64(c)
	}
	return float64(scale) * math.Sqrt(float64(n)) * (1 + 1e-12)
}

// dotsI8Go is the portable kernel: out[r] = q·x_r for the n = len(out)
// rows of x, each of len(q) codes.
func dotsI8Go(q, x []int8, out []int32) {
	d := len(q)
	for r := range out {
		row := x[r*d : (r+1)*d]
		var s int32
		for i, v := range row {
			s += int32(v) * int32(q[i])
		}
		out[r] = s
	}
}

// dotI8 returns the exact integer product of two codes of equal length (a
// multiple of codeBlock).
func dotI8(q, x []int8) int32 {
	var out [1]int32
	dotsI8(q, x[:len(q)], out[:])
	return out[0]
}
