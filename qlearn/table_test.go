package qlearn

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

var seedFlag = flag.Uint64("seed", 0, "seed for the property test (0: the fixed seeds 1-4)")

// newTable returns a table with alpha 0.5 and gamma 0.9, the values the
// hand-computed expectations below use (not the defaults, which may change).
func newTable(t testing.TB) *Table {
	t.Helper()
	tb, err := New(Params{Alpha: 0.5, Gamma: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestParamsValidate(t *testing.T) {
	tests := []struct {
		p  Params
		ok bool
	}{
		{DefaultParams(), true},
		{Params{Alpha: 1, Gamma: 0}, true},
		{Params{Alpha: 0, Gamma: 0.9}, false},
		{Params{Alpha: 1.5, Gamma: 0.9}, false},
		{Params{Alpha: 0.5, Gamma: -0.1}, false},
		{Params{Alpha: 0.5, Gamma: 1.1}, false},
		{Params{Alpha: math.NaN(), Gamma: 0.9}, false},
		{Params{Alpha: 0.5, Gamma: math.NaN()}, false},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%+v.Validate() = %v, want ok %v", tt.p, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrParams) {
			t.Errorf("%+v.Validate() = %v, want ErrParams", tt.p, err)
		}
		if _, err := New(tt.p); (err == nil) != tt.ok {
			t.Errorf("New(%+v) = %v, want ok %v", tt.p, err, tt.ok)
		}
	}
}

func TestUpdateHandComputed(t *testing.T) {
	// alpha 0.5, gamma 0.9.
	tb := newTable(t)
	steps := []struct {
		s, th    int64
		r        float64
		next     int64
		terminal bool
		want     float64
	}{
		// New entry, terminal: Q = 0.5*0 + 0.5*1.
		{1, 10, 1, 2, true, 0.5},
		// Again: 0.5*0.5 + 0.5*1.
		{1, 10, 1, 2, true, 0.75},
		// Bootstrap from state 1 (max 0.75): target 0 + 0.9*0.75 = 0.675, Q = 0.3375.
		{3, 30, 0, 1, false, 0.3375},
		// Same transition but terminal: no bootstrap, target 0: Q = 0.5*0.3375.
		{3, 30, 0, 1, true, 0.16875},
		// Next state without a row bootstraps 0: target 2, Q = 1.
		{4, 40, 2, 99, false, 1},
		// Negative reward: target -1 + 0.9*max(Q(4,.)) = -1 + 0.9 = -0.1, Q = -0.05.
		{5, 50, -1, 4, false, -0.05},
	}
	for i, st := range steps {
		got, err := tb.Update(st.s, st.th, st.r, st.next, st.terminal, int64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-st.want) > 1e-12 {
			t.Errorf("step %d: Update(%d, %d, %v, %d, %v) = %v, want %v", i, st.s, st.th, st.r, st.next, st.terminal, got, st.want)
		}
		e, ok := tb.Get(st.s, st.th)
		if !ok || e.Q != got || e.LastStep != int64(i+1) {
			t.Errorf("step %d: Get(%d, %d) = %+v, %v; want q %v, last step %d", i, st.s, st.th, e, ok, got, i+1)
		}
	}
	if e, _ := tb.Get(1, 10); e.Visits != 2 {
		t.Errorf("visits of (1, 10) = %d, want 2", e.Visits)
	}
	if tb.Len() != 4 || tb.States() != 4 || tb.Thoughts() != 4 {
		t.Errorf("Len, States, Thoughts = %d, %d, %d; want 4, 4, 4", tb.Len(), tb.States(), tb.Thoughts())
	}
}

func TestMaxQImplicitZero(t *testing.T) {
	tb := newTable(t)
	must(t, tb.Set(1, 10, -1))
	must(t, tb.Set(1, 11, -2))
	// Every thought of the table is in row 1: the max is the stored max.
	if got := tb.MaxQ(1); got != -1 {
		t.Errorf("MaxQ(1) with a full row = %v, want -1", got)
	}
	// A new thought column elsewhere gives state 1 an implicit Q of 0.
	must(t, tb.Set(2, 12, 3))
	if got := tb.MaxQ(1); got != 0 {
		t.Errorf("MaxQ(1) with an implicit 0 = %v, want 0", got)
	}
	if got := tb.MaxQ(2); got != 3 {
		t.Errorf("MaxQ(2) = %v, want 3", got)
	}
	if got := tb.MaxQ(42); got != 0 {
		t.Errorf("MaxQ(unknown) = %v, want 0", got)
	}
}

func TestNotFinite(t *testing.T) {
	tb := newTable(t)
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := tb.Update(1, 2, x, 3, false, 1); !errors.Is(err, ErrNotFinite) {
			t.Errorf("Update(reward %v) error = %v, want ErrNotFinite", x, err)
		}
		if err := tb.Set(1, 2, x); !errors.Is(err, ErrNotFinite) {
			t.Errorf("Set(%v) error = %v, want ErrNotFinite", x, err)
		}
		if _, err := FromEntries(DefaultParams(), []Entry{{Q: x}}); !errors.Is(err, ErrNotFinite) {
			t.Errorf("FromEntries(q %v) error = %v, want ErrNotFinite", x, err)
		}
	}
	if tb.Len() != 0 {
		t.Errorf("Len after refused updates = %d, want 0", tb.Len())
	}
}

func TestBestTieBreaking(t *testing.T) {
	tests := []struct {
		name    string
		entries []Entry
		best    int64
		lowest  int64
		lowOK   bool
	}{
		{"higher q wins", []Entry{{1, 5, 0.2, 1, 0}, {1, 3, 0.7, 1, 0}, {1, 4, 0.5, 9, 0}}, 3, 5, true},
		{"equal q: more visits", []Entry{{1, 5, 0.5, 2, 0}, {1, 3, 0.5, 1, 0}, {1, 4, 0.5, 7, 0}}, 4, 3, true},
		{"equal q and visits: smaller id", []Entry{{1, 9, 0.5, 2, 0}, {1, 3, 0.5, 2, 0}, {1, 6, 0.5, 2, 0}}, 3, 9, true},
		{"all zero", []Entry{{1, 9, 0, 2, 0}, {1, 3, 0, 2, 0}}, 3, 0, false},
		{"lowest skips zero", []Entry{{1, 9, 0, 0, 0}, {1, 3, 0.1, 1, 0}, {1, 4, -0.2, 1, 0}}, 3, 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Any insertion order gives the same answers.
			for _, perm := range permutations(len(tt.entries)) {
				es := make([]Entry, len(perm))
				for i, p := range perm {
					es[i] = tt.entries[p]
				}
				tb, err := FromEntries(DefaultParams(), es)
				if err != nil {
					t.Fatal(err)
				}
				if th, _, ok := tb.Best(1); !ok || th != tt.best {
					t.Errorf("order %v: Best(1) = %d, %v; want %d", perm, th, ok, tt.best)
				}
				if th, _, ok := tb.Lowest(1); ok != tt.lowOK || (ok && th != tt.lowest) {
					t.Errorf("order %v: Lowest(1) = %d, %v; want %d, %v", perm, th, ok, tt.lowest, tt.lowOK)
				}
				if r := tb.Row(1); r[0].Thought != tt.best {
					t.Errorf("order %v: Row(1)[0] = %+v, want thought %d", perm, r[0], tt.best)
				}
			}
		})
	}
	tb := newTable(t)
	if _, _, ok := tb.Best(1); ok {
		t.Error("Best on an empty table: ok = true")
	}
}

