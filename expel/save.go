package expel

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
	TrajectoriesFile = "expel_trajectories.parquet" // one row per gathered trial
	StepsFile        = "expel_steps.parquet"        // one row per step of those trials
	ReflectionsFile  = "expel_reflections.parquet"  // one row per reflection, by task
	InsightsFile     = "expel_insights.parquet"     // the insight list, most important first
)

// formatVersion is the version of ExpeL's checkpoint rows.
const formatVersion = 1

// ErrFormat is returned (wrapped) by Load for a checkpoint whose rows break
// its invariants: an unknown version, steps or reflections of no listed
// trajectory, two successes of one task, an insight with no text or a
// count below 1, insights out of order.
var ErrFormat = errors.New("expel: bad checkpoint")

// TrajectoryRow is one gathered trial with its task.
type TrajectoryRow struct {
	Version     int32   `parquet:"version"`
	TaskID      string  `parquet:"task_id,dict"`
	TaskType    string  `parquet:"task_type,dict"`
	Goal        string  `parquet:"goal"`
	Split       string  `parquet:"split,dict"`
	Seed        int64   `parquet:"seed"`
	MaxSteps    int32   `parquet:"max_steps"`
	OracleSteps int32   `parquet:"oracle_steps"`
	Trial       int32   `parquet:"trial"`
	Won         bool    `parquet:"won"`
	Score       float64 `parquet:"score"`
	MaxScore    float64 `parquet:"max_score"`
	Start       string  `parquet:"start"`
	Steps       int32   `parquet:"steps"`
}

// StepRow is one step of a gathered trial.
type StepRow struct {
	TaskID   string `parquet:"task_id,dict"`
	Trial    int32  `parquet:"trial"`
	Won      bool   `parquet:"won"`
	Position int32  `parquet:"position"`
	Thought  string `parquet:"thought"`
	Action   string `parquet:"action"`
	Text     string `parquet:"text"`
}

// ReflectionRow is one reflection of a task, in the order written.
type ReflectionRow struct {
	TaskID   string `parquet:"task_id,dict"`
	Position int32  `parquet:"position"`
	Text     string `parquet:"text"`
}

// InsightRow is one insight with its count.
type InsightRow struct {
	Version  int32  `parquet:"version"`
	Position int32  `parquet:"position"`
	Count    int32  `parquet:"count"`
	Text     string `parquet:"text"`
}

// Save implements agent.Saver.
func (m *Method) Save(ctx context.Context, dir string) error {
	var trs []TrajectoryRow
	var steps []StepRow
	var refl []ReflectionRow
	var ins []InsightRow
	m.mu.Lock()
	ids := make([]string, 0, len(m.pool))
	for id := range m.pool {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	add := func(t envbridge.Task, tr Trajectory) {
		trs = append(trs, TrajectoryRow{Version: formatVersion, TaskID: t.ID, TaskType: t.Type, Goal: t.Goal, Split: t.Split,
			Seed: t.Seed, MaxSteps: int32(t.MaxSteps), OracleSteps: int32(t.OracleSteps), Trial: int32(tr.Trial), Won: tr.Won,
			Score: tr.Score, MaxScore: tr.MaxScore, Start: tr.Start, Steps: int32(len(tr.Steps))})
		for i, s := range tr.Steps {
			steps = append(steps, StepRow{TaskID: t.ID, Trial: int32(tr.Trial), Won: tr.Won, Position: int32(i), Thought: s.Thought, Action: s.Action, Text: s.Text})
		}
	}
	for _, id := range ids {
		r := m.pool[id]
		for _, f := range r.Failures {
			add(r.Task, f)
		}
		if r.Success != nil {
			add(r.Task, *r.Success)
		}
		for i, x := range r.Reflections {
			refl = append(refl, ReflectionRow{TaskID: id, Position: int32(i), Text: x})
		}
	}
	for i, x := range m.insights {
		ins = append(ins, InsightRow{Version: formatVersion, Position: int32(i), Count: int32(x.Count), Text: x.Text})
	}
	m.mu.Unlock()
	for _, f := range []struct {
		name  string
		write func(path string) error
	}{
		{TrajectoriesFile, func(p string) error { return checkpoints.WriteFile(ctx, p, trs, checkpoints.WriteOptions{}) }},
		{StepsFile, func(p string) error { return checkpoints.WriteFile(ctx, p, steps, checkpoints.WriteOptions{}) }},
		{ReflectionsFile, func(p string) error { return checkpoints.WriteFile(ctx, p, refl, checkpoints.WriteOptions{}) }},
		{InsightsFile, func(p string) error { return checkpoints.WriteFile(ctx, p, ins, checkpoints.WriteOptions{}) }},
	} {
		if err := f.write(filepath.Join(dir, f.name)); err != nil {
			return fmt.Errorf("expel: save: %w", err)
		}
	}
	return nil
}

// Load implements agent.Saver. It replaces the memory only when every file
// reads and the rows fit together; an error names the file.
func (m *Method) Load(ctx context.Context, dir string) error {
	trs, err := checkpoints.ReadFile[TrajectoryRow](ctx, filepath.Join(dir, TrajectoriesFile))
	if err != nil {
		return fmt.Errorf("expel: load: %w", err)
	}
	steps, err := checkpoints.ReadFile[StepRow](ctx, filepath.Join(dir, StepsFile))
	if err != nil {
		return fmt.Errorf("expel: load: %w", err)
	}
	refl, err := checkpoints.ReadFile[ReflectionRow](ctx, filepath.Join(dir, ReflectionsFile))
	if err != nil {
		return fmt.Errorf("expel: load: %w", err)
	}
	ins, err := checkpoints.ReadFile[InsightRow](ctx, filepath.Join(dir, InsightsFile))
	if err != nil {
		return fmt.Errorf("expel: load: %w", err)
	}
	pool, err := decodePool(trs, steps, refl)
	if err != nil {
		return err
	}
	list, err := decodeInsights(ins)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.pool, m.insights, m.dirty = pool, list, false
	m.mu.Unlock()
	return nil
}

type trialKey struct {
	task  string
	trial int32
	won   bool
}

func bad(file, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrFormat, file, fmt.Sprintf(format, args...))
}

