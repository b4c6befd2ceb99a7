package clin

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
)

// Files written by Save, readable by any Parquet tool.
const (
	trialsFile = "clin_trials.parquet" // one row per memory (meta-memory or after a trial)
	ItemsFile  = "clin_items.parquet"  // one row per abstraction of those memories
)

// formatVersion is the version of CLIN's checkpoint rows.
const formatVersion = 1

// ErrFormat is returned by Load for a checkpoint with an unknown version or
// rows that do not fit together (an item of a memory that is not listed).
var ErrFormat = errors.New("clin: bad checkpoint")

// TrialRow is one memory of one task. Trial -1 is the meta-memory generated
// before the task's first trial (Eq. 3); Trial k >= 0 is the memory generated
// after trial k (Eq. 2).
type TrialRow struct {
	Version     int32   `parquet:"version"`
	TaskID      string  `parquet:"task_id,dict"`
	TaskType    string  `parquet:"task_type,dict"`
	Goal        string  `parquet:"goal"`
	Split       string  `parquet:"split,dict"`
	Seed        int64   `parquet:"seed"`
	MaxSteps    int32   `parquet:"max_steps"`
	OracleSteps int32   `parquet:"oracle_steps"`
	Trial       int32   `parquet:"trial"`
	Reward      float64 `parquet:"reward"`
	Items       int32   `parquet:"items"`
}

// ItemRow is one causal abstraction of one memory.
type ItemRow struct {
	TaskID       string  `parquet:"task_id,dict"`
	Trial        int32   `parquet:"trial"` // the memory it belongs to
	Position     int32   `parquet:"position"`
	Kind         string  `parquet:"kind,dict"`
	Modifier     string  `parquet:"modifier,dict"`
	X            string  `parquet:"x,dict"`
	Y            string  `parquet:"y,dict"`
	SourceTrial  int32   `parquet:"source_trial"`
	SourceReward float64 `parquet:"source_reward"`
	Text         string  `parquet:"text"` // the item as the paper writes it, for readers
}

// Save implements agent.Saver.
func (m *Method) Save(ctx context.Context, dir string) error {
	m.mu.Lock()
	ids := make([]string, 0, len(m.tasks))
	for id := range m.tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var trials []TrialRow
	var items []ItemRow
	addMem := func(t envbridge.Task, trial int, reward float64, mem []Abstraction) {
		trials = append(trials, TrialRow{
			Version: formatVersion, TaskID: t.ID, TaskType: t.Type, Goal: t.Goal, Split: t.Split,
			Seed: t.Seed, MaxSteps: int32(t.MaxSteps), OracleSteps: int32(t.OracleSteps),
			Trial: int32(trial), Reward: reward, Items: int32(len(mem)),
		})
		for i, a := range mem {
			items = append(items, ItemRow{
				TaskID: t.ID, Trial: int32(trial), Position: int32(i), Kind: string(a.Kind), Modifier: string(a.Modifier),
				X: a.X, Y: a.Y, SourceTrial: int32(a.Trial), SourceReward: a.Reward, Text: a.String(),
			})
		}
	}
	for _, id := range ids {
		tm := m.tasks[id]
		if tm.HasMeta {
			addMem(tm.Task, -1, 0, tm.Meta)
		}
		for _, mem := range tm.Trials {
			addMem(tm.Task, mem.Trial, mem.Reward, mem.Items)
		}
	}
	m.mu.Unlock()
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, trialsFile), trials, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("clin: save: %w", err)
	}
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, ItemsFile), items, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("clin: save: %w", err)
	}
	return nil
}

// Load implements agent.Saver. It replaces the memory only when the whole
// checkpoint reads and checks.
func (m *Method) Load(ctx context.Context, dir string) error {
	trials, err := checkpoints.ReadFile[TrialRow](ctx, filepath.Join(dir, trialsFile))
	if err != nil {
		return fmt.Errorf("clin: load: %w", err)
	}
	items, err := checkpoints.ReadFile[ItemRow](ctx, filepath.Join(dir, ItemsFile))
	if err != nil {
		return fmt.Errorf("clin: load: %w", err)
	}
	tasks, err := decode(trials, items)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.tasks = tasks
	m.mu.Unlock()
	return nil
}

type memKey struct {
	task  string
	trial int32
}

func decode(trials []TrialRow, items []ItemRow) (map[string]*taskMemory, error) {
	byMem := map[memKey][]ItemRow{}
	for _, it := range items {
		k := memKey{it.TaskID, it.Trial}
		byMem[k] = append(byMem[k], it)
	}
	tasks := map[string]*taskMemory{}
	used := 0
	for _, r := range trials {
		if r.Version != formatVersion {
			return nil, fmt.Errorf("%w: version %d, want %d", ErrFormat, r.Version, formatVersion)
		}
		rows := byMem[memKey{r.TaskID, r.Trial}]
		if len(rows) != int(r.Items) {
			return nil, fmt.Errorf("%w: task %s memory %d has %d items, want %d", ErrFormat, r.TaskID, r.Trial, len(rows), r.Items)
		}
		sort.Slice(rows, func(i, j int) bool { return rows[i].Position < rows[j].Position })
		var mem []Abstraction // nil when empty, as the method stores it
		for i, it := range rows {
			k := Kind(it.Kind)
			if int(it.Position) != i || (k != Necessary && k != NotContribute && k != Advice) {
				return nil, fmt.Errorf("%w: task %s memory %d item %d", ErrFormat, r.TaskID, r.Trial, it.Position)
			}
			mod := Modifier(it.Modifier)
			if mod != ModNone && mod != ModMay && mod != ModShould {
				return nil, fmt.Errorf("%w: modifier %q", ErrFormat, it.Modifier)
			}
			mem = append(mem, Abstraction{Kind: k, Modifier: mod, X: it.X, Y: it.Y, Trial: int(it.SourceTrial), Reward: it.SourceReward})
		}
		used += len(rows)
		tm := tasks[r.TaskID]
		if tm == nil {
			tm = &taskMemory{Task: envbridge.Task{
				ID: r.TaskID, Type: r.TaskType, Goal: r.Goal, Split: r.Split, Seed: r.Seed,
				MaxSteps: int(r.MaxSteps), OracleSteps: int(r.OracleSteps),
			}}
			tasks[r.TaskID] = tm
		}
		switch {
		case r.Trial == -1 && !tm.HasMeta && len(tm.Trials) == 0:
			tm.Meta, tm.HasMeta = mem, true
		case r.Trial == int32(len(tm.Trials)):
			tm.Trials = append(tm.Trials, Memory{Trial: int(r.Trial), Reward: r.Reward, Items: mem})
		default:
			return nil, fmt.Errorf("%w: task %s memory %d out of order", ErrFormat, r.TaskID, r.Trial)
		}
	}
	if used != len(items) {
		return nil, fmt.Errorf("%w: %d items belong to no memory", ErrFormat, len(items)-used)
	}
	return tasks, nil
}
