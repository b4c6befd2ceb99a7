package memstream

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/samem/trainer/cluster"
	"github.com/samem/trainer/llm"
)

// Retrieval without scoring every memory.
//
// Score (seed 001 Sec. 4.1) min-max normalises recency, importance and
// relevance over all memories, so the k best memories depend on the
// smallest and largest of each over the whole stream. Retrieve finds them
// without computing every memory's score, and returns exactly the first k
// of Score (TestRetrieveEqualsScan):
//
//   - Relevance is a function of a memory's text: each distinct text is a
//     row holding its vector as the embedder returned it (the exact cosine
//     is computed from these, as Score computes it) and the int8 code of
//     its unit vector (cluster.Quantize). One integer product per row
//     (cluster.DotsI8, a quarter of the bytes of a float32 scan) bounds
//     every row's cosine within about ±0.02; a float32 product (within
//     1e-4) and then the exact cosine are computed only for the rows whose
//     bounds reach the smallest upper or the largest lower bound, which
//     gives the exact minimum and maximum.
//   - Recency is decay^(now - last access); a table of decay^a (the very
//     values math.Pow gives Score) turns ages into values, and when the
//     table is non-increasing the extremes come from the oldest and newest
//     access times. Each row keeps its memories in a list ordered by last
//     access, so the oldest and newest access of the stream are found per
//     row, and importance's range never changes but by an addition.
//   - With the three ranges known, a row bounds the scores of all its
//     memories (its newest access, its largest importance, its relevance
//     bound), and its newest memory's score has a lower bound. Rows whose
//     bound is below the k-th largest lower bound cannot hold any of the k
//     best memories (k memories score at least that). The other rows are
//     walked from their newest memory, each memory bounded alone, until the
//     recency left in the row cannot reach; the memories kept are scored
//     exactly, best bound first, until the next bound is below the k-th
//     exact score.
//
// Bounds carry a margin for floating-point rounding (relBound, dotBound,
// the slack of top), so they hold for every input; what the bounds cannot
// describe (a vector of another dimension, or not finite; very old access
// times; small streams) is scored as Score scores it.

// relBound widens the int8 cosine bound: it is for the unit vectors rounded
// to float32 (about 1e-7 from the exact unit vectors on which Score's
// float64 cosine is computed).
const relBound = 1e-6

// dotBound bounds the error of a cosine computed as a float32 product of
// the embedder's vectors of dimension n divided by their float64 norms: a
// sum of n float32 products, in any order, is within
// n·2^-24/(1-n·2^-24)·|q||x| of the exact one (6.1e-5 for n = 1024),
// widened here for the products' own rounding and the division.
func dotBound(n int) float64 {
	e := float64(n+2) * 0x1p-24
	return 1.01*e/(1-e) + 1e-7
}

// scanBelow is the number of memories under which Retrieve scores every
// memory: bounds cannot save anything there.
const scanBelow = 64

// maxAge bounds the recency table (8 bytes per step of age).
const maxAge = 1 << 22

// segment is a run of rows, numbered from off. A segment seen by a copy of
// its stream (shared) is never changed below its length; its map is cloned
// before the next write.
type segment struct {
	off    int32
	ids    map[string]int32 // text -> row
	shared bool
	raw    [][]float32 // the embedder's vectors
	norm   []float64   // their norms (0: a zero vector, relevance 0 as in Score)
	code   []int8      // int8 codes of the unit vectors, cdim per row
	scale  []float32
	errn   []float32
}

func (g *segment) rows() int32 { return int32(len(g.raw)) }

// view is the segment as a copy sees it: its rows so far, read-only.
func (g *segment) view() *segment {
	g.shared = true
	return &segment{off: g.off, ids: g.ids, shared: true, raw: slices.Clip(g.raw), norm: slices.Clip(g.norm),
		code: slices.Clip(g.code), scale: slices.Clip(g.scale), errn: slices.Clip(g.errn)}
}