func decodePool(trs []TrajectoryRow, steps []StepRow, refl []ReflectionRow) (map[string]*Record, error) {
	byTrial := map[trialKey][]StepRow{}
	for _, s := range steps {
		k := trialKey{s.TaskID, s.Trial, s.Won}
		byTrial[k] = append(byTrial[k], s)
	}
	pool := map[string]*Record{}
	used := 0
	for i, r := range trs {
		if r.Version != formatVersion {
			return nil, bad(TrajectoriesFile, "row %d: version %d, want %d", i, r.Version, formatVersion)
		}
		if r.TaskID == "" || r.Trial < 0 || r.Steps < 0 {
			return nil, bad(TrajectoriesFile, "row %d: task %q trial %d steps %d", i, r.TaskID, r.Trial, r.Steps)
		}
		k := trialKey{r.TaskID, r.Trial, r.Won}
		rows := byTrial[k]
		if len(rows) != int(r.Steps) {
			return nil, bad(StepsFile, "task %s trial %d has %d steps, want %d", r.TaskID, r.Trial, len(rows), r.Steps)
		}
		delete(byTrial, k)
		used += len(rows)
		sort.Slice(rows, func(a, b int) bool { return rows[a].Position < rows[b].Position })
		tr := Trajectory{TaskID: r.TaskID, Type: r.TaskType, Goal: r.Goal, Split: r.Split, Trial: int(r.Trial), Won: r.Won,
			Score: r.Score, MaxScore: r.MaxScore, Start: r.Start}
		for j, s := range rows {
			if int(s.Position) != j {
				return nil, bad(StepsFile, "task %s trial %d: step %d at position %d", r.TaskID, r.Trial, j, s.Position)
			}
			tr.Steps = append(tr.Steps, Step{Thought: s.Thought, Action: s.Action, Text: s.Text})
		}
		rec := pool[r.TaskID]
		if rec == nil {
			rec = &Record{Task: envbridge.Task{ID: r.TaskID, Type: r.TaskType, Goal: r.Goal, Split: r.Split, Seed: r.Seed,
				MaxSteps: int(r.MaxSteps), OracleSteps: int(r.OracleSteps)}}
			pool[r.TaskID] = rec
		}
		switch {
		case r.Won && rec.Success != nil:
			return nil, bad(TrajectoriesFile, "task %s has two successes", r.TaskID)
		case r.Won:
			rec.Success = &tr
		case rec.Success != nil || int(r.Trial) != len(rec.Failures):
			return nil, bad(TrajectoriesFile, "task %s: failed trial %d out of order", r.TaskID, r.Trial)
		default:
			rec.Failures = append(rec.Failures, tr)
		}
	}
	if used != len(steps) {
		return nil, bad(StepsFile, "%d steps belong to no trajectory", len(steps)-used)
	}
	for i, x := range refl {
		rec := pool[x.TaskID]
		if rec == nil || x.Text == "" || int(x.Position) != len(rec.Reflections) {
			return nil, bad(ReflectionsFile, "row %d: task %q position %d", i, x.TaskID, x.Position)
		}
		rec.Reflections = append(rec.Reflections, x.Text)
	}
	return pool, nil
}

func decodeInsights(rows []InsightRow) ([]Insight, error) {
	var out []Insight
	for i, r := range rows {
		if r.Version != formatVersion {
			return nil, bad(InsightsFile, "row %d: version %d, want %d", i, r.Version, formatVersion)
		}
		if int(r.Position) != i || r.Text == "" || r.Count < 1 || (i > 0 && int(r.Count) > out[i-1].Count) {
			return nil, bad(InsightsFile, "row %d: position %d count %d text %q", i, r.Position, r.Count, r.Text)
		}
		out = append(out, Insight{Text: r.Text, Count: int(r.Count)})
	}
	return out, nil
}
