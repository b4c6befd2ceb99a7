package awm

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/samem/trainer/checkpoints"
)

// Files written by Save, readable by any Parquet tool.
const (
	SuccessesFile = "awm_successes.parquet" // one row per task in a group's success pool
	StepsFile     = "awm_steps.parquet"     // one row per step of those trajectories
	WorkflowsFile = "awm_workflows.parquet" // one row per step of each group's workflows
)

const formatVersion = 1

// ErrFormat is returned (wrapped) by Load for rows that break the
// checkpoint's invariants (an unknown version, steps of no listed success,
// workflows out of order or shorter than MinSteps).
var ErrFormat = errors.New("awm: bad checkpoint")

// SuccessRow is one successful trajectory of a group's pool.
type SuccessRow struct {
	Version int32  `parquet:"version"`
	Group   string `parquet:"group,dict"`
	TaskID  string `parquet:"task_id,dict"`
	Goal    string `parquet:"goal"`
	Start   string `parquet:"start"`
	Seen    int32  `parquet:"seen"` // the task's successes so far (the 1/n replacement)
	Steps   int32  `parquet:"steps"`
}

// StepRow is one step of a pooled trajectory.
type StepRow struct {
	Group    string `parquet:"group,dict"`
	TaskID   string `parquet:"task_id,dict"`
	Position int32  `parquet:"position"`
	Thought  string `parquet:"thought"`
	Action   string `parquet:"action"`
	Text     string `parquet:"text"`
}

// WorkflowRow is one step of one workflow of a group.
type WorkflowRow struct {
	Version     int32  `parquet:"version"`
	Group       string `parquet:"group,dict"`
	Workflow    int32  `parquet:"workflow"`
	Step        int32  `parquet:"step"`
	Name        string `parquet:"name"`
	Description string `parquet:"description"`
	State       string `parquet:"state"`
	Reasoning   string `parquet:"reasoning"`
	Action      string `parquet:"action"`
}

// Save implements agent.Saver.
func (m *Method) Save(ctx context.Context, dir string) error {
	var succ []SuccessRow
	var steps []StepRow
	var wf []WorkflowRow
	m.mu.Lock()
	names := make([]string, 0, len(m.groups))
	for n := range m.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		g := m.groups[n]
		ids := make([]string, 0, len(g.successes))
		for id := range g.successes {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			t := g.successes[id]
			succ = append(succ, SuccessRow{Version: formatVersion, Group: n, TaskID: id, Goal: t.Goal, Start: t.Start, Seen: int32(g.seen[id]), Steps: int32(len(t.Steps))})
			for i, s := range t.Steps {
				steps = append(steps, StepRow{Group: n, TaskID: id, Position: int32(i), Thought: s.Thought, Action: s.Action, Text: s.Text})
			}
		}
		for i, w := range g.workflows {
			for j, s := range w.Steps {
				wf = append(wf, WorkflowRow{Version: formatVersion, Group: n, Workflow: int32(i), Step: int32(j), Name: w.Name, Description: w.Description, State: s.State, Reasoning: s.Reasoning, Action: s.Action})
			}
		}
	}
	m.mu.Unlock()
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, SuccessesFile), succ, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("awm: save: %w", err)
	}
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, StepsFile), steps, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("awm: save: %w", err)
	}
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, WorkflowsFile), wf, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("awm: save: %w", err)
	}
	return nil
}

// Load implements agent.Saver; the memory is replaced only when every file
// reads and the rows fit together.
func (m *Method) Load(ctx context.Context, dir string) error {
	succ, err := checkpoints.ReadFile[SuccessRow](ctx, filepath.Join(dir, SuccessesFile))
	if err != nil {
		return fmt.Errorf("awm: load: %w", err)
	}
	steps, err := checkpoints.ReadFile[StepRow](ctx, filepath.Join(dir, StepsFile))
	if err != nil {
		return fmt.Errorf("awm: load: %w", err)
	}
	wf, err := checkpoints.ReadFile[WorkflowRow](ctx, filepath.Join(dir, WorkflowsFile))
	if err != nil {
		return fmt.Errorf("awm: load: %w", err)
	}
	groups, err := decode(succ, steps, wf)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.groups = groups
	m.mu.Unlock()
	return nil
}