// index is a stream's retrieval index: its rows (segments shared with the
// stream it was copied from, then its own), each row's list of memories by
// access time, and per memory its row and importance.
type index struct {
	frozen []*segment
	own    *segment
	// Per memory: its text's row (-1 until embedded), its importance, and
	// its neighbours in its row's list (older, newer; -1: none).
	tid        []int32
	imp        []float64
	prev, next []int32
	// Per row: its oldest and newest memory, and the range of its
	// memories' importance.
	head, tail       []int32
	rowImin, rowImax []float64
	// pending are the memories whose text has no row yet.
	pending    []int
	imin, imax float64
	dim, cdim  int
	// unbounded: a vector of another dimension or not finite was seen;
	// Retrieve scores every memory.
	unbounded bool
	queries   map[string][]float32 // vectors of recent queries
	// pw[a] = math.Pow(pwDecay, a); pwDown: pw is non-increasing.
	pw      []float64
	pwDecay float64
	pwDown  bool
	sc      scratch
}

// scratch is the per-query working memory, kept between queries.
type scratch struct {
	qcode         []int8
	dots          []int32
	lo, hi, exact []float64
	known         []bool
	rows          []candidate
	cand          []candidate
	top           []float64
	// scored, cosines and walked count the memories scored exactly, the
	// exact cosines computed and the memories bounded one by one in the
	// last bounded search (all 0 after a scan).
	scored, cosines, walked int
}

type candidate struct {
	i int     // memory (or row)
	u float64 // upper bound of its score
}

// maxQueries bounds the query vectors kept (a query is asked again when a
// task's observation comes back in a later iteration).
const maxQueries = 4096

func (ix *index) added(m Memory) {
	if len(ix.tid) == 0 || m.Importance < ix.imin {
		ix.imin = m.Importance
	}
	if len(ix.tid) == 0 || m.Importance > ix.imax {
		ix.imax = m.Importance
	}
	ix.tid = append(ix.tid, -1)
	ix.imp = append(ix.imp, m.Importance)
	ix.prev = append(ix.prev, -1)
	ix.next = append(ix.next, -1)
	ix.pending = append(ix.pending, len(ix.tid)-1)
}

// copy is the index of Stream.Copy: this index's rows, read-only, and
// rows of its own from there on.
func (ix *index) copy() index {
	c := index{
		tid: slices.Clone(ix.tid), imp: slices.Clip(ix.imp), prev: slices.Clone(ix.prev), next: slices.Clone(ix.next),
		head: slices.Clone(ix.head), tail: slices.Clone(ix.tail), rowImin: slices.Clone(ix.rowImin), rowImax: slices.Clone(ix.rowImax),
		pending: slices.Clone(ix.pending), imin: ix.imin, imax: ix.imax, dim: ix.dim, cdim: ix.cdim, unbounded: ix.unbounded,
		pw: slices.Clip(ix.pw), pwDecay: ix.pwDecay, pwDown: ix.pwDown,
	}
	c.frozen = slices.Clip(ix.frozen)
	if ix.own != nil {
		c.frozen = append(c.frozen, ix.own.view())
	}
	return c
}

func (ix *index) segments() []*segment {
	if ix.own == nil {
		return ix.frozen
	}
	return append(slices.Clip(ix.frozen), ix.own)
}

func (ix *index) lookup(text string) (int32, bool) {
	if ix.own != nil {
		if r, ok := ix.own.ids[text]; ok {
			return r, true
		}
	}
	for _, g := range ix.frozen {
		if r, ok := g.ids[text]; ok {
			return r, true
		}
	}
	return -1, false
}

// segmentOf returns the segment holding row.
func (ix *index) segmentOf(row int32) *segment {
	if ix.own != nil && row >= ix.own.off {
		return ix.own
	}
	i, _ := slices.BinarySearchFunc(ix.frozen, row, func(g *segment, r int32) int {
		if r < g.off {
			return 1
		}
		if r >= g.off+g.rows() {
			return -1
		}
		return 0
	})
	return ix.frozen[i]
}

// raw is row's vector as the embedder returned it.
func (ix *index) raw(row int32) []float32 {
	g := ix.segmentOf(row)
	return g.raw[row-g.off]
}

// rows is the number of rows.
func (ix *index) rows() int32 {
	if ix.own != nil {
		return ix.own.off + ix.own.rows()
	}
	if n := len(ix.frozen); n > 0 {
		return ix.frozen[n-1].off + ix.frozen[n-1].rows()
	}
	return 0
}

