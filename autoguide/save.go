package autoguide

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/samem/trainer/checkpoints"
)

// Files written by Save, readable by any Parquet tool.
const (
	ContextsFile   = "autoguide_contexts.parquet"   // the keys of G, in insertion order
	GuidelinesFile = "autoguide_guidelines.parquet" // G's guidelines, by context and position
	TasksFile      = "autoguide_tasks.parquet"      // training tasks: solved, trials, reflections
	StepsFile      = "autoguide_steps.parquet"      // the trials kept for pairing, step by step
)

// formatVersion is the version of AutoGuide's checkpoint rows.
const formatVersion = 1

// ErrFormat is returned (wrapped) by Load for a checkpoint with an unknown
// version or rows that do not fit together.
var ErrFormat = errors.New("autoguide: bad checkpoint")

// ContextRow is one key of the guideline dictionary.
type ContextRow struct {
	Version int32  `parquet:"version"`
	ID      int32  `parquet:"id"`
	Text    string `parquet:"text"`
}

// GuidelineRow is one guideline of one context.
type GuidelineRow struct {
	Context   int32  `parquet:"context"`
	Position  int32  `parquet:"position"`
	Text      string `parquet:"text"`
	Task      string `parquet:"task,dict"`
	Iteration int32  `parquet:"iteration"`
}

// TaskRow is what training keeps of one training task.
type TaskRow struct {
	Version     int32    `parquet:"version"`
	Task        string   `parquet:"task"`
	Solved      bool     `parquet:"solved"`
	Trials      int32    `parquet:"trials"`
	Reflections []string `parquet:"reflections,list"`
}

// StepRow is one step of a kept trial (Index 0: the first observation).
type StepRow struct {
	Task    string  `parquet:"task,dict"`
	Trial   int32   `parquet:"trial"`
	Won     bool    `parquet:"won"`
	Score   float64 `parquet:"score"`
	Index   int32   `parquet:"index"`
	Context string  `parquet:"context"`
	Thought string  `parquet:"thought"`
	Action  string  `parquet:"action"`
	Text    string  `parquet:"text"`
}

// Save implements agent.Saver.
func (m *Method) Save(ctx context.Context, dir string) error {
	m.mu.Lock()
	var ctxs []ContextRow
	var guides []GuidelineRow
	for i, c := range m.contexts {
		ctxs = append(ctxs, ContextRow{Version: formatVersion, ID: int32(i), Text: c})
		for j, g := range m.guides[i] {
			guides = append(guides, GuidelineRow{Context: int32(i), Position: int32(j), Text: g.Text, Task: g.Task, Iteration: int32(g.Iteration)})
		}
	}
	var tasks []TaskRow
	var steps []StepRow
	for _, id := range m.taskIDs() {
		t := m.tasks[id]
		tasks = append(tasks, TaskRow{Version: formatVersion, Task: id, Solved: t.solved, Trials: int32(t.trials), Reflections: append([]string(nil), t.reflections...)})
		for _, a := range t.attempts {
			for i, s := range a.Steps {
				steps = append(steps, StepRow{Task: id, Trial: int32(a.Trial), Won: a.Won, Score: a.Score, Index: int32(i), Context: s.Context, Thought: s.Thought, Action: s.Action, Text: s.Text})
			}
		}
	}
	m.mu.Unlock()
	for _, f := range []struct {
		name string
		err  func() error
	}{
		{ContextsFile, func() error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, ContextsFile), ctxs, checkpoints.WriteOptions{})
		}},
		{GuidelinesFile, func() error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, GuidelinesFile), guides, checkpoints.WriteOptions{})
		}},
		{TasksFile, func() error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, TasksFile), tasks, checkpoints.WriteOptions{})
		}},
		{StepsFile, func() error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, StepsFile), steps, checkpoints.WriteOptions{})
		}},
	} {
		if err := f.err(); err != nil {
			return fmt.Errorf("%s: save %s: %w", Name, f.name, err)
		}
	}
	return nil
}