func bad(file, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrFormat, file, fmt.Sprintf(format, args...))
}

func decode(succ []SuccessRow, steps []StepRow, wf []WorkflowRow) (map[string]*group, error) {
	type key struct{ group, task string }
	byTask := map[key][]StepRow{}
	for _, s := range steps {
		k := key{s.Group, s.TaskID}
		byTask[k] = append(byTask[k], s)
	}
	groups := map[string]*group{}
	get := func(n string) *group {
		g := groups[n]
		if g == nil {
			g = &group{successes: map[string]Trajectory{}, seen: map[string]int{}}
			groups[n] = g
		}
		return g
	}
	used := 0
	for i, r := range succ {
		if r.Version != formatVersion {
			return nil, bad(SuccessesFile, "row %d: version %d, want %d", i, r.Version, formatVersion)
		}
		g := get(r.Group)
		if r.TaskID == "" || r.Seen < 1 || r.Steps < 0 {
			return nil, bad(SuccessesFile, "row %d: task %q seen %d steps %d", i, r.TaskID, r.Seen, r.Steps)
		}
		if _, dup := g.successes[r.TaskID]; dup {
			return nil, bad(SuccessesFile, "row %d: task %s twice in group %s", i, r.TaskID, r.Group)
		}
		rows := byTask[key{r.Group, r.TaskID}]
		if len(rows) != int(r.Steps) {
			return nil, bad(StepsFile, "task %s has %d steps, want %d", r.TaskID, len(rows), r.Steps)
		}
		used += len(rows)
		sort.Slice(rows, func(a, b int) bool { return rows[a].Position < rows[b].Position })
		t := Trajectory{TaskID: r.TaskID, Goal: r.Goal, Start: r.Start}
		for j, s := range rows {
			if int(s.Position) != j {
				return nil, bad(StepsFile, "task %s: step %d at position %d", r.TaskID, j, s.Position)
			}
			t.Steps = append(t.Steps, Step{Thought: s.Thought, Action: s.Action, Text: s.Text})
		}
		g.successes[r.TaskID], g.seen[r.TaskID] = t, int(r.Seen)
	}
	if used != len(steps) {
		return nil, bad(StepsFile, "%d steps belong to no success", len(steps)-used)
	}
	for i, r := range wf {
		if r.Version != formatVersion {
			return nil, bad(WorkflowsFile, "row %d: version %d, want %d", i, r.Version, formatVersion)
		}
		g := get(r.Group)
		n := len(g.workflows)
		switch {
		case r.Step == 0 && int(r.Workflow) == n:
			g.workflows = append(g.workflows, Workflow{Name: r.Name, Description: r.Description})
		case n > 0 && int(r.Workflow) == n-1 && int(r.Step) == len(g.workflows[n-1].Steps):
		default:
			return nil, bad(WorkflowsFile, "row %d: group %s workflow %d step %d out of order", i, r.Group, r.Workflow, r.Step)
		}
		w := &g.workflows[len(g.workflows)-1]
		if r.Action == "" || r.Name == "" {
			return nil, bad(WorkflowsFile, "row %d: empty name or action", i)
		}
		w.Steps = append(w.Steps, WStep{State: r.State, Reasoning: r.Reasoning, Action: r.Action})
	}
	for n, g := range groups {
		for i, w := range g.workflows {
			if len(w.Steps) < MinSteps {
				return nil, bad(WorkflowsFile, "group %s workflow %d has %d steps, want at least %d", n, i, len(w.Steps), MinSteps)
			}
		}
	}
	return groups, nil
}
