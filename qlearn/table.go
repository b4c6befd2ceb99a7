package qlearn

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrNotFinite is returned (wrapped) by Update, Set and FromEntries when a
// reward or Q-value is NaN or infinite; the table is left unchanged.
var ErrNotFinite = errors.New("qlearn: value is not finite")

// ErrEntries is returned (wrapped) by FromEntries when the entries are not a
// valid table (a duplicate pair or a negative visit count).
var ErrEntries = errors.New("qlearn: invalid entries")

// Entry is one (state, thought) pair of the table.
type Entry struct {
	State   int64   // state cluster id
	Thought int64   // thought cluster id
	Q       float64 // Q(state, thought)
	// Visits counts the Updates of this pair (Set does not count).
	Visits int64
	// LastStep is the step passed to the last Update of this pair (the
	// trainer's global step counter); 0 if never updated.
	LastStep int64
}

// cell is an entry inside its state's row.
type cell struct {
	th     int64
	q      float64
	visits int64
	last   int64
}

// row is one state's entries. index maps a thought id to its position in
// cells; nonzero counts the cells with q != 0 (for NonZero and DropEmpty).
type row struct {
	cells   []cell
	index   map[int64]int32
	nonzero int
}

// column counts one thought's entries across all rows.
type column struct {
	n, nonzero int
}

// Table is a sparse Q-table over (state id, thought id), stored as one row
// per state so that Update, Best and MaxQ cost O(row size), independent of
// the number of states and thoughts (the per-step overhead must stay far
// below 1 ms at 10,000 x 10,000; docs/PERFORMANCE.md).
//
// Pairs that are not stored have Q = 0 (Algorithm 1, line 1: the table is
// initialised to 0). A Table is not safe for concurrent use; see the package
// comment. The zero value is not usable: call New or FromEntries.
type Table struct {
	p    Params
	rows map[int64]*row
	cols map[int64]*column
	n    int
}

// New returns an empty table with validated parameters.
func New(p Params) (*Table, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Table{p: p, rows: make(map[int64]*row), cols: make(map[int64]*column)}, nil
}

// FromEntries returns a table holding entries, e.g. as loaded from a
// checkpoint. It fails with ErrParams, ErrNotFinite or ErrEntries (a pair
// given twice, negative visits) and then returns no table.
func FromEntries(p Params, entries []Entry) (*Table, error) {
	t, err := New(p)
	if err != nil {
		return nil, err
	}
	for i, e := range entries {
		if !finite(e.Q) {
			return nil, fmt.Errorf("entry %d (state %d, thought %d): q %v: %w", i, e.State, e.Thought, e.Q, ErrNotFinite)
		}
		if e.Visits < 0 {
			return nil, fmt.Errorf("%w: entry %d (state %d, thought %d): negative visits %d", ErrEntries, i, e.State, e.Thought, e.Visits)
		}
		c, created := t.cell(e.State, e.Thought)
		if !created {
			return nil, fmt.Errorf("%w: entry %d: pair (state %d, thought %d) given twice", ErrEntries, i, e.State, e.Thought)
		}
		t.setQ(e.State, c, e.Thought, e.Q)
		c.visits, c.last = e.Visits, e.LastStep
	}
	return t, nil
}

// Params returns the table's learning parameters.
func (t *Table) Params() Params { return t.p }

// Len is the number of stored entries.
func (t *Table) Len() int { return t.n }

// NonZeroLen is the number of stored entries whose Q is not 0. Forgetting
// (seed 002 Sec. 3.2) prunes a thought softly, by setting its Q to 0, and
// removes only rows and columns left empty, so Len keeps counting a pruned
// entry while NonZeroLen does not.
func (t *Table) NonZeroLen() int {
	n := 0
	for _, r := range t.rows {
		n += r.nonzero
	}
	return n
}

// States is the number of state rows holding at least one entry.
func (t *Table) States() int { return len(t.rows) }

// StateIDs returns the ids of the state rows, in increasing order.
func (t *Table) StateIDs() []int64 {
	ids := make([]int64, 0, len(t.rows))
	for s := range t.rows {
		ids = append(ids, s)
	}
	slices.Sort(ids)
	return ids
}

// Thoughts is the number of thought columns holding at least one entry.
func (t *Table) Thoughts() int { return len(t.cols) }

