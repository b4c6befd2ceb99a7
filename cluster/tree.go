package cluster

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// lists partitions the stored rows into small groups ("lists", as in an
// inverted-file index), used to prove decisions. Every list has a unit pivot
// p and a lower bound minCos of cos(x, p) over every row x ever placed in it,
// so that for a query q with a = cos(q, p) the angular triangle inequality
// bounds every row of the list:
//
//	cos(q, x) <= cos(angle(q, p) - angle(x, p)) <= bound(a, minCos).
//
// A list whose bound is below the similarity to beat is skipped whole; a list
// keeps cos(x, p) per row, so most rows of a visited list are skipped by a
// scalar bound, and only the rest get an exact dot product. Nothing is ever
// skipped that could beat or tie the best row, so the search returns what an
// exact scan returns.
//
// Choices made from measurements (pprof and dot-product counts on the
// realistic stream of package synth, dimension 1024):
//   - Bounds from a projection (PCA or a prefix of the dimensions) plus
//     residual norms pruned almost nothing: each cluster's own direction is
//     spread over all dimensions. Pivots close to the data (k-means centres
//     of about 20 rows) do prune.
//   - A ball tree (fanout 16) spent most of its time on internal nodes,
//     whose radius is too wide to prune (a third of all nodes were visited
//     at 20,000 rows). So the tree is flat: all pivots sit in one contiguous
//     matrix scanned by one Gemv (about N/20 rows, 5 % of an exact scan),
//     then only the lists whose bound passes are visited.
//   - At 100,000 rows (go run ./bench/cluster -no-graph -cpuprofile)
//     the search spent 3.5 s of 5.2 s in row dot products and 1.0 s in the
//     pivot Gemv: single-pivot bounds leave too many rows of the query's
//     topic to check. Median 5.3 ms against 20.9 ms for the exact scan: the
//     9x target is not met yet (at 10,000 rows: 0.37 ms, 6.7x).
//   - Pivots come from hierarchical k-means (recursive splits in 16 on a
//     sample), a second or two for 100,000 rows; a list that grows past
//     twice LeafSize online is split in two the same way.
type lists struct {
	dim     int
	pivots  []float32 // one unit pivot per list, row-major
	minCos  []float32
	rows    [][]int32   // slots per list
	lo      [][]float64 // cos(row, pivot) minus slack, per row
	sin     [][]float64 // sqrt(1 - lo^2), per row
	leafMax int
	fanout  int
	slack   float64
}

func (l *lists) len() int { return len(l.minCos) }

func (l *lists) pivot(g int) []float32 { return l.pivots[g*l.dim : (g+1)*l.dim : (g+1)*l.dim] }

// scan writes cos(q, pivot) of every list into a (len >= l.len()).
func (l *lists) scan(q, a []float32) {
	g := l.len()
	if g == 0 {
		return
	}
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: g, Cols: l.dim, Stride: l.dim, Data: l.pivots[:g*l.dim]},
		blas32.Vector{N: l.dim, Inc: 1, Data: q}, 0,
		blas32.Vector{N: g, Inc: 1, Data: a[:g]})
}

// bound returns an upper bound of cos(q, x) for every x with cos(x, p) >= b
// given a = cos(q, p), both widened by slack against rounding in the float32
// products that measured them.
func bound(a, b float32, slack float64) float64 {
	af := min(1, float64(a)+slack)
	bf := max(-1, float64(b)-slack)
	if af >= bf {
		return 1
	}
	return af*bf + math.Sqrt((1-af*af)*(1-bf*bf))
}

// add appends a list with pivot p over rows and returns its index.
func (l *lists) add(p []float32, rows []int32, row func(int32) []float32) int {
	g := l.len()
	l.pivots = append(l.pivots, p...)
	l.minCos = append(l.minCos, 1)
	l.rows = append(l.rows, nil)
	l.lo = append(l.lo, nil)
	l.sin = append(l.sin, nil)
	for _, r := range rows {
		l.addRow(g, r, dot(row(r), p))
	}
	return g
}

func (l *lists) addRow(g int, slot int32, c float32) {
	lo := max(-1, float64(c)-l.slack)
	l.minCos[g] = min(l.minCos[g], c)
	l.rows[g] = append(l.rows[g], slot)
	l.lo[g] = append(l.lo[g], lo)
	l.sin[g] = append(l.sin[g], math.Sqrt(1-lo*lo))
}

