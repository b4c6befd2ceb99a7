package forget

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/samem/trainer/qlearn"
)

// rejectChecker rejects the thoughts named in bad, accepts the rest, and
// records what it was asked.
type rejectChecker struct {
	bad   map[string]bool
	asked []string
	err   error
}

func (c *rejectChecker) Check(_ context.Context, state, thought string) (bool, error) {
	c.asked = append(c.asked, state+"|"+thought)
	if c.err != nil {
		return false, c.err
	}
	return !c.bad[thought], nil
}

func name(prefix string) func(int64) string {
	return func(id int64) string { return prefix + string(rune('0'+id%10)) + string(rune('0'+id/10%10)) }
}

// crowded is a table where state 1 has six non-zero thoughts (10..15, the
// lowest 15 valued only there), state 2 holds thought 10 and a thought 20
// tried once and still at 0, and state 3 holds only zero entries.
func crowded(t *testing.T) *qlearn.Table {
	t.Helper()
	es := []qlearn.Entry{
		{State: 1, Thought: 10, Q: 0.9, Visits: 3}, {State: 1, Thought: 11, Q: 0.8, Visits: 3},
		{State: 1, Thought: 12, Q: 0.7, Visits: 3}, {State: 1, Thought: 13, Q: 0.6, Visits: 3},
		{State: 1, Thought: 14, Q: 0.5, Visits: 3}, {State: 1, Thought: 15, Q: 0.1, Visits: 1},
		{State: 2, Thought: 10, Q: 0.4, Visits: 2}, {State: 2, Thought: 20, Q: 0, Visits: 1},
		{State: 3, Thought: 21, Q: 0, Visits: 1},
	}
	tb, err := qlearn.FromEntries(qlearn.DefaultParams(), es)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestRunPrunesAsThePaper: the lowest thought of the crowded state is
// checked, the rejected one is set to 0 and its now-empty column removed
// (seed 002 Sec. 3.2); thoughts that are 0 without having been rejected,
// and all-zero rows, stay.
func TestRunPrunesAsThePaper(t *testing.T) {
	tb := crowded(t)
	th := name("t")
	ck := &rejectChecker{bad: map[string]bool{th(15): true}}
	f := New(ck)
	res, err := f.Run(context.Background(), tb, name("s"), th)
	if err != nil {
		t.Fatal(err)
	}
	if res.Checked != 1 || res.Pruned != 1 || len(ck.asked) != 1 {
		t.Fatalf("checked %d pruned %d asked %v; want one check of state 1's lowest thought", res.Checked, res.Pruned, ck.asked)
	}
	if len(res.RemovedStates) != 0 || !slices.Equal(res.RemovedThoughts, []int64{15}) {
		t.Errorf("removed %v, %v; want no state and thought 15", res.RemovedStates, res.RemovedThoughts)
	}
	if len(res.CleanedStates)+len(res.CleanedThoughts) != 0 {
		t.Errorf("cleaned %v, %v without DropZero", res.CleanedStates, res.CleanedThoughts)
	}
	if _, ok := tb.Get(2, 20); !ok || !tb.HasState(3) {
		t.Errorf("an unrejected zero thought or an all-zero row was removed: (2,20) kept %v, state 3 kept %v", ok, tb.HasState(3))
	}
	if tb.Len() != 8 {
		t.Errorf("Len = %d, want 8", tb.Len())
	}
}

// TestRunDropZero: the optional clean-up also removes the all-zero rows and
// columns, reported apart from the paper's removal.
func TestRunDropZero(t *testing.T) {
	tb := crowded(t)
	th := name("t")
	f := New(&rejectChecker{bad: map[string]bool{th(15): true}})
	f.DropZero = true
	res, err := f.Run(context.Background(), tb, name("s"), th)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.RemovedThoughts, []int64{15}) {
		t.Errorf("removed thoughts %v, want [15]", res.RemovedThoughts)
	}
	if !slices.Equal(res.CleanedStates, []int64{3}) || !slices.Equal(res.CleanedThoughts, []int64{20, 21}) {
		t.Errorf("cleaned %v, %v; want [3], [20 21]", res.CleanedStates, res.CleanedThoughts)
	}
	if tb.Len() != 6 {
		t.Errorf("Len = %d, want 6", tb.Len())
	}
}

// TestRunValidIsNotRechecked: a thought the check accepts is not asked
// about again while its Q is unchanged.
func TestRunValidIsNotRechecked(t *testing.T) {
	tb := crowded(t)
	ck := &rejectChecker{}
	f := New(ck)
	for range 2 {
		if _, err := f.Run(context.Background(), tb, name("s"), name("t")); err != nil {
			t.Fatal(err)
		}
	}
	if len(ck.asked) != 1 || tb.Len() != 9 {
		t.Errorf("asked %v, len %d; want one check and nothing removed", ck.asked, tb.Len())
	}
}

// TestRunCheckerError: the error names the pair and nothing is lost.
func TestRunCheckerError(t *testing.T) {
	tb := crowded(t)
	boom := errors.New("boom")
	_, err := New(&rejectChecker{err: boom}).Run(context.Background(), tb, name("s"), name("t"))
	if !errors.Is(err, boom) || tb.Len() != 9 {
		t.Errorf("err %v, len %d; want boom and 9 entries", err, tb.Len())
	}
}
