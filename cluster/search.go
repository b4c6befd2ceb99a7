package cluster

import (
	"math"
	"unsafe"

	"slices"
)

// scratch holds one search's buffers; pooled so concurrent readers do not
// share them.
type scratch struct {
	q     []float32
	qc    []int8    // int8 code of q (i8.go)
	qc2   []int8    // qc padded with zeros for the 2-bit kernel (i2.go)
	a     []float32 // upper bound of cos(q, pivot) per list
	pd    []int32   // integer pivot products
	order []uint64  // orderKey of each list to visit
	// dots, codeDots and rowDots count the list pivots scanned, the rows
	// given a 4-bit code product and the rows given an exact dot product by the
	// last search, for tests and tuning.
	dots, codeDots, rowDots int
}

// orderKey packs a list's bound (rounded up to float32) and index into one
// integer that sorts by bound descending, then index: sorting plain
// integers took a third of the time of sorting structs with a comparison
// function (about 0.08 ms per decision at 100,000 rows, pprof).
func orderKey(ub float64, list int) uint64 {
	f := float32(ub)
	if float64(f) < ub {
		f = math.Nextafter32(f, 2)
	}
	t := math.Float32bits(f)
	if t>>31 == 0 {
		t |= 1 << 31 // non-negative: above every negative
	} else {
		t = ^t // negative: larger magnitude lower
	}
	return uint64(^t)<<32 | uint64(uint32(list))
}

// unKey returns the bound (as rounded up) and list of an orderKey.
func unKey(k uint64) (ub float64, list int32) {
	t := ^uint32(k >> 32)
	if t>>31 == 1 {
		t &^= 1 << 31
	} else {
		t = ^t
	}
	return float64(math.Float32frombits(t)), int32(uint32(k))
}

// best tracks the best row seen: highest similarity, then smallest id (the
// row an exact scan in id order keeps), and the bar a row must reach to
// matter: the threshold until a row exceeds it, then the best similarity.
type best struct {
	slot  int32
	sim   float32
	found bool
	bar   float64
}

func (b *best) offer(ix *Index, slot int32, s float32) {
	if !b.found || s > b.sim || (s == b.sim && ix.ids[slot] < ix.ids[b.slot]) {
		b.slot, b.sim, b.found = slot, s, true
		b.bar = max(b.bar, float64(s))
	}
}

