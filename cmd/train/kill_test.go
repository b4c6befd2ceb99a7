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

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
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
// and, with one worker, ends with the same Q-table as an uninterrupted run.
func TestKilledRunResumesExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the train command")
	}
	bin := buildTrain(t)
	// The model is a server in this test, so that the kill lands at a known
	// point: the server holds the killed run's first call after its first
	// checkpoint, in the middle of iteration 2, whatever the load of the
	// machine.
	args := func(run, url string) []string {
		return append([]string{"-run", run, "-workers", "1", "-seed", "5", "-iterations", "3", "-per-type", "1", "-max-steps", "8"}, modelArgs(url)...)
	}
	whole := t.TempDir()
	if out, err := exec.Command(bin, args(whole, llmtest.NewServer(t, faults.SAMemReplies()).URL)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	_, want := latestQTable(t, whole)

	killed := t.TempDir()
	h := newHoldServer(t, killed)
	c := start(t, bin, args(killed, h.URL)...)
	h.waitHeld(t, c)
	c.cmd.Process.Signal(syscall.SIGKILL)
	c.wait(t)
	latest := filepath.Join(killed, "samem", checkpoints.Folder, checkpoints.LatestFile)
	if b, _ := os.ReadFile(latest); strings.TrimSpace(string(b)) != checkpoints.DirName(0) {
		t.Fatalf("killed run's latest checkpoint %q, want %s (the end of iteration 1)", b, checkpoints.DirName(0))
	}
	h.release()
	out, err := exec.Command(bin, args(killed, h.URL)...).CombinedOutput()
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
