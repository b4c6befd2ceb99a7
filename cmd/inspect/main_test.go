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
		{"not a checkpoint", []string{t.TempDir()}, 1, "no SAMem checkpoint here"},
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
