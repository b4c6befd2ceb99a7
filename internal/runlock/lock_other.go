//go:build !unix

package runlock

import (
	"errors"
	"fmt"
	"os"
)

// lockFile creates path exclusively where flock is unavailable: a file
// left by a process that died is then refused like a held lock (its holder
// is named; delete the file when that process is gone).
func lockFile(path, what string) (*os.File, []byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		b, _ := os.ReadFile(path)
		h, _ := readHolder(b)
		return nil, nil, &HeldError{Path: path, What: what, Holder: h, Stale: "if that process is gone, delete the lock file"}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil, nil
}

func unlockFile(f *os.File, path string, remove bool) error {
	err := f.Close()
	if remove {
		if rerr := os.Remove(path); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

func running(pid int, command string) bool { return true }
