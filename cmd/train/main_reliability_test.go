package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/samem/trainer/internal/faults"
)

// TestMain doubles as the fake JSON-lines environment of the secret tests.
func TestMain(m *testing.M) {
	faults.EnvMain()
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// binary builds cmd/train (and cmd/eval) once for all the tests of this file.
func binary(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the commands")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "train-reliability-")
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

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// TestSignalsSaveAndResume sends SIGINT, SIGTERM, and SIGINT twice, to a
// training run once it has committed a checkpoint: each time it stops with
// exit code 130 and a message naming the checkpoint and how to resume, the
// checkpoint verifies, and the same command resumes and finishes.
func TestSignalsSaveAndResume(t *testing.T) {
	bin := binary(t, "train")
	for _, tc := range []struct {
		name string
		sigs []syscall.Signal
		want string
	}{
		{"SIGINT", []syscall.Signal{syscall.SIGINT}, "interrupt: finishing running episodes and saving a checkpoint"},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}, "terminated: finishing running episodes and saving a checkpoint"},
		{"SIGINT twice", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}, "stopping now, saving a checkpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "run")
			// The model server holds the run at its first call after
			// the first checkpoint, so the signals reach a run that is
			// mid-iteration, whatever the load (not one that may have ended,
			// nor one whose first stop may be over before the second signal).
			h := newHoldServer(t, run)
			args := append([]string{"-run", run, "-iterations", "3", "-per-type", "1", "-workers", "1", "-max-steps", "10"}, h.holdArgs()...)
			c := start(t, bin, args...)
			h.waitHeld(t, c)
			c.cmd.Process.Signal(tc.sigs[0])
			c.waitOutput(t, "finishing running episodes and saving a checkpoint")
			if len(tc.sigs) > 1 {
				c.cmd.Process.Signal(tc.sigs[1])
				c.waitOutput(t, "stopping now")
			}
			h.release()
			err := c.wait(t)
			msg := c.out.String()
			if code := exitCode(err); code != 130 {
				t.Fatalf("exit code %d after %v, want 130; stderr:\n%s", code, tc.sigs, msg)
			}
			for _, want := range []string{tc.want, "training interrupted: checkpoint " + run, "run the same command again to resume"} {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr does not say %q:\n%s", want, msg)
				}
			}
			dir, _, err := faults.LatestCheckpoint(context.Background(), filepath.Join(run, "samem"))
			if err != nil {
				t.Fatalf("checkpoint after %v: %v", tc.sigs, err)
			}
			if strings.Contains(msg, "trained in") {
				t.Fatalf("the run finished (%s) although it was held mid-iteration when the signal came", dir)
			}
			out, err := exec.Command(bin, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("resume: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "samem resumed from "+dir) {
				t.Errorf("resume did not start from %s:\n%s", dir, out)
			}
			if _, _, err := faults.LatestCheckpoint(context.Background(), filepath.Join(run, "samem")); err != nil || !strings.Contains(string(out), "trained in") {
				t.Errorf("after resume: %v\n%s", err, out)
			}
		})
	}
}

// TestKillAnywhereKeepsACheckpoint kills (SIGKILL) a training run at
// spread-out moments, among them the checkpoint writes it does after every
// iteration: after every kill the latest checkpoint verifies against its
// manifest and loads, and in the end the same command resumes and finishes.
func TestKillAnywhereKeepsACheckpoint(t *testing.T) {
	bin := binary(t, "train")
	run := filepath.Join(t.TempDir(), "run")
	args := []string{"-run", run, "-iterations", "40", "-per-type", "1", "-workers", "2", "-max-steps", "5"}
	ctx := context.Background()
	// First a run that is killed once it has committed a checkpoint, so that
	// a slow start on a loaded machine cannot leave the test with nothing.
	first := exec.Command(bin, args...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	latest := filepath.Join(run, "samem", "checkpoints", "LATEST")
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(latest); err == nil {
			break
		}
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	last := -1
	for i := range 8 {
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// An iteration takes a few ms, most of it the checkpoint write:
		// kills at 60..270 ms land in writes as often as not.
		time.Sleep(time.Duration(60+30*i) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		dir, meta, err := faults.LatestCheckpoint(ctx, filepath.Join(run, "samem"))
		if err != nil {
			if last < 0 && errors.Is(err, fs.ErrNotExist) {
				continue // killed before the first checkpoint
			}
			t.Fatalf("kill %d: latest checkpoint %s: %v", i, dir, err)
		}
		if int(meta.Iteration) < last {
			t.Fatalf("kill %d: latest checkpoint went back from iteration %d to %d", i, last, meta.Iteration)
		}
		last = int(meta.Iteration)
	}
	if last < 0 {
		t.Fatal("no checkpoint was ever committed")
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("resume after the kills: %v\n%s", err, out)
	}
	if _, _, err := faults.LatestCheckpoint(ctx, filepath.Join(run, "samem")); err != nil || !strings.Contains(string(out), "trained in") {
		t.Errorf("after resume: %v\n%s", err, out)
	}
}
