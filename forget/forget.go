package forget

import (
	"context"
	"fmt"

	"github.com/samem/trainer/qlearn"
)

// DefaultMinThoughts is the crowding trigger of seed 002 Sec. 3.2: a state
// with more than five thoughts of non-zero Q is checked.
const DefaultMinThoughts = 5

// Forgetter runs the forgetting step over a Q-table. It remembers which
// (state, thought) pairs it checked and at which Q, so that a pair is not
// checked again unless its Q has changed since. Not safe for concurrent use.
type Forgetter struct {
	checker Checker
	// MinThoughts: states with more than this many non-zero thoughts are
	// checked; default DefaultMinThoughts.
	MinThoughts int
	// DropZero adds a clean-up that seed 002 does not have: after the
	// paper's step, every state row and thought column with no non-zero Q
	// is removed too (Table.DropEmpty), including thoughts tried and still
	// at 0 that no check rejected. Off by default; what it removes is
	// reported apart (Result.CleanedStates, CleanedThoughts).
	DropZero bool
	checked  map[[2]int64]float64
	// Checks and Prunes count, over the Forgetter's life, the logical checks
	// made and the thoughts found invalid.
	Checks, Prunes int
}

// New returns a Forgetter that asks checker.
func New(checker Checker) *Forgetter {
	return &Forgetter{checker: checker, MinThoughts: DefaultMinThoughts, checked: map[[2]int64]float64{}}
}

// Result is what one forgetting pass did.
type Result struct {
	Checked, Pruned int
	// PrunedPairs are the (state, thought) pairs set to 0 by this pass.
	PrunedPairs [][2]int64
	// RemovedStates and RemovedThoughts are the ids of the rows and columns
	// this pass's prunes left empty, dropped from the table (Sec. 3.2); the
	// caller removes their clusters.
	RemovedStates, RemovedThoughts []int64
	// CleanedStates and CleanedThoughts are the other all-zero rows and
	// columns removed by the optional clean-up (DropZero); the caller
	// removes their clusters too.
	CleanedStates, CleanedThoughts []int64
}

// Run makes one pass of the forgetting step of seed 002 Sec. 3.2: every
// crowded state's lowest-valued non-zero thought is checked (states in
// increasing id order, so a pass is deterministic); one the check rejects
// is softly pruned (Q = 0); then the rows and columns of the pruned pairs
// that are left empty (no non-zero Q) are removed. Nothing else is removed
// unless DropZero is set. stateText and thoughtText give the representative
// texts of cluster ids. On a checker error the pass stops; what it pruned so
// far stays pruned (and emptied rows and columns are removed) and is
// returned with the error.
func (f *Forgetter) Run(ctx context.Context, t *qlearn.Table, stateText, thoughtText func(int64) string) (res Result, err error) {
	var prunedStates, prunedThoughts []int64
	defer func() {
		res.RemovedStates, res.RemovedThoughts = t.DropEmptyOf(prunedStates, prunedThoughts)
		if f.DropZero {
			res.CleanedStates, res.CleanedThoughts = t.DropEmpty()
		}
		f.forgetChecked(res)
	}()
	for _, s := range t.StateIDs() {
		if t.NonZero(s) <= f.MinThoughts {
			continue
		}
		th, q, ok := t.Lowest(s)
		if !ok {
			continue
		}
		key := [2]int64{s, th}
		if last, seen := f.checked[key]; seen && last == q {
			continue
		}
		valid, err := f.checker.Check(ctx, stateText(s), thoughtText(th))
		if err != nil {
			return res, fmt.Errorf("forget: check state %d thought %d: %w", s, th, err)
		}
		res.Checked++
		f.Checks++
		if valid {
			f.checked[key] = q
			continue
		}
		if err := t.Set(s, th, 0); err != nil {
			return res, fmt.Errorf("forget: prune state %d thought %d: %w", s, th, err)
		}
		delete(f.checked, key)
		prunedStates = append(prunedStates, s)
		prunedThoughts = append(prunedThoughts, th)
		res.Pruned++
		res.PrunedPairs = append(res.PrunedPairs, key)
		f.Prunes++
	}
	return res, nil
}

// forgetChecked drops the remembered checks of removed rows and columns.
func (f *Forgetter) forgetChecked(res Result) {
	gone := map[int64]bool{}
	goneTh := map[int64]bool{}
	for _, s := range append(res.RemovedStates, res.CleanedStates...) {
		gone[s] = true
	}
	for _, th := range append(res.RemovedThoughts, res.CleanedThoughts...) {
		goneTh[th] = true
	}
	if len(gone)+len(goneTh) == 0 {
		return
	}
	for k := range f.checked {
		if gone[k[0]] || goneTh[k[1]] {
			delete(f.checked, k)
		}
	}
}