func TestDropEmptyOf(t *testing.T) {
	// Same table as TestDropEmpty. Only the listed rows and columns may go:
	// state 2 and thought 40 are empty but not listed, so they stay.
	es := []Entry{
		{1, 10, 0.5, 1, 1}, {1, 20, 0, 1, 1},
		{2, 10, 0, 1, 1}, {2, 40, 0, 1, 1},
		{3, 10, 0, 1, 1}, {3, 30, -0.3, 1, 1}, {3, 20, 0, 1, 1},
	}
	tb, err := FromEntries(DefaultParams(), es)
	if err != nil {
		t.Fatal(err)
	}
	if tb.NonZeroLen() != 2 {
		t.Errorf("NonZeroLen = %d, want 2", tb.NonZeroLen())
	}
	// Listed but not empty (state 1, thought 10), listed and empty
	// (thought 20), listed twice, and unknown ids (state 9, thought 90).
	states, thoughts := tb.DropEmptyOf([]int64{1, 9}, []int64{10, 20, 20, 90})
	if len(states) != 0 || !slices.Equal(thoughts, []int64{20}) {
		t.Errorf("DropEmptyOf = %v, %v; want [], [20]", states, thoughts)
	}
	want := []Entry{{1, 10, 0.5, 1, 1}, {2, 10, 0, 1, 1}, {2, 40, 0, 1, 1}, {3, 10, 0, 1, 1}, {3, 30, -0.3, 1, 1}}
	if got := tb.Entries(); !slices.Equal(got, want) {
		t.Errorf("Entries() after DropEmptyOf = %v, want %v", got, want)
	}
	// Pruning thought 30 in state 3 empties row 3 and column 30; removing
	// row 3 leaves no other entry of either.
	must(t, tb.Set(3, 30, 0))
	if tb.Len() != 5 || tb.NonZeroLen() != 1 {
		t.Errorf("after pruning (3, 30): Len %d, NonZeroLen %d; want 5, 1", tb.Len(), tb.NonZeroLen())
	}
	states, thoughts = tb.DropEmptyOf([]int64{3}, []int64{30})
	if !slices.Equal(states, []int64{3}) || !slices.Equal(thoughts, []int64{30}) {
		t.Errorf("DropEmptyOf after pruning = %v, %v; want [3], [30]", states, thoughts)
	}
	if tb.Len() != 3 || tb.States() != 2 || tb.Thoughts() != 2 {
		t.Errorf("Len, States, Thoughts = %d, %d, %d; want 3, 2, 2", tb.Len(), tb.States(), tb.Thoughts())
	}
	// A row all of whose entries are in a dropped column goes with it.
	tb2, err := FromEntries(DefaultParams(), []Entry{{1, 10, 0, 1, 1}, {2, 20, 0.4, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	states, thoughts = tb2.DropEmptyOf(nil, []int64{10})
	if !slices.Equal(states, []int64{1}) || !slices.Equal(thoughts, []int64{10}) || tb2.Len() != 1 || tb2.HasState(1) {
		t.Errorf("DropEmptyOf(column 10) = %v, %v, len %d; want [1], [10], 1", states, thoughts, tb2.Len())
	}
}

func TestDropEmpty(t *testing.T) {
	// Rows: state 1 has a value; state 2 is all zero; state 3 has a value
	// only through thought 30. Thought 20 is zero everywhere; thought 10 is
	// zero in state 3 but valued in state 1, so that zero entry stays.
	es := []Entry{
		{1, 10, 0.5, 1, 1}, {1, 20, 0, 1, 1},
		{2, 10, 0, 1, 1}, {2, 40, 0, 1, 1},
		{3, 10, 0, 1, 1}, {3, 30, -0.3, 1, 1}, {3, 20, 0, 1, 1},
	}
	tb, err := FromEntries(DefaultParams(), es)
	if err != nil {
		t.Fatal(err)
	}
	states, thoughts := tb.DropEmpty()
	if !slices.Equal(states, []int64{2}) || !slices.Equal(thoughts, []int64{20, 40}) {
		t.Errorf("DropEmpty() = %v, %v; want [2], [20 40]", states, thoughts)
	}
	want := []Entry{{1, 10, 0.5, 1, 1}, {3, 10, 0, 1, 1}, {3, 30, -0.3, 1, 1}}
	if got := tb.Entries(); !slices.Equal(got, want) {
		t.Errorf("Entries() after DropEmpty = %v, want %v", got, want)
	}
	if tb.Len() != 3 || tb.States() != 2 || tb.Thoughts() != 2 {
		t.Errorf("Len, States, Thoughts = %d, %d, %d; want 3, 2, 2", tb.Len(), tb.States(), tb.Thoughts())
	}
	// A second call finds nothing (one call reaches the fixed point).
	if s, th := tb.DropEmpty(); len(s)+len(th) != 0 {
		t.Errorf("second DropEmpty() = %v, %v; want nothing", s, th)
	}
	// Pruning the last value of state 3 empties it and thought 30.
	must(t, tb.Set(3, 30, 0))
	if s, th := tb.DropEmpty(); !slices.Equal(s, []int64{3}) || !slices.Equal(th, []int64{30}) {
		t.Errorf("DropEmpty() after pruning = %v, %v; want [3], [30]", s, th)
	}
}

func TestFromEntriesDuplicate(t *testing.T) {
	_, err := FromEntries(DefaultParams(), []Entry{{1, 2, 0.1, 1, 1}, {1, 2, 0.3, 1, 1}})
	if !errors.Is(err, ErrEntries) {
		t.Errorf("FromEntries(duplicate) error = %v, want ErrEntries", err)
	}
	_, err = FromEntries(DefaultParams(), []Entry{{1, 2, 0.1, -1, 1}})
	if !errors.Is(err, ErrEntries) {
		t.Errorf("FromEntries(negative visits) error = %v, want ErrEntries", err)
	}
}

func TestEpsilon(t *testing.T) {
	tests := []struct {
		t, T int
		want float64
	}{
		{0, 45, 0.95},
		{45, 45, 0.95 * math.Exp(-6)},
		{15, 45, 0.95 * math.Exp(-2)},
		{-3, 45, 0.95},
		{10, 0, 0.95},
	}
	for _, tt := range tests {
		if got := Epsilon(Eps0, Beta, tt.t, tt.T); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("Epsilon(%v, %v, %d, %d) = %v, want %v", Eps0, Beta, tt.t, tt.T, got, tt.want)
		}
	}
	// Monotone non-increasing along a schedule.
	prev := math.Inf(1)
	for i := 0; i <= 100; i++ {
		e := Epsilon(Eps0, Beta, i, 100)
		if e > prev {
			t.Fatalf("Epsilon rose at t=%d: %v > %v", i, e, prev)
		}
		prev = e
	}
}

// model is a dense reference for the property test: every pair of known
// states and thoughts, missing pairs meaning Q = 0.
type model struct {
	p       Params
	entries map[[2]int64]Entry
}

func (m *model) maxQ(s int64) float64 {
	thoughts := map[int64]bool{}
	for k := range m.entries {
		thoughts[k[1]] = true
	}
	best, n := math.Inf(-1), 0
	for k, e := range m.entries {
		if k[0] == s {
			n++
			best = max(best, e.Q)
		}
	}
	if n < len(thoughts) {
		best = max(best, 0)
	}
	if n == 0 {
		return 0
	}
	return best
}

// TestPropertyAgainstModel runs fixed seeds, so its verdict is the same on
// every run; -seed N runs seed N instead (to explore others).
func TestPropertyAgainstModel(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4}
	if *seedFlag != 0 {
		seeds = []uint64{*seedFlag}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0))
			for trial := 0; trial < 50; trial++ {
				tb := newTable(t)
				m := &model{p: tb.Params(), entries: map[[2]int64]Entry{}}
				nS, nT := int64(1+rng.IntN(8)), int64(1+rng.IntN(8))
				for op := 0; op < 200; op++ {
					s, th, next := rng.Int64N(nS), rng.Int64N(nT), rng.Int64N(nS)
					switch k := rng.IntN(10); {
					case k < 6:
						r := float64(rng.IntN(3) - 1)
						terminal := rng.IntN(4) == 0
						key := [2]int64{s, th}
						e := m.entries[key]
						e.State, e.Thought = s, th
						m.entries[key] = e // the column exists before bootstrapping
						target := r
						if !terminal {
							target += m.p.Gamma * m.maxQ(next)
						}
						e.Q = (1-m.p.Alpha)*e.Q + m.p.Alpha*target
						e.Visits++
						e.LastStep = int64(op)
						m.entries[key] = e
						got, err := tb.Update(s, th, r, next, terminal, int64(op))
						if err != nil {
							t.Fatal(err)
						}
						if math.Abs(got-e.Q) > 1e-12 {
							t.Fatalf("seed %d trial %d op %d: Update = %v, model %v", seed, trial, op, got, e.Q)
						}
					case k < 8:
						key := [2]int64{s, th}
						e := m.entries[key]
						e.State, e.Thought, e.Q = s, th, 0
						m.entries[key] = e
						must(t, tb.Set(s, th, 0))
					default:
						rows, cols := map[int64]bool{}, map[int64]bool{}
						for k, e := range m.entries {
							if e.Q != 0 {
								rows[k[0]], cols[k[1]] = true, true
							}
						}
						var ws, wt []int64
						for k := range m.entries {
							if !rows[k[0]] && !slices.Contains(ws, k[0]) {
								ws = append(ws, k[0])
							}
							if !cols[k[1]] && !slices.Contains(wt, k[1]) {
								wt = append(wt, k[1])
							}
						}
						for k := range m.entries {
							if !rows[k[0]] || !cols[k[1]] {
								delete(m.entries, k)
							}
						}
						slices.Sort(ws)
						slices.Sort(wt)
						gs, gt := tb.DropEmpty()
						if !slices.Equal(gs, ws) || !slices.Equal(gt, wt) {
							t.Fatalf("seed %d trial %d op %d: DropEmpty = %v, %v; model %v, %v", seed, trial, op, gs, gt, ws, wt)
						}
					}
					checkAgainstModel(t, seed, tb, m, nS)
				}
			}
		})
	}
}

