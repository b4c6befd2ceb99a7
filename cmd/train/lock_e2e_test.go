package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
)

// TestSecondTrainFailsAtOnce: a second train into a run directory while
// the first trains (held by its model server in iteration 2) exits with
// code 1 before the first is let go, naming the first process (its pid,
// command and start) and the lock file, and no request of it reaches its
// own model server. The first then finishes as usual.
func TestSecondTrainFailsAtOnce(t *testing.T) {
	bin := binary(t, "train")
	run := filepath.Join(t.TempDir(), "run")
	flags := []string{"-run", run, "-workers", "1", "-iterations", "3", "-per-type", "1", "-max-steps", "6"}
	h := newHoldServer(t, run)
	first := start(t, bin, append(flags, h.holdArgs()...)...)
	h.waitHeld(t, first)

	other := llmtest.NewServer(t, faults.SAMemReplies())
	began := time.Now()
	second := start(t, bin, append(flags, modelArgs(other.URL)...)...)
	err := second.wait(t)
	took := time.Since(began)
	select {
	case <-first.done:
		t.Fatalf("the first run ended before the second was refused:\n%s", first.out.String())
	default:
	}
	t.Logf("the second train exited in %s with: %s", took.Round(time.Millisecond), strings.TrimSpace(second.out.String()))
	if code := exitCode(err); code != 1 {
		t.Errorf("second train: exit code %d, want 1\n%s", code, second.out.String())
	}
	for _, want := range []string{fmt.Sprintf("pid %d", first.cmd.Process.Pid), "-run " + run, "since ", filepath.Join(run, app.TrainLockFile), "in use by another process"} {
		if !strings.Contains(second.out.String(), want) {
			t.Errorf("the second train's message does not name %q:\n%s", want, second.out.String())
		}
	}
	if n := other.Requests(); n != 0 {
		t.Errorf("%d requests of the refused train reached its model server", n)
	}
	h.release()
	if err := first.wait(t); err != nil {
		t.Fatalf("the first run: %v\n%s", err, first.out.String())
	}
}
