package arigraph

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSaveLoadGraphsEqual(t *testing.T) {
	g := house()
	g.AddEpisode(0, "You are in Room A. There is a Key 1 on the floor.", []Triplet{tr("key 1", "is in", "room a"), tr("room a", "has exit", "west")})
	g.AddEpisode(1, "empty observation", nil)
	g.AddEpisode(2, "You take Key 1.", []Triplet{tr("key 1", "is in", "inventory")})
	g.Remove(tr("key 1", "is in", "room a")) // episodic edges keep removed triplets
	h := chain()
	graphs := map[string]*Graph{"hunt": g, "": h, "empty": NewGraph()}
	dir := t.TempDir()
	if err := SaveGraphs(dir, "bow-test", graphs); err != nil {
		t.Fatal(err)
	}
	got, model, err := LoadGraphs(dir)
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
}

func TestLoadGraphsErrors(t *testing.T) {
	if _, _, err := LoadGraphs(t.TempDir()); err == nil {
		t.Error("LoadGraphs(empty dir) succeeded")
	}
	dir := t.TempDir()
	if err := SaveGraphs(dir, "m", map[string]*Graph{"x": chain()}); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(dir, fileMeta, []metaRow{{FormatVersion + 1, "m"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadGraphs(dir); !errors.Is(err, ErrFormat) {
		t.Errorf("future version: err = %v, want ErrFormat", err)
	}
	if err := os.WriteFile(filepath.Join(dir, fileMeta), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadGraphs(dir); err == nil {
		t.Error("corrupt meta accepted")
	}
}
