package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/internal/testenv"
	"github.com/samem/trainer/llm/local"
)

// serverChild finds the local model server among the children of pid.
func serverChild(pid int) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		if cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); bytes.Contains(cmdline, []byte("server.mjs")) {
			return child
		}
	}
	return 0
}

// alive reports whether pid runs (a zombie, dead but not yet reaped, does
// not count).
func alive(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// TestLocalServerStopsWithTheRun: the local embedding server of a training
// run (-embed local) is gone when the run ends on SIGINT, on SIGTERM twice,
// and on a failure (a checkpoint of another schedule refused after the
// server started).
func TestLocalServerStopsWithTheRun(t *testing.T) {
	bin := binary(t, "train")
	testenv.Need(t, local.Tools() == nil, "node and npm (Debian: apt-get install nodejs npm)")
	dir, err := local.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	testenv.Need(t, local.Installed(dir, local.Embed), "the local embed model in "+dir+" (make local-models)")
	failing := filepath.Join(t.TempDir(), "run")
	if out, err := exec.Command(bin, "-run", failing, "-iterations", "1", "-per-type", "1", "-max-steps", "2").CombinedOutput(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	// Without its config.json the run's other settings are refused by its
	// checkpoint, after the backend has started (with it, before).
	if err := os.Remove(filepath.Join(failing, app.ConfigFile)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sigs []syscall.Signal
		run  string
		args []string
	}{
		{"SIGINT", []syscall.Signal{syscall.SIGINT}, "", nil},
		{"SIGTERM twice", []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM}, "", nil},
		{"failure", nil, failing, []string{"-per-type", "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := tc.run
			if run == "" {
				run = filepath.Join(t.TempDir(), "run")
			}
			args := append([]string{"-run", run, "-embed", "local", "-iterations", "30", "-per-type", "1", "-workers", "1", "-max-steps", "10"}, tc.args...)
			cmd := exec.Command(bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			exited := make(chan error, 1)
			server := 0
			go func() { exited <- cmd.Wait() }()
			var werr error
		wait:
			for i := 0; i < 1200; i++ { // up to 2 minutes for the server to start
				select {
				case werr = <-exited:
					break wait
				case <-time.After(100 * time.Millisecond):
				}
				if server == 0 {
					server = serverChild(cmd.Process.Pid)
					if server != 0 {
						for _, s := range tc.sigs {
							cmd.Process.Signal(s)
							time.Sleep(2 * time.Millisecond)
						}
					}
				}
			}
			if server == 0 {
				t.Fatalf("no local server seen; run ended with %v:\n%s", werr, stderr.String())
			}
			if werr == nil && len(tc.sigs) > 0 {
				werr = <-exited
			}
			t.Logf("run ended: %v", werr)
			if tc.name == "failure" && werr == nil {
				t.Errorf("the run of another schedule did not fail:\n%s", stderr.String())
			}
			if len(tc.sigs) > 0 && exitCode(werr) != 130 {
				t.Errorf("exit code %d after %v, want 130 (interrupted):\n%s", exitCode(werr), tc.sigs, stderr.String())
			}
			for i := 0; i < 600; i++ {
				if !alive(server) {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Fatalf("local server %d still runs after the trainer ended:\n%s", server, stderr.String())
		})
	}
}
