package cluster

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// dot returns the inner product of two vectors of equal length. It runs the
// same kernel (gonum's f32.DotUnitary, reached through blas32.Dot) that
// blas32.Gemv runs for every row, so a similarity computed here equals, bit
// for bit, the one an exact scan computes: decisions can be compared exactly.
func dot(a, b []float32) float32 {
	return blas32.Dot(blas32.Vector{N: len(a), Inc: 1, Data: a}, blas32.Vector{N: len(b), Inc: 1, Data: b})
}

// unitTolerance is how far from 1 the float64 norm of a vector may be for it
// to count as already normalised. A float32 vector normalised in float64 and
// rounded has a norm within about 1e-7 of 1, so normalising it again leaves it
// unchanged: Restore(Clusters()) stores the very same bits.
const unitTolerance = 1e-6

// Normalize writes src scaled to unit length into dst (which must have the
// same length) and returns dst. It fails with ErrVector when src has a zero
// norm or a component that is NaN or infinite: the cosine is undefined then.
func Normalize(dst, src []float32) ([]float32, error) {
	var n float64
	for _, x := range src {
		n += float64(x) * float64(x)
	}
	// A float32's square is finite in float64, so the sum is NaN or
	// infinite exactly when a component is: one check per vector, not per
	// component (the checks were a third of a checkpoint's Restore).
	if math.IsNaN(n) || math.IsInf(n, 0) {
		for _, x := range src {
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%w: component %v", ErrVector, x)
			}
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: zero norm", ErrVector)
	}
	norm := math.Sqrt(n)
	if math.Abs(norm-1) <= unitTolerance {
		copy(dst, src)
		return dst, nil
	}
	inv := 1 / norm
	for i, x := range src {
		dst[i] = float32(float64(x) * inv)
	}
	return dst, nil
}

// Exact is the exact nearest-cluster scan: all stored unit vectors in one
// contiguous row-major matrix, multiplied by the query with gonum's blas32
// Gemv (the fastest exact scan measured in ../shared/DEPENDENCIES.md: 1.5 ms
// at 10,000 and 18 ms at 100,000 vectors of dimension 1024). It is the
// baseline of the benchmarks and the oracle of the tests. It is not safe for
// concurrent use.
type Exact struct {
	dim  int
	ids  []int64
	data []float32 // len(ids) rows of dim values
	sims []float32 // scratch for one Gemv
	buf  []float32 // scratch for the normalised query
}

// NewExact returns an empty scan of vectors of dimension dim (> 0).
func NewExact(dim int) (*Exact, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("%w: Dim %d <= 0", ErrConfig, dim)
	}
	return &Exact{dim: dim, buf: make([]float32, dim)}, nil
}

// Len returns the number of stored vectors.
func (e *Exact) Len() int { return len(e.ids) }

// Add stores a normalised copy of vec under id. Ids must be added in
// increasing order (as Index assigns them), so that a row's position orders
// ties like the id does.
func (e *Exact) Add(id int64, vec []float32) error {
	if len(vec) != e.dim {
		return fmt.Errorf("%w: got %d, want %d", ErrDim, len(vec), e.dim)
	}
	if n := len(e.ids); n > 0 && id <= e.ids[n-1] {
		return fmt.Errorf("%w: id %d after %d", ErrConfig, id, e.ids[n-1])
	}
	n := len(e.data)
	e.data = append(e.data, vec...)
	if _, err := Normalize(e.data[n:], vec); err != nil {
		e.data = e.data[:n]
		return err
	}
	e.ids = append(e.ids, id)
	return nil
}

// Remove deletes the vectors with the given ids; unknown ids are ignored.
func (e *Exact) Remove(ids ...int64) {
	drop := make(map[int64]bool, len(ids))
	for _, id := range ids {
		drop[id] = true
	}
	w := 0
	for r, id := range e.ids {
		if drop[id] {
			continue
		}
		copy(e.data[w*e.dim:(w+1)*e.dim], e.data[r*e.dim:(r+1)*e.dim])
		e.ids[w] = id
		w++
	}
	e.ids = e.ids[:w]
	e.data = e.data[:w*e.dim]
}

// Nearest returns the id of the stored vector most similar (cosine) to vec
// and that similarity; among equal similarities the smallest id wins. ok is
// false when nothing is stored.
func (e *Exact) Nearest(vec []float32) (id int64, sim float32, ok bool, err error) {
	if len(vec) != e.dim {
		return 0, 0, false, fmt.Errorf("%w: got %d, want %d", ErrDim, len(vec), e.dim)
	}
	q, err := Normalize(e.buf, vec)
	if err != nil {
		return 0, 0, false, err
	}
	n := len(e.ids)
	if n == 0 {
		return 0, 0, false, nil
	}
	if cap(e.sims) < n {
		e.sims = make([]float32, n, 2*n)
	}
	sims := e.sims[:n]
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: n, Cols: e.dim, Stride: e.dim, Data: e.data},
		blas32.Vector{N: e.dim, Inc: 1, Data: q}, 0,
		blas32.Vector{N: n, Inc: 1, Data: sims})
	best := 0
	for r := 1; r < n; r++ {
		if sims[r] > sims[best] { // strict: the first (smallest id) wins ties
			best = r
		}
	}
	return e.ids[best], sims[best], true, nil
}

// Decide returns the join-or-new decision of the paper's rule (seed 002
// Appendix A): join the most similar stored vector when its cosine exceeds
// threshold (join true, id), else create a new cluster (join false).
func (e *Exact) Decide(vec []float32, threshold float32) (id int64, sim float32, join bool, err error) {
	id, sim, ok, err := e.Nearest(vec)
	if err != nil || !ok {
		return 0, 0, false, err
	}
	return id, sim, sim > threshold, nil
}
