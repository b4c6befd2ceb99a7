//go:build unix

package runlock

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/internal/testenv"
)

// holderEnv makes the test binary a child that takes the lock named by the
// variable, says "locked" on stdout and holds it until its stdin closes.
const holderEnv = "RUNLOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if path := os.Getenv(holderEnv); path != "" {
		l, _, err := Acquire(path, "test directory", Self(os.Args, time.Now()))
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin)
		l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holdInChild starts a child process holding the lock at path and returns
// it once it holds it.
func holdInChild(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "locked" {
		t.Fatalf("child: %q, %v", line, err)
	}
	return cmd
}

func me() Holder { return Self([]string{"train", "-run", "r"}, time.Now()) }

// A lock held by another process is refused at once, naming that process
// (pid, host, command, since when); once that process is killed (no
// release: kill -9), the next Acquire takes it over with a note naming it.
func TestHeldByAnotherProcessThenTakenOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "train.lock")
	child := holdInChild(t, path)
	_, _, err := Acquire(path, "run directory r", me())
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) {
		t.Fatalf("Acquire of a held lock: %v, want a *HeldError", err)
	}
	host, _ := os.Hostname()
	for _, want := range []string{fmt.Sprintf("pid %d", child.Process.Pid), "host " + host, os.Args[0], "since ", "run directory r", path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if held.Holder.PID != child.Process.Pid || held.Holder.Since.IsZero() {
		t.Errorf("holder %+v, want pid %d and a start time", held.Holder, child.Process.Pid)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	l, note, err := Acquire(path, "run directory r", me())
	if err != nil {
		t.Fatalf("Acquire after the holder was killed: %v", err)
	}
	defer l.Release()
	if !strings.Contains(note, fmt.Sprintf("pid %d", child.Process.Pid)) || !strings.Contains(note, "no longer running") {
		t.Errorf("take-over note %q does not name the dead holder", note)
	}
	var h Holder
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &h); err != nil || h.PID != os.Getpid() {
		t.Errorf("lock file after the take-over: %q (%v), want this process", b, err)
	}
}

// Within one process a second Acquire is refused too (a command run twice
// concurrently in one program); Release frees the lock and removes its
// file, and a released lock can be taken again.
func TestReleaseFreesAndRemoves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "train.lock")
	l, note, err := Acquire(path, "run directory r", me())
	if err != nil || note != "" {
		t.Fatalf("first Acquire: %v, note %q", err, note)
	}
	if _, _, err := Acquire(path, "run directory r", me()); !errors.Is(err, ErrHeld) {
		t.Fatalf("second Acquire in the same process: %v, want ErrHeld", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file after Release: %v, want it removed", err)
	}
	l, note, err = Acquire(path, "run directory r", me())
	if err != nil || note != "" {
		t.Fatalf("Acquire after Release: %v, note %q", err, note)
	}
	l.Release()
}

// writeStale leaves a lock file naming h, locked by nobody.
func writeStale(t *testing.T, path string, h Holder) {
	t.Helper()
	b, _ := json.Marshal(h)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A file that names a process of another host is not taken over (that
// process cannot be checked from here), nor one whose process id runs the
// very command it names; a process id now running another program (reused)
// is taken over.
func TestStaleFilesTakenOverOnlyWhenGone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.lock")
	host, _ := os.Hostname()
	sleeper := exec.Command("sleep", "60")
	err := sleeper.Start()
	testenv.Need(t, err == nil, "the sleep program")
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	// Start returns once exec has begun, before the kernel has put the new
	// arguments in place (until then /proc shows an empty cmdline, which
	// says nothing about the program): wait for them.
	cmdline := fmt.Sprintf("/proc/%d/cmdline", sleeper.Process.Pid)
	for i := 0; i < 1000; i++ {
		b, err := os.ReadFile(cmdline)
		if err != nil || len(b) > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, tc := range []struct {
		name  string
		h     Holder
		taken bool
	}{
		{"another host", Holder{PID: sleeper.Process.Pid, Host: host + "-elsewhere", Command: "train -run r", Since: time.Now()}, false},
		{"same command still running", Holder{PID: sleeper.Process.Pid, Host: host, Command: "sleep 60", Since: time.Now()}, false},
		{"pid reused by another program", Holder{PID: sleeper.Process.Pid, Host: host, Command: "train -run r", Since: time.Now()}, true},
		{"unreadable content", Holder{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.h.PID == 0 {
				os.WriteFile(path, []byte("{not json"), 0o644)
			} else {
				writeStale(t, path, tc.h)
			}
			l, note, err := Acquire(path, "run directory r", me())
			if !tc.taken {
				var held *HeldError
				if !errors.As(err, &held) || held.Stale == "" || held.Holder.PID != tc.h.PID {
					t.Fatalf("Acquire: %v, want a *HeldError naming pid %d and why it was not taken over", err, tc.h.PID)
				}
				if b, _ := os.ReadFile(path); !strings.Contains(string(b), fmt.Sprint(tc.h.PID)) {
					t.Errorf("the refused lock file was changed: %q", b)
				}
				return
			}
			if err != nil {
				t.Fatalf("Acquire: %v, want the stale lock taken over", err)
			}
			if tc.h.PID != 0 && !strings.Contains(note, fmt.Sprintf("pid %d", tc.h.PID)) {
				t.Errorf("note %q does not name the earlier holder", note)
			}
			l.Release()
		})
	}
}

// FuzzReadHolder: any lock-file content parses to a holder or to none,
// without panicking; a holder has a positive pid.
func FuzzReadHolder(f *testing.F) {
	b, _ := json.Marshal(me())
	f.Add(b)
	f.Add([]byte(""))
	f.Add([]byte(`{"pid":-1}`))
	f.Add([]byte(`{"pid":1,"since":"not a time"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := readHolder(b)
		if ok && h.PID <= 0 {
			t.Fatalf("holder %+v from %q", h, b)
		}
		_ = h.String()
	})
}
