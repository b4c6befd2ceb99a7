package checkpoints

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// makeState builds a SAMem memory of nStates and nThoughts clusters with
// dim-dimensional embeddings and about perState Q entries per state.
func makeState(rng *rand.Rand, nStates, nThoughts, perState, dim int) SAMemState {
	var st SAMemState
	cluster := func(id int, kind string) ClusterRow {
		e := make([]float32, dim)
		for i := range e {
			e[i] = rng.Float32()*2 - 1
		}
		return ClusterRow{ID: int64(id), Text: fmt.Sprintf("%s %d: the agent holds the target object near the final destination", kind, id), Members: int64(1 + rng.IntN(20)), Embedding: e}
	}
	for i := range nStates {
		st.States = append(st.States, cluster(i, "state"))
	}
	for i := range nThoughts {
		st.Thoughts = append(st.Thoughts, cluster(i, "thought"))
	}
	for s := range nStates {
		seen := map[int64]bool{}
		for range perState {
			th := rng.Int64N(int64(nThoughts))
			if seen[th] {
				continue
			}
			seen[th] = true
			st.QTable = append(st.QTable, QRow{StateID: int64(s), ThoughtID: th, Q: rng.Float64()*2 - 1, Visits: rng.Int64N(50), LastUpdateStep: rng.Int64N(1e6)})
		}
	}
	slices.SortFunc(st.QTable, compareQ)
	return st
}

func equalState(t *testing.T, got, want SAMemState) {
	t.Helper()
	if !slices.Equal(got.QTable, want.QTable) {
		t.Errorf("Q-table differs: %d rows, want %d", len(got.QTable), len(want.QTable))
	}
	for _, c := range []struct {
		name      string
		got, want []ClusterRow
	}{{"states", got.States, want.States}, {"thoughts", got.Thoughts, want.Thoughts}} {
		if !slices.EqualFunc(c.got, c.want, func(a, b ClusterRow) bool {
			return a.ID == b.ID && a.Text == b.Text && a.Members == b.Members && slices.Equal(a.Embedding, b.Embedding)
		}) {
			t.Errorf("%s differ: %d rows, want %d", c.name, len(c.got), len(c.want))
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