// search returns the live row most similar to the unit vector q (ties to the
// smallest id) when its similarity exceeds the threshold; otherwise a row
// with the highest similarity the search computed, which is at most the
// threshold (found false when it computed none). It also returns the list
// whose pivot is most similar to q (-1 when there are no lists), where Assign
// puts q if it founds a cluster.
//
// Rows are only skipped when a bound proves their similarity is below the
// bar (strictly, with slack for rounding), and the bar never exceeds the best
// similarity found nor drops below the threshold, so a row that an exact scan
// would join is never skipped.
func (ix *Index) search(sc *scratch, q []float32) (slot int32, sim float32, found bool, near int) {
	b := best{bar: max(oracleBar, float64(ix.cfg.Threshold))}
	sc.dots, sc.codeDots, sc.rowDots = 0, 0, 0
	if ix.graph != nil && len(ix.inGraph) > 0 {
		// Candidates from the graph set the bar before the lists are
		// visited. Their similarity is recomputed exactly (the graph
		// returns none), with the same kernel as every other row.
		for _, n := range ix.graph.Search(q, ix.cfg.Candidates) {
			if s, ok := ix.slotOf[n.Key]; ok {
				sc.rowDots++
				b.offer(ix, s, dot(q, n.Value))
			}
		}
	}
	l := &ix.lists
	g := l.len()
	if g == 0 {
		return b.slot, b.sim, b.found, -1
	}
	// The query's code (i8.go): qs, qn = |q̃|, and qe, the bound of
	// |e_q·x| for a stored row (|x| <= 1 + 1e-5) plus the rounding slack of
	// the float32 product the bound must dominate.
	qs, qerr := quantize(sc.qc, q)
	qn := codeNorm(sc.qc, qs)
	qsum := sumCode(sc.qc)
	qe := float64(qerr) * (1 + 1e-5)
	if cap(sc.a) < g {
		sc.a = make([]float32, g, 2*g)
		sc.pd = make([]int32, g, 2*g)
	}
	a := sc.a[:g]
	// Int8 pivot codes rather than a float32 Gemv over the pivots: at
	// 100,000 rows (6,449 lists) 1.5 ms per joining query instead of 2.5,
	// for bounds only slightly looser (3,659 int8 row products instead of
	// 3,248).
	l.scanCodes(sc.qc, qs, qn, qe, sc.pd[:g], a)
	sc.dots = g
	near = 0
	order := sc.order[:0]
	for i, ai := range a {
		if ai > a[near] {
			near = i
		}
		if ub := bound(ai, l.minCos[i], l.slack); ub >= b.bar {
			order = append(order, orderKey(ub, i))
		}
	}
	// Highest bound first: the list holding the answer usually comes first
	// and raises the bar for the rest.
	slices.Sort(order)
	slackQ := qe + l.slack
	var pendBuf [prefetchAhead]pending
	pend := pendBuf[:0]
	for _, k := range order {
		eub, list := unKey(k)
		if eub < b.bar {
			break // every remaining bound is lower still
		}
		// The pivot's angular bound (a few flops from stored cos(x, p))
		// first, then the 2-bit and 4-bit code bounds, then the exact
		// product. Skipping rows by the angular bound beat streaming every
		// row of the list through the int8 kernel (at 100,000 rows: 3,700
		// int8 products per joining query instead of 12,000; 1.5 ms
		// instead of 2.0, with int8 row codes then).
		af := min(1, float64(a[list])+l.slack)
		sa := math.Sqrt(1 - af*af)
		info := l.info[list]
		for i, m := range l.bounds[list] {
			ub := 1.0
			if lo := float64(m.lo); af < lo {
				ub = af*lo + sa*float64(m.sin)
			}
			if ub < b.bar {
				continue
			}
			// Rows that pass wait in a short queue, their codes
			// prefetched, so that fetching one row from memory overlaps
			// with the products of the rows before it.
			c := l.code2(int(list), i)
			prefetch(&c[0], len(c))
			prefetch((*byte)(unsafe.Pointer(&info[i])), 1)
			if len(pend) == cap(pend) {
				ix.checkRow(sc, q, qs, qsum, qn, slackQ, pend[0], &b)
				pend = append(pend[:0], pend[1:]...)
			}
			pend = append(pend, pending{list, int32(i), ub})
		}
	}
	for _, p := range pend {
		ix.checkRow(sc, q, qs, qsum, qn, slackQ, p, &b)
	}
	sc.order = order
	return b.slot, b.sim, b.found, near
}

var oracleBar float64

// prefetchAhead is how many rows the search keeps in flight between
// prefetching a row's 2-bit code and taking its product (16 measured the
// same as 8).
const prefetchAhead = 8

type pending struct {
	list, i int32
	ub      float64 // the pivot's angular bound of the row
}

// checkRow takes the 2-bit bound (i2.go) of a queued row, then its 4-bit
// bound (i4.go) and, if it could still reach the bar, its exact product.
func (ix *Index) checkRow(sc *scratch, q []float32, qs float32, qsum int32, qn, slackQ float64, p pending, b *best) {
	if p.ub < b.bar {
		return // the bar rose since the row was queued
	}
	l := &ix.lists
	m := &l.info[p.list][p.i]
	sc.codeDots++
	d2 := dot2(sc.qc2, qsum, l.code2(int(p.list), int(p.i)))
	if float64(qs)*float64(m.scale2)*float64(d2)+qn*float64(m.cerr2)+slackQ < b.bar {
		return
	}
	d := dot4(sc.qc, qsum, l.code(int(p.list), int(p.i)))
	if float64(qs)*float64(m.scale)*float64(d)+qn*float64(m.cerr)+slackQ < b.bar {
		return
	}
	// Removed rows keep valid codes; they are skipped only here, as few
	// rows get this far (a check of alive for every queued row was a
	// cache miss each, a tenth of the search's time).
	r := m.slot
	if !ix.alive[r] {
		return
	}
	sc.rowDots++
	b.offer(ix, r, dot(q, ix.row(r)))
}
