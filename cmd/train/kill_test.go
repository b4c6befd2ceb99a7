package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/samem/trainer/checkpoints"
)

// buildTrain compiles this command once per test.
func buildTrain(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "train")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func latestQTable(t *testing.T, run string) (string, checkpoints.SAMemState) {
	t.Helper()
	store, err := checkpoints.Open(filepath.Join(run, "samem"), 0)
	if err != nil {
		t.Fatal(err)
	}
	dir, _, err := store.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st, err := checkpoints.LoadSAMem(context.Background(), filepath.Join(dir, "samem"), 0)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Base(dir), st
}

// TestKilledRunResumesExactly: a training run killed with SIGKILL in the
// middle of an iteration and started again resumes from its last checkpoint
// and, with one worker, ends with the same Q-table as an uninterrupted run
// (issue 4).
func TestKilledRunResumesExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the train command")
	}
	bin := buildTrain(t)
	args := func(run string) []string {
		return []string{"-run", run, "-workers", "1", "-seed", "5", "-iterations", "3", "-per-type", "25"}
	}
	whole := t.TempDir()
	if out, err := exec.Command(bin, args(whole)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	_, want := latestQTable(t, whole)

	var killed string
	for attempt := 0; attempt < 5 && killed == ""; attempt++ {
		run := t.TempDir()
		cmd := exec.Command(bin, args(run)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		latest := filepath.Join(run, "samem", checkpoints.Folder, checkpoints.LatestFile)
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(latest); err == nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond) // into the second iteration
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		b, _ := os.ReadFile(latest)
		if err != nil && strings.TrimSpace(string(b)) == checkpoints.DirName(0) {
			killed = run // killed after the first checkpoint, before the second
		}
	}
	if killed == "" {
		t.Fatal("could not kill the run between its first and second checkpoints in 5 attempts")
	}
	out, err := exec.Command(bin, args(killed)...).CombinedOutput()
	if err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "resumed from") {
		t.Errorf("resumed run did not say it resumed:\n%s", out)
	}
	name, got := latestQTable(t, killed)
	if len(got.QTable) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("resumed run's final checkpoint %s differs from the uninterrupted run's (%d vs %d Q entries)", name, len(got.QTable), len(want.QTable))
	}
}
