package cluster

// The int8 codes of this package (i8.go), for other exact searches over
// unit vectors (memstream's retrieval): a search that rules rows out with
// the bound below computes exact products only for the rows it cannot.
//
// For unit vectors q and x coded by Quantize (q = s_q·Q + e_q, x = s_x·X +
// e_x, |e| at most the returned error norm),
//
//	|q·x - s_q s_x (Q·X)| <= |s_q Q|·|e_x| + |e_q|·|x|.

// CodeDim is the length of the int8 code of a vector of dimension dim
// (padded with zeros to the kernel's block).
func CodeDim(dim int) int { return codeDim(dim) }

// Quantize writes the int8 code of x into dst (len(dst) = CodeDim(len(x)))
// and returns its scale and an upper bound of the coding error's norm.
func Quantize(dst []int8, x []float32) (scale, errNorm float32) { return quantize(dst, x) }

// CodeNorm is |s·C|, the norm of a coded vector, rounded up.
func CodeNorm(code []int8, scale float32) float64 { return codeNorm(code, scale) }

// DotsI8 writes the exact integer product of q with each of the len(out)
// codes in x (row after row, each len(q) long) into out; AVX2 where the
// CPU has it.
func DotsI8(q, x []int8, out []int32) { dotsI8(q, x, out) }
