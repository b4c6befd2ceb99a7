// Package scale measures SAMem's own costs at the memory sizes of the
// performance targets (docs/PERFORMANCE.md) and seed 002's Limitations: the
// trainer's overhead per step with 10,000 states and 10,000 thoughts in
// memory, checkpoints of a 1,000,000-entry Q-table with its clusters, and
// the wall-clock speedup of parallel episodes against a model whose calls
// cost 200 ms. Each figure comes with a baseline
// measured in the same run. cmd/bench prints them.
package scale

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/cluster/synth"
)

// MemorySize is the shape of a synthetic SAMem memory.
type MemorySize struct {
	States, Thoughts int // clusters of each kind
	PerState         int // Q-table entries per state (distinct thoughts)
	Dim              int // embedding dimension
}

// TargetMemory is the memory of the performance targets: 10,000 states, 10,000
// thoughts, 100 thoughts valued per state (1,000,000 Q-table entries),
// 1024-dimensional embeddings (seed 002 Sec. 4.1: text-embedding-v3).
var TargetMemory = MemorySize{States: 10000, Thoughts: 10000, PerState: 100, Dim: 1024}

// Entries is the number of Q-table entries.
func (s MemorySize) Entries() int { return s.States * min(s.PerState, s.Thoughts) }

// Memory is a synthetic memory and the streams that continue it, so that
// later queries revisit its clusters as real states would.
type Memory struct {
	State    checkpoints.SAMemState
	States   *synth.Stream // the stream the state clusters came from
	Thoughts *synth.Stream // the stream the thought clusters came from
}

// StateText and ThoughtText are the texts of synthetic clusters: about the
// length of a summariser's state and a thinker's thought (80-120 bytes), so
// that checkpoints carry realistic text columns.
func StateText(i int) string {
	return fmt.Sprintf("The agent is in situation %d: the target object has not been found yet and the agent holds nothing.", i)
}

// ThoughtText: see StateText.
func ThoughtText(i int) string {
	return fmt.Sprintf("Strategy %d: search the receptacles not yet opened, starting with the nearest one.", i)
}

// NewMemory builds a memory of size sz from seed: cluster vectors from the
// realistic synthetic stream of package cluster/synth (clusters grouped into
// topics and domains), Q-table rows sorted as checkpoints keep them, with
// values in [-1, 1], visits and last-update steps that a run could have made.
func NewMemory(ctx context.Context, sz MemorySize, seed uint64) (*Memory, error) {
	ss, err := synth.New(synth.Config{Dim: sz.Dim}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return nil, err
	}
	ts, err := synth.New(synth.Config{Dim: sz.Dim}, rand.New(rand.NewPCG(seed, 2)))
	if err != nil {
		return nil, err
	}
	m := &Memory{States: ss, Thoughts: ts}
	st := &m.State
	st.States = make([]checkpoints.ClusterRow, sz.States)
	for i := range st.States {
		st.States[i] = checkpoints.ClusterRow{ID: int64(i), Text: StateText(i), Members: 1 + int64(i%7), Embedding: ss.NextNew()}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st.Thoughts = make([]checkpoints.ClusterRow, sz.Thoughts)
	for i := range st.Thoughts {
		st.Thoughts[i] = checkpoints.ClusterRow{ID: int64(i), Text: ThoughtText(i), Members: 1 + int64(i%5), Embedding: ts.NextNew()}
	}
	per := min(sz.PerState, sz.Thoughts)
	st.QTable = make([]checkpoints.QRow, 0, sz.States*per)
	rng := rand.New(rand.NewPCG(seed, 3))
	for s := range sz.States {
		// per distinct thoughts in ascending order: a random start and a
		// stride coprime with nothing in particular is enough to spread
		// them; sorting keeps the checkpoint order.
		start := rng.IntN(sz.Thoughts)
		for k := range per {
			th := (start + k*(sz.Thoughts/per)) % sz.Thoughts
			st.QTable = append(st.QTable, checkpoints.QRow{StateID: int64(s), ThoughtID: int64(th),
				Q: 2*rng.Float64() - 1, Visits: 1 + rng.Int64N(20), LastUpdateStep: 0})
		}
		rows := st.QTable[len(st.QTable)-per:]
		sortByThought(rows)
	}
	return m, ctx.Err()
}

func sortByThought(rows []checkpoints.QRow) {
	// Insertion sort would be quadratic at 100 per row times 10,000 rows;
	// the stride order is a rotation of a sorted list, so one rotation
	// sorts it.
	cut := 0
	for i := 1; i < len(rows); i++ {
		if rows[i].ThoughtID < rows[i-1].ThoughtID {
			cut = i
			break
		}
	}
	if cut == 0 {
		return
	}
	tmp := append([]checkpoints.QRow(nil), rows[cut:]...)
	copy(rows[len(rows)-cut:], rows[:cut])
	copy(rows, tmp)
}
