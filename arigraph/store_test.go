package arigraph

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/llm/offline"
)

func TestSaveLoadGraphsEqual(t *testing.T) {
	ctx := context.Background()
	g := house()
	g.AddEpisode(0, "You are in Room A. There is a Key 1 on the floor.", []Triplet{tr("key 1", "is in", "room a"), tr("room a", "has exit", "west")})
	g.AddEpisode(1, "empty observation", nil)
	g.AddEpisode(2, "You take Key 1.", []Triplet{tr("key 1", "is in", "inventory")})
	g.Remove(tr("key 1", "is in", "room a")) // episodic edges keep removed triplets
	h := chain()
	graphs := map[string]*Graph{"hunt": g, "": h, "empty": NewGraph()}
	dir := t.TempDir()
	if err := saveGraphs(ctx, dir, "bow-test", graphs); err != nil {
		t.Fatal(err)
	}
	got, model, err := loadGraphs(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if model != "bow-test" {
		t.Errorf("model = %q", model)
	}
	for n, want := range graphs {
		if want.Len() == 0 && len(want.episodes) == 0 {
			if got[n] != nil && (got[n].Len() != 0 || len(got[n].episodes) != 0) {
				t.Errorf("graph %q not empty after reload", n)
			}
			continue
		}
		if got[n] == nil || !got[n].Equal(want) {
			t.Errorf("graph %q reloaded = %+v, want %+v", n, got[n], want)
		}
	}
	// Saving again over the same directory replaces the files whole.
	if err := saveGraphs(ctx, dir, "bow-test", map[string]*Graph{"hunt": h}); err != nil {
		t.Fatal(err)
	}
	got, _, err = loadGraphs(ctx, dir)
	if err != nil || len(got) != 1 || !got["hunt"].Equal(h) {
		t.Errorf("after a second save: %v, %v", got, err)
	}
}

// TestLoadGraphsErrors checks that files of another format version, or
// rows that break the graphs' invariants, are refused with ErrFormat naming
// the file (agenttest covers damaged, missing and foreign files).
func TestLoadGraphsErrors(t *testing.T) {
	ctx := context.Background()
	save := func(t *testing.T) string {
		t.Helper()
		dir := t.TempDir()
		if err := saveGraphs(ctx, dir, "m", map[string]*Graph{"x": chain()}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	tests := []struct {
		name  string
		file  string // the file the error must name
		spoil func(t *testing.T, dir string)
		want  error
	}{
		{"future version", fileMeta, func(t *testing.T, dir string) {
			writeRows(ctx, dir, fileMeta, []metaRow{{graphFormat + 1, "m"}})
		}, ErrFormat},
		{"two meta rows", fileMeta, func(t *testing.T, dir string) {
			writeRows(ctx, dir, fileMeta, []metaRow{{graphFormat, "m"}, {graphFormat, "m"}})
		}, ErrFormat},
		{"link to a missing episode", fileLinks, func(t *testing.T, dir string) {
			writeRows(ctx, dir, fileLinks, []linkRow{{Graph: "x", EpisodeID: 5, Subject: "a", Relation: "b", Object: "c"}})
		}, ErrFormat},
		{"episodes out of sequence", fileEpisodes, func(t *testing.T, dir string) {
			writeRows(ctx, dir, fileEpisodes, []episodeRow{{Graph: "x", ID: 1, Text: "t"}})
		}, ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := save(t)
			tc.spoil(t, dir)
			_, _, err := loadGraphs(ctx, dir)
			if !errors.Is(err, tc.want) {
				t.Fatalf("loadGraphs = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, tc.file)) {
				t.Errorf("error %q does not name %s", err, tc.file)
			}
		})
	}
}

// TestMethodLoadErrors: the memory of another embedder is refused with
// ErrFormat and changes nothing (agenttest covers damaged files).
func TestMethodLoadErrors(t *testing.T) {
	ctx := context.Background()
	m, _ := New(Config{}, Deps{Embed: offline.New(32), Offline: stubOffline{}})
	m.priors["apple"] = map[string]int{"fridge": 2}
	dir := t.TempDir()
	if err := m.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	other, _ := New(Config{}, Deps{Embed: &bowEmbedder{dim: 8}, Offline: stubOffline{}})
	if err := other.Load(ctx, dir); !errors.Is(err, ErrFormat) {
		t.Errorf("Load with another embedder = %v, want ErrFormat", err)
	}
	if len(other.priors) != 0 {
		t.Error("a failed Load changed the method")
	}
}