// queryVec is the vector of a query embedded by Stream.embed.
func (ix *index) queryVec(text string) []float32 {
	if v, ok := ix.queries[text]; ok {
		return v
	}
	if r, ok := ix.lookup(text); ok {
		return ix.raw(r)
	}
	return nil
}

// addRow adds text's row with vector v.
func (ix *index) addRow(text string, v []float32) int32 {
	if ix.own == nil {
		ix.own = &segment{off: ix.rows(), ids: map[string]int32{}}
	}
	g := ix.own
	if g.shared {
		g.ids = clone(g.ids)
		g.shared = false
	}
	row := g.off + g.rows()
	g.ids[text] = row
	g.raw = append(g.raw, v)
	if ix.dim == 0 && len(v) > 0 {
		ix.dim, ix.cdim = len(v), cluster.CodeDim(len(v))
	}
	unit, norm, ok := unitVector(v)
	if len(v) != ix.dim || !ok || float64(ix.dim)*0x1p-24 > 0.01 {
		ix.unbounded = true
	}
	code := make([]int8, ix.cdim)
	var scale, errn float32
	if !ix.unbounded && norm > 0 {
		scale, errn = cluster.Quantize(code, unit)
	}
	g.norm = append(g.norm, norm)
	g.code = append(g.code, code...)
	g.scale = append(g.scale, scale)
	g.errn = append(g.errn, errn)
	ix.head = append(ix.head, -1)
	ix.tail = append(ix.tail, -1)
	ix.rowImin = append(ix.rowImin, math.Inf(1))
	ix.rowImax = append(ix.rowImax, math.Inf(-1))
	return row
}

func clone(m map[string]int32) map[string]int32 {
	out := make(map[string]int32, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// link puts memory i, of access time last[i], into its row's list.
func (ix *index) link(i int, last []int) {
	t := ix.tid[i]
	ix.rowImin[t] = min(ix.rowImin[t], ix.imp[i])
	ix.rowImax[t] = max(ix.rowImax[t], ix.imp[i])
	// The list is ordered by access time, oldest first; a memory is almost
	// always the newest of its row.
	p := ix.tail[t]
	for p >= 0 && last[p] > last[i] {
		p = ix.prev[p]
	}
	var n int32 = -1
	if p >= 0 {
		n = ix.next[p]
		ix.next[p] = int32(i)
	} else {
		n = ix.head[t]
		ix.head[t] = int32(i)
	}
	if n >= 0 {
		ix.prev[n] = int32(i)
	} else {
		ix.tail[t] = int32(i)
	}
	ix.prev[i], ix.next[i] = p, n
}

// unlink takes memory i out of its row's list.
func (ix *index) unlink(i int) {
	t, p, n := ix.tid[i], ix.prev[i], ix.next[i]
	if p >= 0 {
		ix.next[p] = n
	} else {
		ix.head[t] = n
	}
	if n >= 0 {
		ix.prev[n] = p
	} else {
		ix.tail[t] = p
	}
	ix.prev[i], ix.next[i] = -1, -1
}

// accessed moves memory i, whose access time last[i] has just changed, in
// its row's list.
func (ix *index) accessed(i int, last []int) {
	if ix.tid[i] < 0 {
		return // not in a list yet
	}
	ix.unlink(i)
	ix.link(i, last)
}

// unitVector returns v scaled to unit length (nil for a zero vector), its
// norm, and false when a component is not finite.
func unitVector(v []float32) ([]float32, float64, bool) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, 0, false
	}
	if n == 0 {
		return nil, 0, true
	}
	norm := math.Sqrt(n)
	u := make([]float32, len(v))
	for i, x := range v {
		u[i] = float32(float64(x) / norm)
	}
	return u, norm, true
}

