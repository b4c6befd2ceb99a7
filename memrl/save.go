package memrl

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/samem/trainer/checkpoints"
)

// Files written by Save, readable by any Parquet tool.
const (
	ItemsFile   = "memrl_items.parquet"   // one row per triplet
	IntentsFile = "memrl_intents.parquet" // one row per intent key, with its embedding
	StateFile   = "memrl_state.parquet"   // one row: format, z-norm constants, next ids
	PendingFile = "memrl_pending.parquet" // training episodes of an iteration in progress
)

// formatVersion is the version of MemRL's checkpoint rows.
const formatVersion = 1

// ErrFormat is returned (wrapped) by Load for a checkpoint whose rows do
// not fit together: an unknown version, a triplet under a key that is not
// listed, duplicate or out-of-range ids, a vector of another dimension, a
// value that is not a number.
var ErrFormat = errors.New("memrl: bad checkpoint")

// ItemRow is one triplet.
type ItemRow struct {
	ID         int64   `parquet:"id"`
	Key        int64   `parquet:"intent"`
	Task       string  `parquet:"task,dict"`
	Iteration  int32   `parquet:"iteration"`
	Success    bool    `parquet:"success"`
	Lesson     string  `parquet:"lesson"`
	Trajectory string  `parquet:"trajectory"`
	Q          float64 `parquet:"q"`
	Visits     int64   `parquet:"visits"`
	Retrievals int64   `parquet:"retrievals"`
	LastReward float64 `parquet:"last_reward"`
	RewardMA   float64 `parquet:"reward_ma"`
	Related    []int64 `parquet:"related,list"`
}

// IntentRow is one intent key.
type IntentRow struct {
	ID     int64     `parquet:"id"`
	Text   string    `parquet:"text"`
	Vector []float32 `parquet:"embedding,list"`
}

// StateRow is the memory's own state.
type StateRow struct {
	Version    int32   `parquet:"version"`
	Embedder   string  `parquet:"embedder"`
	Dim        int32   `parquet:"dim"`
	SimMean    float64 `parquet:"sim_mean"`
	SimStd     float64 `parquet:"sim_std"`
	Estimated  bool    `parquet:"sim_estimated"`
	NextItem   int64   `parquet:"next_item"`
	NextIntent int64   `parquet:"next_intent"`
}

// PendingRow is a finished training episode of the iteration in progress
// (a checkpoint taken on a stop), applied at the iteration's end.
type PendingRow struct {
	Episode    int64     `parquet:"episode"`
	Task       string    `parquet:"task,dict"`
	Iteration  int32     `parquet:"iteration"`
	Intent     string    `parquet:"intent"`
	Vector     []float32 `parquet:"embedding,list"`
	Success    bool      `parquet:"success"`
	Reward     float64   `parquet:"reward"`
	Injected   []int64   `parquet:"injected,list"`
	Candidates []int64   `parquet:"candidates,list"`
	MergeKey   int64     `parquet:"merge_intent"`
	Lesson     string    `parquet:"lesson"`
	Trajectory string    `parquet:"trajectory"`
}

// Save implements agent.Saver.
func (m *Method) Save(ctx context.Context, dir string) error {
	m.mu.Lock()
	items := make([]ItemRow, len(m.items))
	for i, it := range m.items {
		items[i] = ItemRow{ID: it.ID, Key: it.Key, Task: it.Task, Iteration: int32(it.Iteration), Success: it.Success,
			Lesson: it.Lesson, Trajectory: it.Trajectory, Q: it.Q, Visits: it.Visits, Retrievals: it.Retrievals,
			LastReward: it.LastReward, RewardMA: it.RewardMA, Related: slices.Clone(it.Related)}
	}
	intents := make([]IntentRow, len(m.intents))
	for i, k := range m.intents {
		intents[i] = IntentRow{ID: k.ID, Text: k.Text, Vector: slices.Clone(k.Vector)}
	}
	pend := slices.Clone(m.pend)
	slices.SortStableFunc(pend, func(a, b pending) int { return a.Episode - b.Episode })
	prow := make([]PendingRow, len(pend))
	for i, p := range pend {
		prow[i] = PendingRow{Episode: int64(p.Episode), Task: p.Task, Iteration: int32(p.Iteration), Intent: p.Intent,
			Vector: slices.Clone(p.Vector), Success: p.Success, Reward: p.Reward, Injected: slices.Clone(p.Injected),
			Candidates: slices.Clone(p.Candidates), MergeKey: p.MergeKey, Lesson: p.Lesson, Trajectory: p.Trajectory}
	}
	state := []StateRow{{Version: formatVersion, Embedder: m.emb.Model(), Dim: int32(m.emb.Dim()), SimMean: m.simMean, SimStd: m.simStd,
		Estimated: m.estimated, NextItem: m.nextItem, NextIntent: m.nextIntent}}
	m.mu.Unlock()
	wide := checkpoints.WriteOptions{MaxRowsPerRowGroup: 1024}
	for _, w := range []func() error{
		func() error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, StateFile), state, checkpoints.WriteOptions{})
		},
		func() error { return checkpoints.WriteFile(ctx, filepath.Join(dir, ItemsFile), items, wide) },
		func() error { return checkpoints.WriteFile(ctx, filepath.Join(dir, IntentsFile), intents, wide) },
		func() error { return checkpoints.WriteFile(ctx, filepath.Join(dir, PendingFile), prow, wide) },
	} {
		if err := w(); err != nil {
			return fmt.Errorf("memrl: save: %w", err)
		}
	}
	return nil
}

