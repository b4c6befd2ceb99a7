package baseline

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
)

// Compile-time checks of the optional abilities.
var (
	_ agent.Method = (*FullHistory)(nil)
	_ agent.Method = (*Summary)(nil)
	_ agent.Method = (*Reflexion)(nil)
	_ agent.Saver  = (*Reflexion)(nil)
	_ agent.Sizer  = (*Reflexion)(nil)
)

func TestConfigErrors(t *testing.T) {
	if _, err := NewFullHistory(FullHistoryConfig{MaxHistory: -1}, Deps{}); !errors.Is(err, ErrConfig) {
		t.Errorf("negative MaxHistory: %v", err)
	}
	if _, err := NewSummary(SummaryConfig{Actor: ActorConfig{Temperature: -1}}, Deps{}); !errors.Is(err, ErrConfig) {
		t.Errorf("negative temperature: %v", err)
	}
	if _, err := NewReflexion(ReflexionConfig{Keep: -3}, Deps{}); !errors.Is(err, ErrConfig) {
		t.Errorf("negative Keep: %v", err)
	}
	// Without a model, each baseline needs its offline roles.
	if _, err := NewFullHistory(FullHistoryConfig{}, Deps{}); !errors.Is(err, ErrConfig) {
		t.Errorf("fullhistory without model or offline actor: %v", err)
	}
	if _, err := NewSummary(SummaryConfig{}, Deps{Offline: stubOffline}); !errors.Is(err, ErrConfig) {
		t.Errorf("summary without model or offline summariser: %v", err)
	}
	if _, err := NewReflexion(ReflexionConfig{}, Deps{}); !errors.Is(err, ErrConfig) {
		t.Errorf("reflexion without model or offline actor: %v", err)
	}
	for _, m := range []interface{ Name() string }{mustFull(t, FullHistoryConfig{}, Deps{Offline: stubOffline}), mustReflexion(t, ReflexionConfig{}, Deps{Offline: stubOffline})} {
		if m.Name() != FullHistoryName && m.Name() != ReflexionName {
			t.Errorf("name %q", m.Name())
		}
	}
}

func TestReflexionKeepAndDedupe(t *testing.T) {
	m := mustReflexion(t, ReflexionConfig{Keep: 2}, Deps{Offline: stubOffline})
	for _, r := range []string{"a", "b", "a", "c", "c"} {
		m.add("task", r)
	}
	want := []Reflection{{Seq: 2, Task: "task", Text: "a"}, {Seq: 4, Task: "task", Text: "c"}}
	if got := m.Reflections(); !reflect.DeepEqual(got, want) {
		t.Errorf("reflections %+v, want %+v", got, want)
	}
}

// TestReflexionLoadContinues: after a Load, reflections continue the saved
// sequence numbers, a smaller Keep keeps the latest, and an empty memory
// loads as empty (agenttest checks the save, load, save round trip itself).
func TestReflexionLoadContinues(t *testing.T) {
	ctx := context.Background()
	m := mustReflexion(t, ReflexionConfig{}, Deps{Offline: stubOffline})
	for _, r := range []string{"find it", "Checking the inventory was repeated", "Ünïcode, \"quotes\" and\ttabs", "place it"} {
		m.add("train-"+r[:3], r)
	}
	dir := t.TempDir()
	if err := m.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	back := mustReflexion(t, ReflexionConfig{}, Deps{Offline: stubOffline})
	if err := back.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Reflections(), m.Reflections()) {
		t.Errorf("read back %+v, want %+v", back.Reflections(), m.Reflections())
	}
	m.add("next", "after save")
	back.add("next", "after save")
	if !reflect.DeepEqual(back.Reflections(), m.Reflections()) {
		t.Errorf("sequence numbers diverge after load: %+v vs %+v", back.Reflections(), m.Reflections())
	}
	// A smaller Keep keeps the latest.
	one := mustReflexion(t, ReflexionConfig{Keep: 1}, Deps{Offline: stubOffline})
	if err := one.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if got := one.Reflections(); len(got) != 1 || got[0].Text != "place it" {
		t.Errorf("Keep 1 loaded %+v, want the last", got)
	}
	// An empty memory round-trips too.
	empty, dir2 := mustReflexion(t, ReflexionConfig{}, Deps{Offline: stubOffline}), t.TempDir()
	if err := empty.Save(ctx, dir2); err != nil {
		t.Fatal(err)
	}
	if err := back.Load(ctx, dir2); err != nil || back.Reflections() != nil || back.Size()["reflections"] != 0 {
		t.Errorf("loading an empty save: %v, %+v", err, back.Reflections())
	}
}

// TestReflexionLoadErrors: rows that break the file's invariants are
// refused and leave the memory as it was (agenttest covers damaged files).
func TestReflexionLoadErrors(t *testing.T) {
	ctx := context.Background()
	bad := func(rows []Reflection) string {
		dir := t.TempDir()
		if err := checkpoints.WriteFile(ctx, filepath.Join(dir, reflectionsFile), rows, checkpoints.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, tc := range []struct {
		name string
		dir  string
		want error
	}{
		{"out of order", bad([]Reflection{{Seq: 2, Text: "a"}, {Seq: 1, Text: "b"}}), ErrBadReflections},
		{"empty text", bad([]Reflection{{Seq: 0, Text: ""}}), ErrBadReflections},
		{"negative seq", bad([]Reflection{{Seq: -1, Text: "a"}}), ErrBadReflections},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mustReflexion(t, ReflexionConfig{}, Deps{Offline: stubOffline})
			m.add("kept", "kept")
			err := m.Load(ctx, tc.dir)
			if !errors.Is(err, tc.want) {
				t.Errorf("Load = %v, want %v", err, tc.want)
			}
			if got := m.Reflections(); len(got) != 1 || got[0].Text != "kept" {
				t.Errorf("a failed Load changed the memory: %+v", got)
			}
		})
	}
}
