package samem

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/forget"
	"github.com/samem/trainer/qlearn"
)

// Save implements agent.Saver: the Q-table and the state and thought clusters
// as Parquet (checkpoints.SaveSAMem).
func (m *Method) Save(ctx context.Context, dir string) error {
	m.mu.Lock()
	st := m.snapshot()
	clock, err := json.Marshal(progress{Step: m.step, Stats: m.stats, NextState: m.states.NextID(), NextThought: m.thoughts.NextID(), Pruned: m.prunedList()})
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("save samem: %w", err)
	}
	if err := checkpoints.SaveSAMem(ctx, dir, st); err != nil {
		return fmt.Errorf("save samem: %w", err)
	}
	// The checkpoint directory is committed as a whole (checkpoints.Store),
	// so a plain write is atomic enough here.
	if err := os.WriteFile(filepath.Join(dir, progressFile), clock, 0o644); err != nil {
		return fmt.Errorf("save samem: %w", err)
	}
	return nil
}

// progressFile keeps the method's step clock (the Q-table's
// last_update_step continues from it after a resume) and its counters.
const progressFile = "samem.json"

type progress struct {
	Step        int64 `json:"step"`
	Stats       Stats `json:"stats"`
	NextState   int64 `json:"next_state_id"`
	NextThought int64 `json:"next_thought_id"`
	// Pruned are the (state, thought) pairs forgetting rejected, sorted;
	// exploring never retries them.
	Pruned [][2]int64 `json:"pruned,omitempty"`
}

func (m *Method) prunedList() [][2]int64 {
	out := make([][2]int64, 0, len(m.pruned))
	for p := range m.pruned {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b [2]int64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	return out
}

// Snapshot returns a copy of the memory as a checkpoint holds it.
func (m *Method) Snapshot() checkpoints.SAMemState {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snapshot()
}

func (m *Method) snapshot() checkpoints.SAMemState {
	entries := m.table.Entries()
	q := make([]checkpoints.QRow, len(entries))
	for i, e := range entries {
		q[i] = checkpoints.QRow{StateID: e.State, ThoughtID: e.Thought, Q: e.Q, Visits: e.Visits, LastUpdateStep: e.LastStep}
	}
	return checkpoints.SAMemState{QTable: q, States: m.states.Rows(), Thoughts: m.thoughts.Rows()}
}

// Load implements agent.Saver. The memory is replaced only when the whole
// checkpoint reads and checks; on error the method is unchanged.
func (m *Method) Load(ctx context.Context, dir string) error {
	st, err := checkpoints.LoadSAMem(ctx, dir, m.deps.Embedder.Dim())
	if err != nil {
		return fmt.Errorf("load samem: %w", err)
	}
	var pr progress
	path := filepath.Join(dir, progressFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load samem: %w", err)
	}
	if err := json.Unmarshal(b, &pr); err != nil {
		return fmt.Errorf("load samem %s: %w", path, err)
	}
	entries := make([]qlearn.Entry, len(st.QTable))
	for i, r := range st.QTable {
		entries[i] = qlearn.Entry{State: r.StateID, Thought: r.ThoughtID, Q: r.Q, Visits: r.Visits, LastStep: r.LastUpdateStep}
		if r.LastUpdateStep > pr.Step {
			return fmt.Errorf("load samem %s: entry (%d, %d) updated at step %d after the saved clock %d", dir, r.StateID, r.ThoughtID, r.LastUpdateStep, pr.Step)
		}
	}
	table, err := qlearn.FromEntries(qlearn.Params{Alpha: m.cfg.Alpha, Gamma: m.cfg.Gamma}, entries)
	if err != nil {
		return fmt.Errorf("load samem %s: %w", dir, err)
	}
	states, err := restoreClusters(m.cfg.NoClustering, m.cfg.Threshold, m.deps.Embedder.Dim(), st.States, pr.NextState)
	if err != nil {
		return fmt.Errorf("load samem %s: states: %w", dir, err)
	}
	thoughts, err := restoreClusters(m.cfg.NoClustering, m.cfg.ThoughtThreshold, m.deps.Embedder.Dim(), st.Thoughts, pr.NextThought)
	if err != nil {
		return fmt.Errorf("load samem %s: thoughts: %w", dir, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.table, m.states, m.thoughts = table, states, thoughts
	m.step, m.stats = pr.Step, pr.Stats
	m.pruned = make(map[[2]int64]bool, len(pr.Pruned))
	for _, p := range pr.Pruned {
		m.pruned[p] = true
	}
	m.forgetter = forget.New(m.deps.Checker)
	m.forgetter.MinThoughts = m.cfg.MinThoughts
	m.forgetter.DropZero = m.cfg.ForgetDropZero
	return nil
}
