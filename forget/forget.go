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
	checked     map[[2]int64]float64
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
	// RemovedStates and RemovedThoughts are the ids of the empty rows and
	// columns dropped from the table; the caller removes their clusters.
	RemovedStates, RemovedThoughts []int64
}

// Run makes one pass: every crowded state's lowest-valued non-zero thought
// is checked (states in increasing id order, so a pass is deterministic); an
// invalid one is set to Q = 0; then empty rows and columns are dropped.
// stateText and thoughtText give the representative texts of cluster ids.
// On a checker error the pass stops; what it pruned so far stays pruned and
// is returned with the error.
func (f *Forgetter) Run(ctx context.Context, t *qlearn.Table, stateText, thoughtText func(int64) string) (Result, error) {
	var res Result
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
		res.Pruned++
		f.Prunes++
	}
	res.RemovedStates, res.RemovedThoughts = t.DropEmpty()
	if len(res.RemovedStates)+len(res.RemovedThoughts) > 0 {
		gone := make(map[int64]bool, len(res.RemovedStates))
		for _, s := range res.RemovedStates {
			gone[s] = true
		}
		goneTh := make(map[int64]bool, len(res.RemovedThoughts))
		for _, th := range res.RemovedThoughts {
			goneTh[th] = true
		}
		for k := range f.checked {
			if gone[k[0]] || goneTh[k[1]] {
				delete(f.checked, k)
			}
		}
	}
	return res, nil
}
