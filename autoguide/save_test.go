package autoguide

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
)

// TestLoadRefusesInconsistentRows: rows that do not fit together (a
// guideline of a context not listed, a kept trial of a solved task, steps
// out of order, an unknown version) make Load fail with ErrFormat naming
// the file, and leave the memory as it was.
func TestLoadRefusesInconsistentRows(t *testing.T) {
	ctx := context.Background()
	model := &countingModel{calls: map[string]int{}, act: "look"}
	m, err := New(Config{}, Deps{Chat: model})
	if err != nil {
		t.Fatal(err)
	}
	play(t, m, agent.Train, []string{"Nothing happens."}, agent.Outcome{Truncated: true, Steps: 1})
	m.addGuideline("The object is here.", -1, Guideline{Text: "When the object is here, you should take it.", Task: "t1"})
	before := m.MemoryTables()
	opts := checkpoints.WriteOptions{}
	for _, tc := range []struct {
		file  string
		write func(path string) error
	}{
		{GuidelinesFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []GuidelineRow{{Context: 3, Position: 0, Text: "x"}}, opts)
		}},
		{ContextsFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []ContextRow{{Version: 99, ID: 0, Text: "x"}}, opts)
		}},
		{StepsFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []StepRow{{Task: "t1", Trial: 0, Index: 1, Text: "x"}}, opts)
		}},
		{TasksFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []TaskRow{{Version: formatVersion, Task: "t1", Solved: true, Trials: 1}}, opts)
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := t.TempDir()
			if err := m.Save(ctx, dir); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(filepath.Join(dir, tc.file)); err != nil {
				t.Fatal(err)
			}
			err := m.Load(ctx, dir)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.file) {
				t.Fatalf("Load: %v; want ErrFormat naming %s", err, tc.file)
			}
			if !reflect.DeepEqual(m.MemoryTables(), before) {
				t.Fatal("a refused checkpoint changed the memory")
			}
		})
	}
}