// Load implements agent.Saver. It replaces the memory only when every file
// reads and the rows fit together; a checkpoint of another embedder or
// dimension is refused.
func (m *Method) Load(ctx context.Context, dir string) error {
	state, err := checkpoints.ReadFile[StateRow](ctx, filepath.Join(dir, StateFile))
	if err != nil {
		return fmt.Errorf("memrl: load: %w", err)
	}
	items, err := checkpoints.ReadFile[ItemRow](ctx, filepath.Join(dir, ItemsFile))
	if err != nil {
		return fmt.Errorf("memrl: load: %w", err)
	}
	intents, err := checkpoints.ReadFile[IntentRow](ctx, filepath.Join(dir, IntentsFile))
	if err != nil {
		return fmt.Errorf("memrl: load: %w", err)
	}
	prow, err := checkpoints.ReadFile[PendingRow](ctx, filepath.Join(dir, PendingFile))
	if err != nil {
		return fmt.Errorf("memrl: load: %w", err)
	}
	d, err := m.decode(filepath.Join(dir, StateFile), state, items, intents, prow)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.items, m.intents, m.pend = d.items, d.intents, d.pend
	m.simMean, m.simStd, m.estimated = d.simMean, d.simStd, d.estimated
	m.nextItem, m.nextIntent = d.nextItem, d.nextIntent
	m.mu.Unlock()
	return nil
}

type decoded struct {
	items                []Item
	intents              []Intent
	pend                 []pending
	simMean, simStd      float64
	estimated            bool
	nextItem, nextIntent int64
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func (m *Method) decode(statePath string, state []StateRow, items []ItemRow, intents []IntentRow, prow []PendingRow) (decoded, error) {
	bad := func(format string, a ...any) (decoded, error) {
		return decoded{}, fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, a...))
	}
	if len(state) != 1 {
		return bad("%s has %d rows, want 1", statePath, len(state))
	}
	st := state[0]
	switch {
	case st.Version != formatVersion:
		return bad("%s: format version %d, want %d", statePath, st.Version, formatVersion)
	case st.Embedder != m.emb.Model() || int(st.Dim) != m.emb.Dim():
		return bad("%s: memory embedded with %s (dimension %d), this run embeds with %s (dimension %d)", statePath, st.Embedder, st.Dim, m.emb.Model(), m.emb.Dim())
	case !finite(st.SimMean, st.SimStd) || st.SimStd < 0 || st.NextItem < 0 || st.NextIntent < 0:
		return bad("%s: z-norm constants %g, %g or next ids %d, %d out of range", statePath, st.SimMean, st.SimStd, st.NextItem, st.NextIntent)
	}
	d := decoded{simMean: st.SimMean, simStd: st.SimStd, estimated: st.Estimated, nextItem: st.NextItem, nextIntent: st.NextIntent}
	keys := map[int64]bool{}
	for i, r := range intents {
		if r.ID < 0 || r.ID >= st.NextIntent || keys[r.ID] || len(r.Vector) != int(st.Dim) || r.Text == "" {
			return bad("%s row %d: intent %d: duplicate, out of range, empty or of dimension %d", IntentsFile, i, r.ID, len(r.Vector))
		}
		keys[r.ID] = true
		d.intents = append(d.intents, Intent(r))
	}
	ids := map[int64]bool{}
	for i, r := range items {
		if r.ID < 0 || r.ID >= st.NextItem || ids[r.ID] || !keys[r.Key] || !finite(r.Q, r.LastReward, r.RewardMA) ||
			r.Visits < 0 || r.Retrievals < 0 || math.Abs(r.Q) > 1 {
			return bad("%s row %d: triplet %d: duplicate or out-of-range id, unknown intent %d, or a value out of range", ItemsFile, i, r.ID, r.Key)
		}
		ids[r.ID] = true
		d.items = append(d.items, Item{ID: r.ID, Key: r.Key, Task: r.Task, Iteration: int(r.Iteration), Success: r.Success,
			Lesson: r.Lesson, Trajectory: r.Trajectory, Q: r.Q, Visits: r.Visits, Retrievals: r.Retrievals,
			LastReward: r.LastReward, RewardMA: r.RewardMA, Related: nilIfEmpty(r.Related)})
	}
	for i, r := range prow {
		if len(r.Vector) != int(st.Dim) || !finite(r.Reward) || math.Abs(r.Reward) > 1 || r.Episode < 0 || r.Intent == "" {
			return bad("%s row %d: episode %d: dimension %d, reward %g or intent out of range", PendingFile, i, r.Episode, len(r.Vector), r.Reward)
		}
		d.pend = append(d.pend, pending{Episode: int(r.Episode), Task: r.Task, Iteration: int(r.Iteration), Intent: r.Intent,
			Vector: r.Vector, Success: r.Success, Reward: r.Reward, Injected: nilIfEmpty(r.Injected), Candidates: nilIfEmpty(r.Candidates),
			MergeKey: r.MergeKey, Lesson: r.Lesson, Trajectory: r.Trajectory})
	}
	return d, nil
}

func nilIfEmpty(s []int64) []int64 {
	if len(s) == 0 {
		return nil
	}
	return s
}
