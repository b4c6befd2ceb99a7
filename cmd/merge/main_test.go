package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
)

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// binary builds cmd/train and cmd/eval once for the tests of this file.
func binary(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the commands")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "merge-test-")
		if binErr != nil {
			return
		}
		for _, c := range []string{"train", "eval"} {
			out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, c), "../"+c).CombinedOutput()
			if err != nil {
				binErr = fmt.Errorf("go build %s: %v\n%s", c, err, out)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, name)
}

func runCmd(t *testing.T, bin string, args ...string) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
	}
}

// The files of an evaluation that must be the same, sharded or not.
var compared = []string{app.SummaryFile, app.TrajectoriesFile, app.EpisodesCSV, app.EvalUsageFile}

func snapshot(t *testing.T, dir string) (map[string][]byte, []app.EpisodeRow) {
	t.Helper()
	files := map[string][]byte{}
	for _, f := range compared {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	rows, err := checkpoints.ReadFile[app.EpisodeRow](context.Background(), filepath.Join(dir, app.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	return files, rows
}

// eval -shard 0/3, 1/3 and 2/3 run as three processes and merged give the
// same results, summary, tidy table, trajectories and usage account as one
// unsharded eval; with -seeds too, per seed and combined.
func TestShardedEvalEqualsUnsharded(t *testing.T) {
	train, eval := binary(t, "train"), binary(t, "eval")
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"one seed", nil},
		{"three seeds", []string{"-seeds", "1,2,3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			runDir := t.TempDir()
			// slices.Concat: each argument list its own array (the parts
			// are started at once).
			common := slices.Concat([]string{"-run", runDir, "-workers", "2", "-embed-dim", "64"}, c.flags)
			runCmd(t, train, slices.Concat(common, []string{"-method", "samem", "-iterations", "2", "-per-type", "1"})...)
			evalArgs := slices.Concat(common, []string{"-method", "samem,nomemory", "-tasks", "8"})
			runCmd(t, eval, evalArgs...)
			dirs := []string{filepath.Join(runDir, "eval", "valid_unseen-tasks=8")}
			if c.flags != nil {
				for _, s := range []string{"1", "2", "3"} {
					dirs = append(dirs, filepath.Join(runDir, "seeds", s, "eval", "valid_unseen-tasks=8"))
				}
			}
			type snap struct {
				files map[string][]byte
				rows  []app.EpisodeRow
			}
			want := map[string]snap{}
			for _, d := range dirs {
				f, r := snapshot(t, d)
				want[d] = snap{f, r}
				os.RemoveAll(d) // the merge must write them again
			}
			var wg sync.WaitGroup
			errs := make([]error, 3)
			outs := make([][]byte, 3)
			for i := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					outs[i], errs[i] = exec.Command(eval, slices.Concat(evalArgs, []string{"-shard", fmt.Sprintf("%d/3", i)})...).CombinedOutput()
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("eval -shard %d/3: %v\n%s", i, err, outs[i])
				}
			}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), []string{"-run", runDir}, &stdout, &stderr); code != 0 {
				t.Fatalf("merge exit %d\n%s", code, stderr.String())
			}
			for _, d := range dirs {
				f, r := snapshot(t, d)
				if !reflect.DeepEqual(r, want[d].rows) {
					t.Errorf("%s: results.parquet differs from the unsharded evaluation's", d)
				}
				for _, name := range compared {
					if !bytes.Equal(f[name], want[d].files[name]) {
						t.Errorf("%s: %s differs from the unsharded evaluation's", d, name)
					}
				}
			}
		})
	}
}

// A missing part or parts of another evaluation are refused, naming them.
func TestMergeRefusesPartsThatDoNotBelong(t *testing.T) {
	train, eval := binary(t, "train"), binary(t, "eval")
	runDir := t.TempDir()
	common := []string{"-run", runDir, "-workers", "2", "-embed-dim", "64"}
	runCmd(t, train, slices.Concat(common, []string{"-method", "samem", "-iterations", "1", "-per-type", "1"})...)
	runCmd(t, eval, slices.Concat(common, []string{"-method", "samem,nomemory", "-tasks", "6", "-shard", "0/2"})...)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-run", runDir}, &stdout, &stderr); code == 0 || !bytes.Contains(stderr.Bytes(), []byte("part 1/2 missing")) {
		t.Errorf("merge with a part missing: exit %d\n%s", code, stderr.String())
	}
	// Part 1/2 of another list (other methods) in the same directory.
	other := filepath.Join(runDir, "eval", "valid_unseen-tasks=6"+app.ShardsSuffix, "1-of-2")
	runCmd(t, eval, slices.Concat(common, []string{"-method", "nomemory", "-tasks", "6", "-shard", "1/2"})...)
	if _, err := os.Stat(other); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"-run", runDir}, &stdout, &stderr); code == 0 || !bytes.Contains(stderr.Bytes(), []byte("another list")) {
		t.Errorf("merge of parts of other work lists: exit %d\n%s", code, stderr.String())
	}
}