// HasState reports whether state s has a row.
func (t *Table) HasState(s int64) bool { return t.rows[s] != nil }

// HasThought reports whether thought th has an entry in some row.
func (t *Table) HasThought(th int64) bool { return t.cols[th] != nil }

// cell returns the cell of (s, th), creating it (q 0, no visits) if absent.
func (t *Table) cell(s, th int64) (c *cell, created bool) {
	r := t.rows[s]
	if r == nil {
		r = &row{index: make(map[int64]int32, 4)}
		t.rows[s] = r
	}
	if i, ok := r.index[th]; ok {
		return &r.cells[i], false
	}
	r.index[th] = int32(len(r.cells))
	r.cells = append(r.cells, cell{th: th})
	col := t.cols[th]
	if col == nil {
		col = &column{}
		t.cols[th] = col
	}
	col.n++
	t.n++
	return &r.cells[len(r.cells)-1], true
}

// setQ sets c.q keeping the non-zero counts of its row and column.
func (t *Table) setQ(s int64, c *cell, th int64, q float64) {
	was, is := c.q != 0, q != 0
	c.q = q
	if was == is {
		return
	}
	d := 1
	if was {
		d = -1
	}
	t.rows[s].nonzero += d
	t.cols[th].nonzero += d
}

// Update applies one Q-learning step for the transition (s, th, reward,
// next), seed 002 Eq. 4-5:
//
//	Q' = reward + Gamma * MaxQ(next)   (Q' = reward when terminal)
//	Q(s, th) <- (1 - Alpha) Q(s, th) + Alpha Q'
//
// creating the entry if absent, counting a visit and recording step as its
// last update step. A terminal transition does not bootstrap from next;
// the caller decides what is terminal: SAMem passes won or lost only, and
// bootstraps a truncation at the step limit, which is not a property of the
// state (docs/ARCHITECTURE.md, "Terminal steps"). It returns the new Q(s, th),
// or ErrNotFinite (and changes nothing) when reward is NaN or infinite.
func (t *Table) Update(s, th int64, reward float64, next int64, terminal bool, step int64) (float64, error) {
	if !finite(reward) {
		return math.NaN(), fmt.Errorf("update (state %d, thought %d): reward %v: %w", s, th, reward, ErrNotFinite)
	}
	// Create the entry first so that MaxQ sees its thought column: when the
	// thought is new, every other state now has an implicit 0 for it.
	c, _ := t.cell(s, th)
	target := reward
	if !terminal {
		target += t.p.Gamma * t.MaxQ(next)
	}
	// MaxQ may have grown no slice (it only reads), so c is still valid.
	q := (1-t.p.Alpha)*c.q + t.p.Alpha*target
	t.setQ(s, c, th, q)
	c.visits++
	c.last = step
	return q, nil
}

// MaxQ is max over all thoughts th of Q(s, th), the bootstrap term of Eq. 4.
// Unstored pairs count as 0 (Algorithm 1 initialises Q to 0), so the result
// is 0 for a state without a row, and never below 0 unless the row holds an
// entry for every thought in the table.
func (t *Table) MaxQ(s int64) float64 {
	r := t.rows[s]
	if r == nil {
		return 0
	}
	m := math.Inf(-1)
	for i := range r.cells {
		if r.cells[i].q > m {
			m = r.cells[i].q
		}
	}
	if len(r.cells) < len(t.cols) && m < 0 {
		m = 0
	}
	return m
}

// better is the order of Best: higher q, then more visits (better tested),
// then smaller thought id (older cluster), so that ties never depend on map
// order and runs are reproducible.
func better(a, b *cell) bool {
	if a.q != b.q {
		return a.q > b.q
	}
	if a.visits != b.visits {
		return a.visits > b.visits
	}
	return a.th < b.th
}

// Best returns argmax_th Q(s, th) over the stored entries of state s (seed
// 002 Eq. 6 and Sec. 3.3), ties broken by more visits, then smaller thought
// id. ok is false when s has no entries. The best q may be 0 or negative;
// whether such a thought is worth following is the caller's decision.
func (t *Table) Best(s int64) (th int64, q float64, ok bool) {
	r := t.rows[s]
	if r == nil || len(r.cells) == 0 {
		return 0, 0, false
	}
	b := &r.cells[0]
	for i := 1; i < len(r.cells); i++ {
		if better(&r.cells[i], b) {
			b = &r.cells[i]
		}
	}
	return b.th, b.q, true
}