// embed gives every memory's text a row and the query a vector, asking
// the embedder once for those it has not seen (the query first, then the
// memories' texts in order, each once).
func (s *Stream) embed(ctx context.Context, emb llm.Embedder, query string) error {
	ix := &s.ix
	if len(ix.pending) == 0 && ix.queryVec(query) != nil {
		return nil
	}
	pending := map[string]bool{}
	for _, i := range ix.pending {
		pending[s.mems[i].Text] = true
	}
	var miss []string
	seen := map[string]bool{}
	need := func(t string, isMemory bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		if _, ok := ix.lookup(t); ok {
			return
		}
		if _, ok := ix.queries[t]; ok && !isMemory {
			return
		}
		miss = append(miss, t)
	}
	need(query, pending[query])
	for _, i := range ix.pending {
		need(s.mems[i].Text, true)
	}
	if len(miss) > 0 {
		vs, err := emb.Embed(ctx, miss)
		if err != nil {
			return fmt.Errorf("embed %d memories: %w", len(miss), err)
		}
		if len(vs) != len(miss) {
			return fmt.Errorf("embed %d memories: got %d vectors", len(miss), len(vs))
		}
		for j, t := range miss {
			if pending[t] {
				ix.addRow(t, vs[j])
				continue
			}
			if len(ix.queries) >= maxQueries || ix.queries == nil {
				ix.queries = map[string][]float32{}
			}
			ix.queries[t] = vs[j]
		}
	}
	// Into the rows' lists, oldest access first (a restored stream's
	// memories come in creation order, not access order).
	slices.SortStableFunc(ix.pending, func(a, b int) int { return cmp.Compare(s.last[a], s.last[b]) })
	for _, i := range ix.pending {
		ix.tid[i], _ = ix.lookup(s.mems[i].Text)
		ix.link(i, s.last)
	}
	ix.pending = ix.pending[:0]
	return nil
}

