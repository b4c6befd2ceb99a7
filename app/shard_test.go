package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/report"
)

func TestShardFlag(t *testing.T) {
	var s Shard
	for _, bad := range []string{"3/3", "-1/2", "1", "a/b", "0/0", "1/2/3"} {
		if err := s.Set(bad); err == nil {
			t.Errorf("-shard %q accepted", bad)
		}
	}
	if err := s.Set(" 2/5 "); err != nil || s != (Shard{2, 5}) || s.String() != "2/5" || s.Dir() != "2-of-5" {
		t.Errorf("2/5: %+v %v", s, err)
	}
	taken := 0
	for k := range 20 {
		if s.Takes(k) {
			taken++
			if k%5 != 2 {
				t.Errorf("part 2/5 takes item %d", k)
			}
		}
	}
	if taken != 4 || !(Shard{}).Takes(7) {
		t.Errorf("part 2/5 takes %d of 20 items; the whole work takes every item", taken)
	}
	var l seedList
	if err := l.Set("1-3,9"); err != nil || l.String() != "1,2,3,9" {
		t.Errorf("seeds %v %v", l, err)
	}
	if err := l.Set("1,2,1"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a repeated seed: %v", err)
	}
}

func FuzzShardFlag(f *testing.F) {
	for _, s := range []string{"0/1", "2/5", "", "9/3", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		var s Shard
		if err := s.Set(v); err != nil {
			return
		}
		if s.Active() && (s.Index < 0 || s.Index >= s.N) {
			t.Fatalf("%q gave %+v", v, s)
		}
		var back Shard
		if err := back.Set(s.String()); err != nil || back != s {
			t.Fatalf("%q: round trip %+v -> %q -> %+v (%v)", v, s, s.String(), back, err)
		}
	})
}

// Whatever a part's files hold, merging it returns an error (or merges),
// never panics.
func FuzzMergeParts(f *testing.F) {
	f.Add([]byte(`{"format":1,"shard":{"Index":0,"N":1},"seeds":[1],"methods":["m"],"tasks":[1],"groups":[{"seed":1,"method":"m","indices":[0]}]}`), []byte(`{"method":"m","seed":1,"index":0,"task":{"id":"t"},"outcome":{}}`+"\n"))
	f.Add([]byte(`{}`), []byte("not json\n"))
	// Fewer task counts than seeds.
	f.Add([]byte(`{"format":1,"shard":{"Index":0,"N":1},"seeds":[1],"methods":["m"],"groups":[{"seed":1,"method":"m","indices":[0]}]}`), []byte(`{"method":"m","seed":1,"index":0,"task":{"id":"t"},"outcome":{}}`+"\n"))
	// A split into more parts than can be listed.
	f.Add([]byte(`{"format":1,"shard":{"Index":0,"N":2000000000},"seeds":[1],"methods":["m"],"tasks":[1]}`), []byte(""))
	f.Fuzz(func(t *testing.T, part, traj []byte) {
		run := t.TempDir()
		dir := filepath.Join(run, "eval", "x"+ShardsSuffix, "0-of-1")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, PartFile), part, 0o644)
		os.WriteFile(filepath.Join(dir, TrajectoriesFile), traj, 0o644)
		os.WriteFile(filepath.Join(dir, ProvenanceFile), []byte(`{"format":1}`), 0o644)
		dirs, err := Merge(context.Background(), run, quiet())
		if err == nil {
			for _, d := range dirs {
				if _, serr := os.Stat(filepath.Join(d, SummaryFile)); serr != nil {
					t.Fatalf("merge reported %s written: %v", d, serr)
				}
			}
		}
	})
}

// A threshold sweep and a grid split in two parts and merged give the
// points of the unsharded sweep and grid.
func TestSweepAndGridShards(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: trains and evaluates a sweep and a grid whole and in two shards (runs without -short)")
	}
	ctx := context.Background()
	base := smallConfig(t)
	base.Workers, base.Iterations, base.PerType, base.Tasks = 1, 1, 1, 6
	values := []float64{0.5, 0.9}
	whole := base
	whole.Run = t.TempDir()
	want, err := Sweep(ctx, SweepConfig{Base: whole, Values: values}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		part := base
		part.Shard = Shard{i, 2}
		if _, err := Sweep(ctx, SweepConfig{Base: part, Values: values}, quiet()); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(base.Run, SweepDir, SweepFile)); i == 0 && err == nil {
			t.Error("a part wrote sweep.json")
		}
	}
	var out, log strings.Builder
	if n, err := MergeSweeps(ctx, base.Run, &out, &log); err != nil || n != 1 {
		t.Fatalf("MergeSweeps = %d, %v\n%s", n, err, log.String())
	}
	var got []report.SweepPoint
	if err := readJSON(filepath.Join(base.Run, SweepDir, SweepFile), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("merged sweep has %d points", len(got))
	}
	for i, p := range got {
		w := want[i]
		if p.Value != w.Value || p.SuccessRate != w.SuccessRate || p.States != w.States || p.Thoughts != w.Thoughts || p.Entries != w.Entries {
			t.Errorf("point %d: %+v, unsharded %+v", i, p, w)
		}
	}

	g := GridConfig{Base: base, WorldSeeds: []int64{1, 2}, Seeds: []int64{1}, PerTypes: []int{1}}
	g.Base.Run = t.TempDir()
	gw := g
	gw.Base.Run = t.TempDir()
	wantPts, err := Grid(ctx, gw, quiet(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		gp := g
		gp.Base.Shard = Shard{i, 2}
		pts, err := Grid(ctx, gp, quiet(), nil)
		if err != nil || len(pts) != 1 {
			t.Fatalf("grid part %d: %d points, %v", i, len(pts), err)
		}
	}
	out.Reset()
	if n, err := MergeSweeps(ctx, g.Base.Run, &out, &log); err != nil || n != 1 {
		t.Fatalf("MergeSweeps (grid) = %d, %v\n%s", n, err, log.String())
	}
	var gotPts []GridPoint
	if err := readJSON(filepath.Join(g.Base.Run, GridDir, GridFile), &gotPts); err != nil {
		t.Fatal(err)
	}
	if len(gotPts) != 2 {
		t.Fatalf("merged grid: %d points", len(gotPts))
	}
	for i := range gotPts {
		a, b := gotPts[i], wantPts[i]
		if a.WorldSeed != b.WorldSeed || a.Success["samem"] != b.Success["samem"] || a.Success["nomemory"] != b.Success["nomemory"] || a.Entries["samem"] != b.Entries["samem"] {
			t.Errorf("grid point %d: %+v, unsharded %+v", i, a, b)
		}
	}
	var wantTable strings.Builder
	WriteGridTable(&wantTable, wantPts, nil)
	if out.String() != wantTable.String() {
		t.Errorf("merged grid table:\n%s\nunsharded:\n%s", out.String(), wantTable.String())
	}
}