// BestWithin is Best with near-ties: of the entries of state s whose Q is
// at least best - margin*|best| (best the highest Q of the row), the most
// visited one, then the higher Q, then the smaller thought id. margin 0 is
// Best. It returns the chosen entry's own Q. Seed 002 (Eq. 6, Sec. 3.3)
// takes a plain argmax; this is the evaluation option samem.Config.TieMargin
// (docs/results/2026-11-24-samem-sweep.md: in a state cluster that aliases
// many situations, thoughts 0.0007 apart at Q 0.24 are equal within the
// noise of a constant learning rate, and the rarely tried one won). A
// negative or NaN margin is 0.
func (t *Table) BestWithin(s int64, margin float64) (th int64, q float64, ok bool) {
	th, q, ok = t.Best(s)
	if !ok || !(margin > 0) {
		return th, q, ok
	}
	floor := q - margin*math.Abs(q)
	r := t.rows[s]
	var w *cell
	for i := range r.cells {
		c := &r.cells[i]
		if c.q < floor {
			continue
		}
		if w == nil || c.visits > w.visits || (c.visits == w.visits && better(c, w)) {
			w = c
		}
	}
	return w.th, w.q, true
}

// Lowest returns the lowest-valued thought of state s among its entries
// with non-zero q: the candidate the forgetting mechanism checks (seed 002
// Sec. 3.2). Ties are broken in exactly the reverse order of Best: fewer
// visits, then larger thought id. ok is false when s has no non-zero entry.
func (t *Table) Lowest(s int64) (th int64, q float64, ok bool) {
	r := t.rows[s]
	if r == nil || r.nonzero == 0 {
		return 0, 0, false
	}
	var w *cell
	for i := range r.cells {
		c := &r.cells[i]
		if c.q == 0 {
			continue
		}
		if w == nil || better(w, c) {
			w = c
		}
	}
	return w.th, w.q, true
}

// NonZero is the number of thoughts of state s with a non-zero Q (the
// forgetting trigger of Sec. 3.2 is NonZero(s) > 5).
func (t *Table) NonZero(s int64) int {
	r := t.rows[s]
	if r == nil {
		return 0
	}
	return r.nonzero
}

// Get returns the entry (s, th); ok is false when it is not stored (its Q is
// then 0).
func (t *Table) Get(s, th int64) (e Entry, ok bool) {
	r := t.rows[s]
	if r == nil {
		return Entry{}, false
	}
	i, ok := r.index[th]
	if !ok {
		return Entry{}, false
	}
	return r.cells[i].entry(s), true
}

// Set sets Q(s, th) to q without counting a visit, creating the entry if
// absent. Forgetting uses it to prune a thought softly (q = 0, Sec. 3.2).
// A non-finite q gives ErrNotFinite and changes nothing.
func (t *Table) Set(s, th int64, q float64) error {
	if !finite(q) {
		return fmt.Errorf("set (state %d, thought %d): q %v: %w", s, th, q, ErrNotFinite)
	}
	c, _ := t.cell(s, th)
	t.setQ(s, c, th, q)
	return nil
}

// Row returns the entries of state s in the order of Best (so Row(s)[0] is
// the best thought), or nil when s has no row.
func (t *Table) Row(s int64) []Entry {
	r := t.rows[s]
	if r == nil {
		return nil
	}
	cells := slices.Clone(r.cells)
	slices.SortFunc(cells, func(a, b cell) int {
		switch {
		case better(&a, &b):
			return -1
		case better(&b, &a):
			return 1
		}
		return 0
	})
	out := make([]Entry, len(cells))
	for i := range cells {
		out[i] = cells[i].entry(s)
	}
	return out
}

// Entries returns every entry, sorted by state id, then thought id: the same
// table always gives the same slice (checkpoints of identical runs are
// byte-identical).
func (t *Table) Entries() []Entry {
	out := make([]Entry, 0, t.n)
	for s, r := range t.rows {
		for i := range r.cells {
			out = append(out, r.cells[i].entry(s))
		}
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := cmp.Compare(a.State, b.State); c != 0 {
			return c
		}
		return cmp.Compare(a.Thought, b.Thought)
	})
	return out
}