// top is Retrieve's search: the first k of Score(query, nil).
func (s *Stream) top(ctx context.Context, emb llm.Embedder, query string, now, k int, decay float64, w Weights) ([]Scored, error) {
	if err := s.embed(ctx, emb, query); err != nil {
		return nil, err
	}
	n := len(s.mems)
	if n == 0 || k <= 0 {
		return nil, nil
	}
	ix := &s.ix
	sc := &ix.sc
	sc.scored, sc.cosines, sc.walked = 0, 0, 0
	q := ix.queryVec(query)
	qu, qnorm, qok := unitVector(q)
	if ix.unbounded || n < scanBelow || 4*k >= n || len(q) != ix.dim || !qok || qu == nil {
		return s.scan(ctx, emb, query, now, k, decay, w)
	}
	rows := int(ix.rows())
	// The recency range, from each row's oldest and newest memory.
	minLast, maxLast := math.MaxInt, math.MinInt
	for t := range rows {
		if h := ix.head[t]; h >= 0 {
			minLast = min(minLast, s.last[h])
			maxLast = max(maxLast, s.last[ix.tail[t]])
		}
	}
	oldest, newest := max(0, now-minLast), max(0, now-maxLast)
	if oldest >= maxAge {
		return s.scan(ctx, emb, query, now, k, decay, w)
	}
	ix.ages(decay, oldest)
	var recLo, recHi float64
	if ix.pwDown {
		recLo, recHi = ix.pw[oldest], ix.pw[newest]
	} else {
		recLo, recHi = math.Inf(1), math.Inf(-1)
		for _, l := range s.last {
			r := ix.pw[max(0, now-l)]
			recLo, recHi = min(recLo, r), max(recHi, r)
		}
	}
	// The relevance range: bounds for every row, exact cosines where they
	// cannot decide.
	relLo, relHi := ix.relevanceRange(q, qu, qnorm)
	inv := func(lo, hi float64) float64 {
		if hi > lo {
			return 1 / (hi - lo)
		}
		return 0
	}
	invRec, invImp, invRel := inv(recLo, recHi), inv(ix.imin, ix.imax), inv(relLo, relHi)
	recPart := func(i int32) float64 { return w.Recency * ((ix.pw[max(0, now-s.last[i])] - recLo) * invRec) }
	impPart := func(x float64) float64 { return w.Importance * ((x - ix.imin) * invImp) }
	// Per row, the bounds of the relevance term (into sc.lo, sc.hi).
	lo, hi := sc.lo[:rows], sc.hi[:rows]
	for t := range rows {
		a, b := lo[t], hi[t]
		if sc.known[t] {
			a, b = sc.exact[t], sc.exact[t]
		}
		a = max(0, min(1, (a-relLo)*invRel))
		b = max(0, min(1, (b-relLo)*invRel))
		if w.Relevance >= 0 {
			lo[t], hi[t] = w.Relevance*a, w.Relevance*b
		} else {
			lo[t], hi[t] = w.Relevance*b, w.Relevance*a
		}
	}
	slack := 1e-9 * (1 + math.Abs(w.Recency) + math.Abs(w.Importance) + math.Abs(w.Relevance))
	// Older memories of a row have no more recency than newer ones when
	// recency counts positively and the table falls with age.
	ordered := ix.pwDown && w.Recency >= 0
	rowImp := func(t int) float64 { return max(impPart(ix.rowImin[t]), impPart(ix.rowImax[t])) }
	// Each row: a bound for all its memories, and its newest memory's lower
	// bound towards the k-th largest (floor).
	top := sc.top[:0]
	floor := math.Inf(-1)
	push := func(lb float64) {
		if len(top) < k || lb > top[0] {
			top = pushTop(top, lb, k)
			if len(top) == k {
				floor = top[0]
			}
		}
	}
	cand := sc.rows[:0]
	for t := range rows {
		nw := ix.tail[t]
		if nw < 0 {
			continue
		}
		r := recPart(nw)
		rmax := r
		if !ordered {
			rmax = max(0, w.Recency)
			if ix.pwDown {
				rmax = max(r, recPart(ix.head[t]))
			}
		}
		u := rmax + rowImp(t) + hi[t] + slack
		if u >= floor {
			cand = append(cand, candidate{t, u})
		}
		push(r + impPart(ix.imp[nw]) + lo[t] - slack)
	}
	// The rows that may hold one of the k best, best bound first: each
	// memory bounded alone, from the newest, until the row's recency left
	// cannot reach the floor.
	slices.SortFunc(cand, func(a, b candidate) int { return cmp.Compare(b.u, a.u) })
	mems := sc.cand[:0]
	for _, rc := range cand {
		if rc.u < floor {
			break
		}
		t := rc.i
		imp := rowImp(t)
		for m := ix.tail[t]; m >= 0; m = ix.prev[m] {
			sc.walked++
			r := recPart(m)
			if ordered && r+imp+hi[t]+slack < floor {
				break
			}
			base := r + impPart(ix.imp[m])
			if u := base + hi[t] + slack; u >= floor {
				mems = append(mems, candidate{int(m), u})
			}
			if m != ix.tail[t] { // the newest one's bound is in already
				push(base + lo[t] - slack)
			}
		}
	}
	sc.top, sc.rows, sc.cand = top, cand, mems
	// Exact scores, best bound first, until no memory left can reach the
	// k-th exact score.
	slices.SortFunc(mems, func(a, b candidate) int { return cmp.Compare(b.u, a.u) })
	norm := func(x, lo, hi float64) float64 {
		if hi > lo {
			return (x - lo) / (hi - lo)
		}
		return 0
	}
	var best []Scored
	for _, c := range mems {
		if c.u < floor || len(best) == k && c.u < best[k-1].Score {
			break
		}
		sc.scored++
		m := s.memory(c.i)
		rec := norm(ix.pw[max(0, now-m.LastAccess)], recLo, recHi)
		imp := norm(m.Importance, ix.imin, ix.imax)
		rel := norm(ix.exactRel(q, ix.tid[c.i]), relLo, relHi)
		x := Scored{Memory: m, Recency: rec, Importance: imp, Relevance: rel,
			Score: w.Recency*rec + w.Importance*imp + w.Relevance*rel}
		j, _ := slices.BinarySearchFunc(best, x, byScore)
		if j < k {
			best = slices.Insert(best, j, x)
			best = best[:min(len(best), k)]
		}
	}
	return best, nil
}

// scan is top by scoring every memory (Score).
func (s *Stream) scan(ctx context.Context, emb llm.Embedder, query string, now, k int, decay float64, w Weights) ([]Scored, error) {
	sc, err := s.Score(ctx, emb, query, now, decay, w, nil)
	return sc[:min(k, len(sc))], err
}

// pushTop keeps the k largest values in top (ascending, top[0] the
// smallest) with v added.
func pushTop(top []float64, v float64, k int) []float64 {
	j, _ := slices.BinarySearch(top, v)
	top = slices.Insert(top, j, v)
	if len(top) > k {
		top = top[1:]
	}
	return top
}