// Load implements agent.Saver. The memory is replaced only when every file
// reads and the rows fit together.
func (m *Method) Load(ctx context.Context, dir string) error {
	ctxs, err := checkpoints.ReadFile[ContextRow](ctx, filepath.Join(dir, ContextsFile))
	if err != nil {
		return fmt.Errorf("%s: load: %w", Name, err)
	}
	guides, err := checkpoints.ReadFile[GuidelineRow](ctx, filepath.Join(dir, GuidelinesFile))
	if err != nil {
		return fmt.Errorf("%s: load: %w", Name, err)
	}
	tasks, err := checkpoints.ReadFile[TaskRow](ctx, filepath.Join(dir, TasksFile))
	if err != nil {
		return fmt.Errorf("%s: load: %w", Name, err)
	}
	steps, err := checkpoints.ReadFile[StepRow](ctx, filepath.Join(dir, StepsFile))
	if err != nil {
		return fmt.Errorf("%s: load: %w", Name, err)
	}
	bad := func(file, format string, args ...any) error {
		return fmt.Errorf("%s: load %s: %w: %s", Name, filepath.Join(dir, file), ErrFormat, fmt.Sprintf(format, args...))
	}
	contexts := make([]string, len(ctxs))
	book := make([][]Guideline, len(ctxs))
	for i, r := range ctxs {
		if r.Version != formatVersion {
			return bad(ContextsFile, "row %d: version %d, want %d", i, r.Version, formatVersion)
		}
		if int(r.ID) != i || r.Text == "" {
			return bad(ContextsFile, "row %d: id %d, text %q: want ids 0, 1, ... and a text", i, r.ID, r.Text)
		}
		contexts[i] = r.Text
	}
	for i, r := range guides {
		if r.Context < 0 || int(r.Context) >= len(book) || int(r.Position) != len(book[r.Context]) || r.Text == "" {
			return bad(GuidelinesFile, "row %d: context %d position %d: no such context, out of order or empty", i, r.Context, r.Position)
		}
		book[r.Context] = append(book[r.Context], Guideline{Text: r.Text, Task: r.Task, Iteration: int(r.Iteration)})
	}
	mem := map[string]*taskMemory{}
	for i, r := range tasks {
		if r.Version != formatVersion {
			return bad(TasksFile, "row %d: version %d, want %d", i, r.Version, formatVersion)
		}
		if r.Task == "" || mem[r.Task] != nil || r.Trials < 0 {
			return bad(TasksFile, "row %d: task %q with %d trials: empty, repeated or negative", i, r.Task, r.Trials)
		}
		tm := &taskMemory{solved: r.Solved, trials: int(r.Trials)}
		for _, x := range r.Reflections {
			if x == "" {
				return bad(TasksFile, "row %d: an empty reflection", i)
			}
			tm.reflections = append(tm.reflections, x)
		}
		mem[r.Task] = tm
	}
	for i, r := range steps {
		tm := mem[r.Task]
		if tm == nil || tm.solved || r.Trial < 0 || int(r.Trial) >= tm.trials {
			return bad(StepsFile, "row %d: task %q trial %d: no such unsolved task or trial", i, r.Task, r.Trial)
		}
		n := len(tm.attempts)
		if r.Index == 0 {
			if n > 0 && int(r.Trial) <= tm.attempts[n-1].Trial {
				return bad(StepsFile, "row %d: task %q trial %d out of order", i, r.Task, r.Trial)
			}
			tm.attempts = append(tm.attempts, Trajectory{Task: r.Task, Trial: int(r.Trial), Won: r.Won, Score: r.Score})
			n++
		}
		if n == 0 || tm.attempts[n-1].Trial != int(r.Trial) || int(r.Index) != len(tm.attempts[n-1].Steps) {
			return bad(StepsFile, "row %d: task %q trial %d step %d out of order", i, r.Task, r.Trial, r.Index)
		}
		a := &tm.attempts[n-1]
		a.Steps = append(a.Steps, Step{Context: r.Context, Thought: r.Thought, Action: r.Action, Text: r.Text})
	}
	m.mu.Lock()
	m.contexts, m.guides, m.tasks = contexts, book, mem
	m.mu.Unlock()
	return nil
}