// insert places a row in list g (the one with the most similar pivot, which
// the caller knows from its search; -1 when there is no list yet) and splits
// that list when it has grown past twice leafMax.
func (l *lists) insert(g int, slot int32, x []float32, row func(int32) []float32, rng *rand.Rand) {
	if g < 0 {
		l.add(append([]float32(nil), x...), []int32{slot}, row)
		return
	}
	l.addRow(g, slot, dot(x, l.pivot(g)))
	if len(l.rows[g]) <= 2*l.leafMax {
		return
	}
	pivots, parts := kmeans(l.rows[g], 2, row, rng)
	if len(parts) < 2 {
		return // rows could not be separated (e.g. all equal)
	}
	// Replace list g by the first part, append the second.
	copy(l.pivot(g), pivots[0])
	l.minCos[g], l.rows[g], l.lo[g], l.sin[g] = 1, nil, nil, nil
	for _, r := range parts[0] {
		l.addRow(g, r, dot(row(r), pivots[0]))
	}
	l.add(pivots[1], parts[1], row)
}

// build replaces all lists by a bulk partition of rows.
func (l *lists) build(rows []int32, row func(int32) []float32, rng *rand.Rand) {
	l.pivots, l.minCos, l.rows, l.lo, l.sin = l.pivots[:0], l.minCos[:0], nil, nil, nil
	if len(rows) == 0 {
		return
	}
	l.grow(rows, row, rng)
}

// grow splits rows by k-means into up to fanout parts, recursively while a
// part is larger than leafMax, and adds the final parts as lists.
func (l *lists) grow(rows []int32, row func(int32) []float32, rng *rand.Rand) {
	if len(rows) <= l.leafMax {
		l.add(meanPivot(rows, l.dim, row), rows, row)
		return
	}
	// Split in as many parts as needed for lists of about leafMax rows, at
	// most fanout: a 16-way split of 40 rows would leave lists of 2 or 3.
	k := min(l.fanout, max(2, (len(rows)+l.leafMax-1)/l.leafMax))
	pivots, parts := kmeans(rows, k, row, rng)
	if len(parts) < 2 {
		l.add(pivots[0], parts[0], row)
		return
	}
	for j, part := range parts {
		if len(part) <= l.leafMax {
			l.add(pivots[j], part, row)
			continue
		}
		l.grow(part, row, rng)
	}
}

// kmeansSample bounds the rows k-means iterates on; the rest are only
// assigned once, which keeps a bulk build of 100,000 rows near a second.
const (
	kmeansSample = 2048
	kmeansIters  = 4
)

// kmeans returns unit centres and the non-empty parts of rows nearest to
// each (cosine), from k random rows refined by a few Lloyd steps on a
// sample.
func kmeans(rows []int32, k int, row func(int32) []float32, rng *rand.Rand) ([][]float32, [][]int32) {
	k = min(k, len(rows))
	dim := len(row(rows[0]))
	sample := rows
	if len(rows) > kmeansSample {
		sample = make([]int32, kmeansSample)
		for i := range sample {
			sample[i] = rows[rng.IntN(len(rows))]
		}
	}
	centres := make([][]float32, k)
	for j, p := range rng.Perm(len(sample))[:k] {
		centres[j] = append([]float32(nil), row(sample[p])...)
	}
	assign := func(set []int32) []int {
		out := make([]int, len(set))
		for i, r := range set {
			x := row(r)
			best, bs := 0, float32(math.Inf(-1))
			for j, c := range centres {
				if s := dot(x, c); s > bs {
					best, bs = j, s
				}
			}
			out[i] = best
		}
		return out
	}
	for range kmeansIters {
		a := assign(sample)
		sums := make([][]float64, k)
		for i, r := range sample {
			if sums[a[i]] == nil {
				sums[a[i]] = make([]float64, dim)
			}
			for d, v := range row(r) {
				sums[a[i]][d] += float64(v)
			}
		}
		for j := range centres {
			if sums[j] == nil {
				continue // keep the old centre
			}
			if c := unitFrom(sums[j]); c != nil {
				centres[j] = c
			}
		}
	}
	a := assign(rows)
	parts := make([][]int32, k)
	for i, r := range rows {
		parts[a[i]] = append(parts[a[i]], r)
	}
	var ps [][]float32
	var out [][]int32
	for j, p := range parts {
		if len(p) > 0 {
			ps = append(ps, centres[j])
			out = append(out, p)
		}
	}
	return ps, out
}

func unitFrom(sum []float64) []float32 {
	var n float64
	for _, v := range sum {
		n += v * v
	}
	if n == 0 {
		return nil
	}
	inv := 1 / math.Sqrt(n)
	c := make([]float32, len(sum))
	for d, v := range sum {
		c[d] = float32(v * inv)
	}
	return c
}

func meanPivot(rows []int32, dim int, row func(int32) []float32) []float32 {
	sum := make([]float64, dim)
	for _, r := range rows {
		for d, v := range row(r) {
			sum[d] += float64(v)
		}
	}
	if c := unitFrom(sum); c != nil {
		return c
	}
	return append([]float32(nil), row(rows[0])...)
}
