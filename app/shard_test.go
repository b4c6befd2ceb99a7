package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
