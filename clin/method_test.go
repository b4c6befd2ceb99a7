package clin

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/clin/internal/fakeworld"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm/offline"
)

// TestLoadBad: rows that break the saved memory's invariants fail with
// ErrFormat and leave the memory as it was (agenttest covers damaged and
// missing files).
func TestLoadBad(t *testing.T) {
	m := newStub(t)
	train(t, m, []envbridge.Task{fakeworld.HeatApple}, 1)
	dir := t.TempDir()
	if err := m.Save(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	items, err := checkpoints.ReadFile[ItemRow](ctx, filepath.Join(dir, ItemsFile))
	if err != nil || len(items) == 0 {
		t.Fatalf("read items: %v, %d rows", err, len(items))
	}
	tests := []struct {
		name   string
		break_ func(t *testing.T)
		want   error
	}{
		{"extra item", func(t *testing.T) {
			extra := append(items, ItemRow{TaskID: "nope", Kind: string(Necessary)})
			if err := checkpoints.WriteFile(ctx, filepath.Join(dir, ItemsFile), extra, checkpoints.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}, ErrFormat},
		{"bad kind", func(t *testing.T) {
			bad := slices.Clone(items)
			bad[0].Kind = "SOMETIMES"
			if err := checkpoints.WriteFile(ctx, filepath.Join(dir, ItemsFile), bad, checkpoints.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}, ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh := newStub(t)
			train(t, fresh, []envbridge.Task{fakeworld.TwoCD}, 1)
			before := fresh.Memory(fakeworld.TwoCD.ID)
			tt.break_(t)
			if err := fresh.Load(ctx, dir); !errors.Is(err, tt.want) {
				t.Errorf("Load = %v, want %v", err, tt.want)
			}
			if got := fresh.Memory(fakeworld.TwoCD.ID); !reflect.DeepEqual(got, before) {
				t.Errorf("a failed Load changed the memory")
			}
		})
	}
}

func TestNewNeedsEmbedder(t *testing.T) {
	if _, err := New(Config{}, Deps{}); !errors.Is(err, ErrNoEmbedder) {
		t.Errorf("New without embedder = %v, want ErrNoEmbedder", err)
	}
}

func TestNewNeedsRoles(t *testing.T) {
	if _, err := New(Config{}, Deps{Embed: offline.New(8), Controller: stubController{}}); !errors.Is(err, ErrNoRoles) {
		t.Errorf("New without model or generator = %v, want ErrNoRoles", err)
	}
}
