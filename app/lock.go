package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/samem/trainer/internal/runlock"
)

// Lock files (internal/runlock): train holds its run directory's, eval the
// one of the evaluation directory it writes, from before the first episode
// or model request to the end, so that a second command on the same
// directory fails at once naming the first instead of paying for episodes
// it could not keep.
const (
	// TrainLockFile is in the run directory.
	TrainLockFile = "train.lock"
	// EvalLockSuffix names an evaluation's lock beside its directory:
	// <run>/eval/<split>.lock.
	EvalLockSuffix = ".lock"
)

// ErrBusy is wrapped by the error of Train and Eval when another process
// holds the directory they would write.
var ErrBusy = runlock.ErrHeld

// lockDir takes the lock file path (creating its folder) for this process,
// naming what it guards in errors, and writes a note to w when it took over
// the lock of a process that died without releasing it. release gives it
// up, and removes the folder again when lockDir made it and nothing else
// was written there: a command refused after taking the lock leaves the
// run directory as it found it.
func lockDir(path, what string, w io.Writer) (release func(), err error) {
	dir := filepath.Dir(path)
	made := missingDirs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	removeMade := func() {
		for _, d := range made {
			if os.Remove(d) != nil { // only an empty folder goes
				return
			}
		}
	}
	l, note, err := runlock.Acquire(path, what, runlock.Self(os.Args, time.Now()))
	if err != nil {
		removeMade()
		return nil, err
	}
	if note != "" {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	return func() {
		l.Release()
		removeMade()
	}, nil
}

// missingDirs lists the folders of dir's path that do not exist yet, the
// deepest first.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}
