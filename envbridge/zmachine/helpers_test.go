package zmachine

import (
	"fmt"
	"github.com/samem/trainer/internal/testenv"

	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gamesDir finds the shared story files: $ZMACHINE_GAMES, or ../shared/games
// beside the module root. The test skips, naming what is missing, without them.
func gamesDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("ZMACHINE_GAMES"); d != "" {
		_, err := os.Stat(d)
		testenv.Need(t, err == nil, fmt.Sprintf("the games folder ZMACHINE_GAMES=%s (%v)", d, err))
		return d
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("no module root: %v", err)
	}
	d := filepath.Join(root, "..", "shared", "games")
	_, err = os.Stat(d)
	testenv.Need(t, err == nil, fmt.Sprintf("the shared games: %s not found (set ZMACHINE_GAMES to a copy of ../shared/games)", d))
	return d
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// needInterpreter skips without dfrotz.
func needInterpreter(t testing.TB) {
	t.Helper()
	_, err := FindInterpreter("dfrotz")
	testenv.Need(t, err == nil, fmt.Sprintf("dfrotz (apt-get install frotz): %v", err))
}

// children lists the live processes whose parent is this test binary.
func children(t testing.TB) []int {
	t.Helper()
	if runtime.GOOS != "linux" {
		return nil
	}
	me := os.Getpid()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces, so cut at the last ')'.
		s := string(b)
		k := strings.LastIndexByte(s, ')')
		if k < 0 {
			continue
		}
		f := strings.Fields(s[k+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == me {
			out = append(out, pid)
		}
	}
	return out
}

// noChildrenLeft fails the test when a child process of the test binary
// outlives it (checked at cleanup, after the test closed its environments).
// The 30 s deadline is a hang guard: a closed environment's child is reaped
// at once, and a busy machine must not turn a slow reap into a failure.
func noChildrenLeft(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		deadline := time.Now().Add(30 * time.Second)
		for {
			left := children(t)
			if len(left) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("child processes left behind: %v", left)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
