package app_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/internal/runlock"
	"github.com/samem/trainer/llm/llmtest"
)

// holdLock takes the lock at path as another command would, naming a
// command of its own.
func holdLock(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	l, _, err := runlock.Acquire(path, "test", runlock.Self([]string{"train", "-run", "first"}, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Release() })
}

// TestTrainRefusedWhileRunLocked: a train into a run directory whose lock
// another command holds fails at once, naming that command (pid, host,
// command, since when), before any request reaches the model server and
// without writing anything; once the lock is free the same command trains.
func TestTrainRefusedWhileRunLocked(t *testing.T) {
	srv := llmtest.NewServer(t, faults.SAMemReplies())
	cfg := openaiConfig(t, srv.URL, 1, 2, 0)
	cfg.Tasks = 2
	path := filepath.Join(cfg.Run, app.TrainLockFile)
	holdLock(t, path)
	var out bytes.Buffer
	_, err := app.Train(context.Background(), cfg, streams(&out))
	if !errors.Is(err, app.ErrBusy) {
		t.Fatalf("Train on a locked run: %v, want ErrBusy\n%s", err, out.String())
	}
	for _, want := range []string{fmt.Sprintf("pid %d", os.Getpid()), "train -run first", "since ", path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("%d requests reached the model server before the lock was checked", n)
	}
	entries, _ := os.ReadDir(cfg.Run)
	if len(entries) != 1 {
		t.Errorf("the refused run wrote into its directory: %v", entries)
	}
}

// TestEvalRefusedWhileEvalDirLocked: the same for an evaluation into a
// directory another eval is writing; an evaluation of another split of the
// same run is not held up by it.
func TestEvalRefusedWhileEvalDirLocked(t *testing.T) {
	srv := llmtest.NewServer(t, faults.SAMemReplies())
	cfg := openaiConfig(t, srv.URL, 1, 2, 0)
	cfg.Methods = []string{"nomemory"}
	cfg.Tasks = 1
	dir, _, err := app.EvalDir(cfg.Resolved())
	if err != nil {
		t.Fatal(err)
	}
	holdLock(t, dir+app.EvalLockSuffix)
	_, err = app.Eval(context.Background(), cfg, streams(new(bytes.Buffer)))
	if !errors.Is(err, app.ErrBusy) || !strings.Contains(err.Error(), "evaluation directory "+dir) {
		t.Fatalf("Eval into a locked directory: %v, want ErrBusy naming %s", err, dir)
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("%d requests reached the model server before the lock was checked", n)
	}
	other := cfg
	other.Split = "valid_seen"
	var out bytes.Buffer
	if _, err := app.Eval(context.Background(), other, streams(&out)); err != nil {
		t.Fatalf("Eval of another split while the first is locked: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(cfg.Run, "eval", "valid_seen"+app.EvalLockSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the finished eval left its lock file: %v", err)
	}
}
