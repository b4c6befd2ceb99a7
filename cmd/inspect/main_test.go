package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/samem"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ and docs/flags/inspect.md")

var (
	runOnce sync.Once
	runDir  string
	runErr  error
)

// trainedRun trains SAMem offline on a small schedule with one worker (so
// the memory is the same on every machine) into a run directory shared by
// the tests of this package.
func trainedRun(t *testing.T) string {
	t.Helper()
	runOnce.Do(func() {
		dir, err := os.MkdirTemp("", "inspect-golden-")
		if err != nil {
			runErr = err
			return
		}
		runDir = dir
		cfg := app.Defaults()
		cfg.Run = dir
		cfg.Methods = []string{"samem"}
		cfg.Workers = 1
		cfg.Iterations = 3
		cfg.PerType = 2
		cfg.LLM.EmbedDim = 64
		// The goldens pin a memory made with the Q > 0 gate and the
		// transition-clock schedule: in a run this short the default
		// (Eq. 6's argmax whatever its value) follows all-zero thoughts and
		// learns no value, which leaves little to inspect.
		cfg.SAMem.GuidePositive, cfg.SAMem.Schedule = true, samem.ScheduleStep
		_, runErr = app.Train(context.Background(), cfg, app.Streams{Out: io.Discard, Err: io.Discard})
	})
	if runErr != nil {
		t.Fatalf("train: %v", runErr)
	}
	return runDir
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if runDir != "" {
		os.RemoveAll(runDir)
	}
	os.Exit(code)
}

func TestGolden(t *testing.T) {
	rd := trainedRun(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"text", []string{"-top", "6", "-query", "You are in the kitchen. You are carrying nothing.", "-k", "2", "-state", "7", rd}},
		{"visits-markdown", []string{"-sort", "visits", "-top", "4", "-format", "markdown", filepath.Join(rd, "samem")}},
		{"states-csv", []string{"-top", "0", "-format", "csv", rd}},
		{"history-csv", []string{"-state", "9", "-format", "csv", rd}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), tc.args, &out, &errb); code != 0 {
				t.Fatalf("inspect %v: exit %d: %s", tc.args, code, errb.String())
			}
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/inspect -update creates it)", err)
			}
			if out.String() != string(want) {
				t.Errorf("inspect %s differs from %s (go test ./cmd/inspect -update to accept):\n%s", tc.name, golden, out.String())
			}
		})
	}
}

func TestOutputFile(t *testing.T) {
	rd := trainedRun(t)
	out := filepath.Join(t.TempDir(), "states.md")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-format", "markdown", "-o", out, rd}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "| state | members |") || stdout.Len() != 0 {
		t.Errorf("-o wrote %q (err %v), stdout %q", b, err, stdout.String())
	}
}

func TestErrors(t *testing.T) {
	rd := trainedRun(t)
	// A damaged copy of the run: the latest checkpoint's Q-table truncated.
	bad := t.TempDir()
	if err := os.CopyFS(bad, os.DirFS(rd)); err != nil {
		t.Fatal(err)
	}
	latest, _ := os.ReadFile(filepath.Join(bad, "samem", checkpoints.Folder, checkpoints.LatestFile))
	qpath := filepath.Join(bad, "samem", checkpoints.Folder, strings.TrimSpace(string(latest)), "samem", checkpoints.QTableFile)
	b, _ := os.ReadFile(qpath)
	os.WriteFile(qpath, b[:len(b)/3], 0o644)

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing", []string{filepath.Join(rd, "nope")}, 1, "no such file"},
		{"not a checkpoint", []string{t.TempDir()}, 1, "no checkpoint here"},
		{"damaged", []string{bad}, 1, checkpoints.QTableFile},
		{"no method", []string{"-method", "clin", rd}, 1, "clin/checkpoints"},
		{"bad sort", []string{"-sort", "q", rd}, 1, "unknown sort order"},
		{"bad format", []string{"-format", "xml", rd}, 1, "unknown format"},
		{"unknown state", []string{"-state", "999", rd}, 1, "no such state"},
		{"no path", nil, 2, "usage: inspect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("inspect %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
			}
		})
	}
}

// Every method's checkpoint opens the same way: inspect shows its memory
// tables, each titled with the method and the table, -table picks one
// (and csv writes it), and an unknown table lists those there are.
func TestEveryMethodShows(t *testing.T) {
	if testing.Short() {
		t.Skip("trains five methods (runs without -short)")
	}
	rd := t.TempDir()
	cfg := app.Defaults()
	cfg.Run = rd
	cfg.Methods = []string{"clin", "arigraph", "memstream", "kgplan", "reflexion"}
	cfg.Workers, cfg.Iterations, cfg.PerType, cfg.Tasks = 2, 1, 1, 6
	cfg.LLM.EmbedDim = 64
	if _, err := app.Train(context.Background(), cfg, app.Streams{Out: io.Discard, Err: io.Discard}); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"clin": {"memories", "items"}, "arigraph": {"triplets", "episodic", "priors"},
		"memstream": {"memories"}, "kgplan": {"triplets", "entities", "history"}, "reflexion": {"reflections"},
	}
	for m, tables := range want {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"-method", m, "-top", "3", rd}, &out, &errb); code != 0 {
			t.Fatalf("inspect -method %s: exit %d: %s", m, code, errb.String())
		}
		for _, tb := range tables {
			if !strings.Contains(out.String(), m+" "+tb+" (") {
				t.Errorf("inspect -method %s shows no table %s:\n%s", m, tb, out.String())
			}
		}
		out.Reset()
		if code := run(context.Background(), []string{"-table", tables[0], "-format", "csv", "-top", "0", filepath.Join(rd, m)}, &out, &errb); code != 0 || !strings.Contains(strings.SplitN(out.String(), "\n", 2)[0], ",") {
			t.Errorf("inspect -table %s -format csv %s: exit %d, %q", tables[0], m, code, out.String())
		}
		errb.Reset()
		if code := run(context.Background(), []string{"-table", "nope", filepath.Join(rd, m)}, &out, &errb); code != 1 || !strings.Contains(errb.String(), tables[0]) {
			t.Errorf("inspect -table nope %s: exit %d, %q", m, code, errb.String())
		}
	}
	// SAMem's memory tables open the same way.
	sd := trainedRun(t)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-table", "qtable", "-top", "2", sd}, &out, &errb); code != 0 || !strings.Contains(out.String(), "samem qtable (first 2 of") {
		t.Errorf("inspect -table qtable: exit %d: %s%s", code, out.String(), errb.String())
	}
}