func checkAgainstModel(t *testing.T, seed uint64, tb *Table, m *model, nS int64) {
	t.Helper()
	want := make([]Entry, 0, len(m.entries))
	for _, e := range m.entries {
		want = append(want, e)
	}
	slices.SortFunc(want, func(a, b Entry) int {
		if a.State != b.State {
			return int(a.State - b.State)
		}
		return int(a.Thought - b.Thought)
	})
	got := tb.Entries()
	if len(got) != len(want) || tb.Len() != len(want) {
		t.Fatalf("seed %d: %d entries (Len %d), model %d", seed, len(got), tb.Len(), len(want))
	}
	nonzero := 0
	for _, e := range want {
		if e.Q != 0 {
			nonzero++
		}
	}
	if tb.NonZeroLen() != nonzero {
		t.Fatalf("seed %d: NonZeroLen %d, model %d", seed, tb.NonZeroLen(), nonzero)
	}
	for i := range got {
		if got[i].State != want[i].State || got[i].Thought != want[i].Thought || math.Abs(got[i].Q-want[i].Q) > 1e-12 || got[i].Visits != want[i].Visits {
			t.Fatalf("seed %d: entry %d = %+v, model %+v", seed, i, got[i], want[i])
		}
	}
	for s := int64(0); s < nS; s++ {
		if g, w := tb.MaxQ(s), m.maxQ(s); math.Abs(g-w) > 1e-12 {
			t.Fatalf("seed %d: MaxQ(%d) = %v, model %v", seed, s, g, w)
		}
		nz := 0
		var bestE *Entry
		for i := range got {
			e := &got[i]
			if e.State != s {
				continue
			}
			if e.Q != 0 {
				nz++
			}
			if bestE == nil || e.Q > bestE.Q || (e.Q == bestE.Q && (e.Visits > bestE.Visits || (e.Visits == bestE.Visits && e.Thought < bestE.Thought))) {
				bestE = e
			}
		}
		if g := tb.NonZero(s); g != nz {
			t.Fatalf("seed %d: NonZero(%d) = %d, model %d", seed, s, g, nz)
		}
		th, _, ok := tb.Best(s)
		if ok != (bestE != nil) || (ok && th != bestE.Thought) {
			t.Fatalf("seed %d: Best(%d) = %d, %v; model %+v", seed, s, th, ok, bestE)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

func TestStateIDs(t *testing.T) {
	tb := newTable(t)
	for _, s := range []int64{7, 2, 9, 2} {
		if _, err := tb.Update(s, 1, 1, 0, true, 1); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := tb.StateIDs(), []int64{2, 7, 9}; !slices.Equal(got, want) {
		t.Errorf("StateIDs() = %v, want %v", got, want)
	}
}

// TestBestWithin: the near-tie of the SAMem sweep (state 5 of world 8 seed 5,
// per-type 20: "Search" 0.2411 with 586 visits above "Open" 0.2404 with
// 4365) and the cases around it, in every insertion order.
func TestBestWithin(t *testing.T) {
	row := []Entry{{5, 0, 0.2411, 586, 0}, {5, 4, 0.2408, 574, 0}, {5, 5, 0.2404, 4365, 0}, {5, 3, 0.2000, 9000, 0}}
	tests := []struct {
		name    string
		entries []Entry
		margin  float64
		best    int64
		q       float64
	}{
		{"margin 0 is Best", row, 0, 0, 0.2411},
		{"negative margin is Best", row, -1, 0, 0.2411},
		{"NaN margin is Best", row, math.NaN(), 0, 0.2411},
		{"0.1% keeps the argmax", row, 0.001, 0, 0.2411},
		{"2%: most visited of the near-tied", row, 0.02, 5, 0.2404},
		{"20%: a far lower but more visited thought joins", row, 0.2, 3, 0.2},
		{"equal visits: higher q", []Entry{{5, 1, 0.5, 3, 0}, {5, 2, 0.495, 3, 0}}, 0.05, 1, 0.5},
		{"equal visits and q: smaller id", []Entry{{5, 8, 0.5, 3, 0}, {5, 2, 0.5, 3, 0}}, 0.05, 2, 0.5},
		{"negative best: the floor is below it", []Entry{{5, 1, -0.100, 1, 0}, {5, 2, -0.101, 9, 0}, {5, 3, -0.2, 99, 0}}, 0.05, 2, -0.101},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, perm := range permutations(len(tt.entries)) {
				es := make([]Entry, len(perm))
				for i, p := range perm {
					es[i] = tt.entries[p]
				}
				tb, err := FromEntries(DefaultParams(), es)
				if err != nil {
					t.Fatal(err)
				}
				th, q, ok := tb.BestWithin(5, tt.margin)
				if !ok || th != tt.best || q != tt.q {
					t.Errorf("order %v: BestWithin(5, %v) = %d, %v, %v; want %d, %v", perm, tt.margin, th, q, ok, tt.best, tt.q)
				}
			}
		})
	}
	tb, err := New(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := tb.BestWithin(5, 0.02); ok {
		t.Error("BestWithin of a state without entries: ok")
	}
}