// ages makes pw cover ages 0..oldest for decay, and pwDown tell whether it
// is non-increasing there.
func (ix *index) ages(decay float64, oldest int) {
	if ix.pwDecay != decay || len(ix.pw) == 0 {
		ix.pw, ix.pwDecay, ix.pwDown = nil, decay, true
	}
	for a := len(ix.pw); a <= oldest; a++ {
		v := math.Pow(decay, float64(a))
		if a > 0 && v > ix.pw[a-1] {
			ix.pwDown = false
		}
		ix.pw = append(ix.pw, v)
	}
}

// relevanceRange bounds every row's cosine with q (sc.lo, sc.hi) and
// returns the exact smallest and largest cosine over the rows, computing
// exact cosines (sc.exact, sc.known) only where the bounds leave it open.
// qu is q's unit vector and qnorm its norm.
func (ix *index) relevanceRange(q, qu []float32, qnorm float64) (lo, hi float64) {
	sc := &ix.sc
	rows := int(ix.rows())
	grow := func(xs []float64) []float64 {
		if cap(xs) < rows {
			return make([]float64, rows, rows+rows/4)
		}
		return xs[:rows]
	}
	sc.lo, sc.hi, sc.exact = grow(sc.lo), grow(sc.hi), grow(sc.exact)
	if cap(sc.known) < rows {
		sc.known = make([]bool, rows, rows+rows/4)
	}
	sc.known = sc.known[:rows]
	clear(sc.known)
	if cap(sc.dots) < rows {
		sc.dots = make([]int32, rows, rows+rows/4)
	}
	dots := sc.dots[:rows]
	if cap(sc.qcode) < ix.cdim {
		sc.qcode = make([]int8, ix.cdim)
	}
	qcode := sc.qcode[:ix.cdim]
	qs, qe := cluster.Quantize(qcode, qu)
	qn := cluster.CodeNorm(qcode, qs)
	minHi, maxLo := math.Inf(1), math.Inf(-1)
	segs := ix.segments()
	for _, g := range segs {
		n := int(g.rows())
		if n == 0 {
			continue
		}
		off := int(g.off)
		cluster.DotsI8(qcode, g.code[:n*ix.cdim], dots[off:off+n])
		for j := range n {
			t := off + j
			if g.norm[j] == 0 {
				sc.lo[t], sc.hi[t] = 0, 0
			} else {
				est := float64(qs) * float64(g.scale[j]) * float64(dots[t])
				m := qn*float64(g.errn[j]) + float64(qe)*(1+relBound) + relBound
				sc.lo[t], sc.hi[t] = max(-1, est-m), min(1, est+m)
			}
			minHi = min(minHi, sc.hi[t])
			maxLo = max(maxLo, sc.lo[t])
		}
	}
	// The rows the int8 bounds leave open get a float32 product (within
	// dotBound), which narrows them; the exact cosine settles the rest.
	qv := blas32.Vector{N: len(q), Inc: 1, Data: q}
	eps := dotBound(len(q))
	narrow := func(t int) {
		g := ix.segmentOf(int32(t))
		j := t - int(g.off)
		if g.norm[j] == 0 {
			return
		}
		f := float64(blas32.Dot(qv, blas32.Vector{N: len(q), Inc: 1, Data: g.raw[j]})) / (qnorm * g.norm[j])
		sc.lo[t], sc.hi[t] = max(sc.lo[t], f-eps), min(sc.hi[t], f+eps)
	}
	var open []int
	for t := range rows {
		if sc.lo[t] <= minHi || sc.hi[t] >= maxLo {
			open = append(open, t)
		}
	}
	for _, t := range open {
		narrow(t)
	}
	minHi, maxLo = math.Inf(1), math.Inf(-1)
	for _, t := range open {
		minHi = min(minHi, sc.hi[t])
		maxLo = max(maxLo, sc.lo[t])
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, t := range open {
		if sc.lo[t] <= minHi {
			lo = min(lo, ix.exactRel(q, int32(t)))
		}
		if sc.hi[t] >= maxLo {
			hi = max(hi, ix.exactRel(q, int32(t)))
		}
	}
	return lo, hi
}

// exactRel is row's cosine with q as Score computes it, computed once per
// query.
func (ix *index) exactRel(q []float32, row int32) float64 {
	sc := &ix.sc
	if !sc.known[row] {
		sc.cosines++
		sc.exact[row] = cosine(q, ix.raw(row))
		sc.known[row] = true
	}
	return sc.exact[row]
}