// DropEmpty removes every empty state row and thought column of the table
// and returns their ids in ascending order, so the caller can remove the
// matching clusters. It is the optional clean-up of forgetting
// (forget.Forgetter.DropZero), more than seed 002 Sec. 3.2 asks: a thought
// tried once whose Q is still 0 is empty by this rule although nothing
// judged it invalid. DropEmptyOf is the paper's removal.
//
// The rule: a state row is empty when none of its entries has a non-zero
// Q; a thought column is empty when none of its entries, in any row, has a
// non-zero Q. All entries of empty rows and of empty columns are removed.
// The two removals do not interact (each removes only zero entries, which
// cannot make a non-empty row or column empty), so one call reaches the
// fixed point. Zero entries in a row and a column that are both non-empty
// stay (for example a thought pruned in one state but valued in another).
// States and thoughts the table never held (a state seen only as a next
// state) are not reported: use HasState and HasThought for those.
func (t *Table) DropEmpty() (states, thoughts []int64) {
	return t.dropEmpty(nil, nil, true)
}

// DropEmptyOf is DropEmpty restricted to the given state rows and thought
// columns: of those, the ones that are empty (no non-zero Q) are removed
// and returned in ascending order; every other row and column stays, zero
// entries included. Forgetting calls it with the rows and columns of the
// thoughts it pruned (seed 002 Sec. 3.2: "invalid thoughts are softly
// pruned by setting their Q-values to zero, and empty state rows or thought
// columns are subsequently removed"). Ids the table does not hold are
// ignored.
func (t *Table) DropEmptyOf(states, thoughts []int64) (droppedStates, droppedThoughts []int64) {
	return t.dropEmpty(states, thoughts, false)
}

func (t *Table) dropEmpty(candStates, candThoughts []int64, all bool) (states, thoughts []int64) {
	if all {
		for s, r := range t.rows {
			if r.nonzero == 0 {
				states = append(states, s)
			}
		}
		for th, c := range t.cols {
			if c.nonzero == 0 {
				thoughts = append(thoughts, th)
			}
		}
	} else {
		for _, s := range candStates {
			if r := t.rows[s]; r != nil && r.nonzero == 0 && !slices.Contains(states, s) {
				states = append(states, s)
			}
		}
		for _, th := range candThoughts {
			if c := t.cols[th]; c != nil && c.nonzero == 0 && !slices.Contains(thoughts, th) {
				thoughts = append(thoughts, th)
			}
		}
	}
	slices.Sort(states)
	slices.Sort(thoughts)
	for _, s := range states {
		for _, c := range t.rows[s].cells {
			col := t.cols[c.th]
			col.n--
			t.n--
			if col.n == 0 && !all {
				// Its only entries were in this row, all zero: the column
				// is empty now, and was emptied by the same removal.
				if !slices.Contains(thoughts, c.th) {
					thoughts = append(thoughts, c.th)
				}
			}
		}
		delete(t.rows, s)
	}
	slices.Sort(thoughts)
	if len(thoughts) > 0 {
		drop := make(map[int64]bool, len(thoughts))
		for _, th := range thoughts {
			drop[th] = true
		}
		for s, r := range t.rows {
			kept := r.cells[:0]
			for _, c := range r.cells {
				if drop[c.th] {
					delete(r.index, c.th)
					t.n--
					continue
				}
				r.index[c.th] = int32(len(kept))
				kept = append(kept, c)
			}
			clear(r.cells[len(kept):])
			r.cells = kept
			if len(kept) == 0 {
				// Only possible when every entry of the row was in a dropped
				// (zero) column: the row is empty and has no entry left.
				delete(t.rows, s)
				if !slices.Contains(states, s) {
					states = append(states, s)
				}
			}
		}
	}
	for _, th := range thoughts {
		delete(t.cols, th)
	}
	slices.Sort(states)
	// With all, columns whose only entries were in removed rows are empty by
	// the rule above and were listed in thoughts; any other column still has
	// entries.
	return states, thoughts
}

func (c *cell) entry(s int64) Entry {
	return Entry{State: s, Thought: c.th, Q: c.q, Visits: c.visits, LastStep: c.last}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
