package cdmem

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

// TestLoadRefusesInconsistentRows: rows that do not fit together make Load
// fail with ErrFormat naming the file, and leave the memory as it was.
func TestLoadRefusesInconsistentRows(t *testing.T) {
	ctx := context.Background()
	m, err := New(Config{}, Deps{Chat: &countingModel{calls: map[string]int{}}})
	if err != nil {
		t.Fatal(err)
	}
	play(t, m, "t1", agent.Train, 2, true)
	play(t, m, "t2", agent.Train, 1, false)
	before := m.MemoryTables()
	opts := checkpoints.WriteOptions{}
	for _, tc := range []struct {
		name, file string
		write      func(path string) error
	}{
		{"reference out of range", ScenesFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []SceneRow{{Version: formatVersion, Scene: room, All: []int32{7}}}, opts)
		}},
		{"reference of another scene", ScenesFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []SceneRow{{Version: formatVersion, Scene: "elsewhere", All: []int32{0}}}, opts)
		}},
		{"pending not among all", GuidanceFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []GuidanceRow{{Version: formatVersion, Type: "heat", Outcome: Success, Pending: []int32{0}}}, opts)
		}},
		{"failure in the success bucket", GuidanceFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []GuidanceRow{{Version: formatVersion, Type: "heat", Outcome: Success, All: []int32{1}}}, opts)
		}},
		{"unknown outcome", GuidanceFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []GuidanceRow{{Version: formatVersion, Type: "heat", Outcome: "maybe"}}, opts)
		}},
		{"transcript of a failure", TranscriptsFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []TranscriptRow{{Record: 1, Index: 0, Text: "x"}}, opts)
		}},
		{"success without transcript", TranscriptsFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []TranscriptRow{}, opts)
		}},
		{"record version", RecordsFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []RecordRow{{Version: 2, Task: "t1"}}, opts)
		}},
		{"repeated task", TasksFile, func(p string) error {
			return checkpoints.WriteFile(ctx, p, []TaskRow{{Version: formatVersion, Task: "t1"}, {Version: formatVersion, Task: "t1"}}, opts)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
