package cluster

import (
	"cmp"
	"math"
	"slices"
)

// scratch holds one search's buffers; pooled so concurrent readers do not
// share them.
type scratch struct {
	q     []float32
	a     []float32 // cos(q, pivot) per list
	order []entry
	// dots and rowDots count the list pivots scanned and the rows given an
	// exact dot product by the last search, for tests and tuning.
	dots, rowDots int
}

type entry struct {
	list int32
	ub   float64
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
	b := best{bar: float64(ix.cfg.Threshold)}
	sc.dots, sc.rowDots = 0, 0
	if ix.graph != nil && ix.inGraph > 0 {
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
	if cap(sc.a) < g {
		sc.a = make([]float32, g, 2*g)
	}
	a := sc.a[:g]
	l.scan(q, a)
	sc.dots = g
	near = 0
	order := sc.order[:0]
	for i, ai := range a {
		if ai > a[near] {
			near = i
		}
		if ub := bound(ai, l.minCos[i], l.slack); ub >= b.bar {
			order = append(order, entry{int32(i), ub})
		}
	}
	// Highest bound first: the list holding the answer usually comes first
	// and raises the bar for the rest.
	slices.SortFunc(order, func(x, y entry) int { return cmp.Compare(y.ub, x.ub) })
	for _, e := range order {
		if e.ub < b.bar {
			break // every remaining bound is lower still
		}
		af := min(1, float64(a[e.list])+l.slack)
		sa := math.Sqrt(1 - af*af)
		lo, sin := l.lo[e.list], l.sin[e.list]
		for i, r := range l.rows[e.list] {
			if af < lo[i] && af*lo[i]+sa*sin[i] < b.bar {
				continue
			}
			if !ix.alive[r] {
				continue
			}
			sc.rowDots++
			b.offer(ix, r, dot(q, ix.row(r)))
		}
	}
	sc.order = order
	return b.slot, b.sim, b.found, near
}
