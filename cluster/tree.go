package cluster

import (
	"math"
	"math/rand/v2"
	"slices"

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
//     the float32-only search spent 3.5 s of 5.2 s in row dot products and
//     1.0 s in the pivot Gemv (median 5.3 ms). Rows of the query's topic
//     have cosine about 0.6 to it and no pivot bound rules them out, so
//     every row and pivot now also has an int8 code (i8.go) with a proven
//     error bound: pivots are scanned by their codes (6 MiB instead of 25
//     at 100,000 rows) and a row that passes the angular bound gets a 1 KiB
//     int8 product before any float32 one. Per decision at 100,000 rows
//     (thread CPU time, loaded machine): 1.5 ms for a join (3,700 int8 and
//     about 1 float32 row product), 2.5 ms for a new cluster (10,500 int8
//     products), against 17 ms for the exact scan. In go run ./bench/cluster,
//     which runs the exact scan between decisions (so the index's 6 MiB of
//     pivot codes and its rows come from memory, as they would between
//     a trainer's LLM calls), the median is 1.9 to 2.0 ms (9.1x to 9.5x).
//     Memory traffic (about 10 MB per decision: pivot codes plus int8
//     rows) was then the cost; LeafSize 48 or 64 (fewer pivots, more rows)
//     and 16 to 24 (the reverse) measured no better than 32.
//   - A trace of the rows given an int8 product at 100,000 rows (300
//     queries) showed why the angular bound lets so many through: about
//     3,800 per join had cosine 0.0 to 0.4 to the query (other topics of
//     its domain, even other domains), about 66 had 0.5 to 0.7 (its
//     topic), none 0.4 to 0.5, and at most one per query was within 0.2
//     of the bar. So rows now carry 2-bit (256 B, error about 0.35, i2.go)
//     and 4-bit (512 B, error about 0.1, i4.go) codes instead of int8,
//     checked in that order before the exact product: median 1.2 to 1.4 ms
//     (12x to 14x), 537 MiB per 100,000 rows instead of 564.
//   - Also measured and dropped (go run ./bench/cluster, alternating
//     binaries, the machine's noise about 5 %): a 4-bit first pass over
//     the pivots with int8 refinement of the lists it lets pass (1.86 ms
//     against 1.51: most lists of the query's domain pass the looser
//     bound, and the refinements are scattered reads); LeafSize 48 or 64
//     with the 2-bit rows (same as 32); prefetchAhead 16 (same as 8);
//     fewer graph candidates (-ef 6 -cand 2: within noise). Without the
//     graph (-no-graph) decisions are about 0.1 ms faster, but the
//     project requires coder/hnsw as the index.
//   - Remaining cost per decision at 100,000 rows (pprof, about 1.4 ms of
//     CPU): the int8 pivot scan (6.6 MB, 0.35 ms), 2-bit row products and
//     their prefetches (about 3,700 rows, 0.4 ms), the angular bounds of
//     about 13,800 rows of visited lists (0.2 ms), the graph (0.12 to 0.3
//     ms), the visit order's sort (0.05 ms). Super-centres over the pivots
//     cannot prune with the angular bound on this data: a centre over two
//     topics of a domain has radius about 46 degrees, a query of another
//     domain is about 77 degrees away, and cos(31) > 0.85.
//   - Rows of a visited list are queued with their codes prefetched
//     (prefetchAhead in search.go): with DRAM latency overlapped, a join
//     cost 0.8 ms CPU instead of 1.3 ms (int8 codes then).
//   - Pivots come from hierarchical k-means (recursive splits in 16 on a
//     sample), a second or two for 100,000 rows; a list that grows past
//     twice LeafSize online is split in two the same way.
type lists struct {
	dim    int
	cdim   int       // code length (i8.go)
	pivots []float32 // one unit pivot per list, row-major
	pcodes []int8    // int8 code of each pivot, row-major, cdim per list
	pscale []float32 // code scale per pivot
	perr   []float32 // coding error norm per pivot, rounded up
	minCos []float32
	// bounds holds, per list, the angular bound data of each row: the
	// only per-row data the search reads for every row of a visited list
	// (about 13,800 rows per decision at 100,000 rows), 8 bytes each; info
	// holds the rest, read only for rows that pass (about 3,700). With one
	// 32-byte record per row, reading it was a quarter of the search's
	// time (pprof, go run ./bench/cluster -cpuprofile).
	bounds [][]rowBound
	info   [][]rowInfo
	// codes holds the 4-bit codes of a list's rows contiguously (i4.go),
	// so that visiting a list streams one block of memory: with codes
	// stored by slot, each row was a separate random access and an int8
	// product cost about 300 ns at 100,000 rows instead of about 60.
	codes [][]byte
	ndim  int // bytes per 4-bit row code
	// codes2 holds the 2-bit codes of a list's rows contiguously (i2.go),
	// checked before the 4-bit ones.
	codes2  [][]byte
	tdim    int // bytes per 2-bit row code
	leafMax int
	fanout  int
	slack   float64
}

// rowBound is what the angular bound needs of one row of a list: lo, a
// lower bound of cos(row, pivot) (the float32 product minus slack, rounded
// down), and sin, an upper bound of sqrt(1 - lo^2). Weaker values keep the
// bound valid, so float32 suffices.
type rowBound struct {
	lo, sin float32
}

// rowInfo is the rest of what the search reads of a row of a list.
type rowInfo struct {
	scale2, cerr2 float32 // 2-bit code scale and error norm (i2.go)
	scale         float32 // 4-bit code scale (i4.go)
	cerr          float32 // coding error norm, rounded up
	slot          int32
}

// slots returns the slots of list g.
func (l *lists) slots(g int) []int32 {
	out := make([]int32, len(l.info[g]))
	for i, m := range l.info[g] {
		out[i] = m.slot
	}
	return out
}

func (l *lists) len() int { return len(l.minCos) }

func (l *lists) pivot(g int) []float32 { return l.pivots[g*l.dim : (g+1)*l.dim : (g+1)*l.dim] }

// scanCodes writes an upper bound of cos(q, pivot) of every list into a
// from the int8 codes (a quarter of the bytes of scan): qc is the query's
// code with scale qs, |q̃| = qn and coding error qe (see i8.go). dots is
// scratch of len >= l.len().
func (l *lists) scanCodes(qc []int8, qs float32, qn, qe float64, dots []int32, a []float32) {
	g := l.len()
	if g == 0 {
		return
	}
	dotsI8(qc, l.pcodes[:g*l.cdim], dots[:g])
	for i, d := range dots[:g] {
		ub := float64(qs)*float64(l.pscale[i])*float64(d) + qn*float64(l.perr[i]) + qe*(1+1e-5)
		a[i] = float32(min(1, ub*(1+1e-7))) // rounded up to float32
	}
}

func (l *lists) setCode(g int) {
	cs, ce := quantize(l.pcodes[g*l.cdim:(g+1)*l.cdim], l.pivot(g))
	l.pscale[g], l.perr[g] = cs, ce
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
	l.pcodes = append(l.pcodes, make([]int8, l.cdim)...)
	l.pscale = append(l.pscale, 0)
	l.perr = append(l.perr, 0)
	l.setCode(g)
	l.minCos = append(l.minCos, 1)
	l.bounds = append(l.bounds, nil)
	l.info = append(l.info, nil)
	l.codes2 = append(l.codes2, nil)
	l.codes = append(l.codes, nil)
	l.fill(g, p, rows, row)
	return g
}

// fill adds rows to the empty list g with pivot p, sizing its slices exactly
// (a bulk build then wastes no capacity).
func (l *lists) fill(g int, p []float32, rows []int32, row func(int32) []float32) {
	n := len(rows)
	l.minCos[g] = 1
	l.bounds[g] = make([]rowBound, 0, n)
	l.info[g] = make([]rowInfo, 0, n)
	l.codes[g] = make([]byte, 0, n*l.ndim)
	l.codes2[g] = make([]byte, 0, n*l.tdim)
	for _, r := range rows {
		x := row(r)
		l.addRow(g, r, x, dot(x, p))
	}
}

// boundOf returns the angular bound data of a row with cos(row, pivot) c,
// as computed by the float32 product.
func (l *lists) boundOf(c float32) rowBound {
	lo := max(-1, float64(c)-l.slack)
	lo32 := float32(lo)
	if float64(lo32) > lo {
		lo32 = math.Nextafter32(lo32, -2)
	}
	lo32 = max(-1, lo32)
	return rowBound{lo: lo32, sin: roundUp(math.Sqrt(1 - float64(lo32)*float64(lo32)))}
}

func (l *lists) addRow(g int, slot int32, x []float32, c float32) {
	l.minCos[g] = min(l.minCos[g], c)
	codes := l.codes[g]
	n := len(codes)
	if n+l.ndim > cap(codes) {
		// Grow by a few rows, not by doubling: codes are a large part of
		// the index's memory.
		codes = slices.Grow(codes, 4*l.ndim)
	}
	codes = codes[:n+l.ndim]
	cs, ce := quantize4(codes[n:], x)
	l.codes[g] = codes
	codes2 := l.codes2[g]
	n2 := len(codes2)
	if n2+l.tdim > cap(codes2) {
		codes2 = slices.Grow(codes2, 4*l.tdim)
	}
	codes2 = codes2[:n2+l.tdim]
	cs2, ce2 := quantize2(codes2[n2:], x)
	l.codes2[g] = codes2
	l.bounds[g] = append(l.bounds[g], l.boundOf(c))
	l.info[g] = append(l.info[g], rowInfo{scale2: cs2, cerr2: ce2, scale: cs, cerr: ce, slot: slot})
}

// code2 returns the 2-bit code of row i of list g.
func (l *lists) code2(g, i int) []byte { return l.codes2[g][i*l.tdim : (i+1)*l.tdim] }

// code returns the 4-bit code of row i of list g.
func (l *lists) code(g, i int) []byte { return l.codes[g][i*l.ndim : (i+1)*l.ndim] }

// insert places a row in list g (the one with the most similar pivot, which
// the caller knows from its search; -1 when there is no list yet) and splits
// that list when it has grown past twice leafMax.
func (l *lists) insert(g int, slot int32, x []float32, row func(int32) []float32, rng *rand.Rand) {
	if g < 0 {
		l.add(append([]float32(nil), x...), []int32{slot}, row)
		return
	}
	l.addRow(g, slot, x, dot(x, l.pivot(g)))
	if len(l.info[g]) <= 2*l.leafMax {
		return
	}
	pivots, parts := kmeans(l.slots(g), 2, row, rng)
	if len(parts) < 2 {
		return // rows could not be separated (e.g. all equal)
	}
	// Replace list g by the first part, append the second.
	copy(l.pivot(g), pivots[0])
	l.setCode(g)
	l.fill(g, pivots[0], parts[0], row)
	l.add(pivots[1], parts[1], row)
}

// build replaces all lists by a bulk partition of rows.
func (l *lists) build(rows []int32, row func(int32) []float32, rng *rand.Rand) {
	l.pivots, l.minCos, l.bounds, l.info = l.pivots[:0], l.minCos[:0], nil, nil
	l.pcodes, l.pscale, l.perr = l.pcodes[:0], l.pscale[:0], l.perr[:0]
	l.codes, l.codes2 = nil, nil
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
		// float32 sums through gonum's vector kernel: the centres only
		// steer cost, never decisions, and float64 sums one component at
		// a time were a third of a bulk build (pprof of Restore).
		sums := make([][]float32, k)
		for i, r := range sample {
			if sums[a[i]] == nil {
				sums[a[i]] = make([]float32, dim)
			}
			blas32.Axpy(1, blas32.Vector{N: dim, Inc: 1, Data: row(r)}, blas32.Vector{N: dim, Inc: 1, Data: sums[a[i]]})
		}
		for j := range centres {
			if sums[j] == nil {
				continue // keep the old centre
			}
			s64 := make([]float64, dim)
			for d, v := range sums[j] {
				s64[d] = float64(v)
			}
			if c := unitFrom(s64); c != nil {
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
