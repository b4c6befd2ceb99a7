//go:build unix

package runlock

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// lockFile opens path and takes an exclusive, non-blocking flock on it,
// returning the file and its content. A release removes the file while it
// holds the lock, so a lock taken on a file that is no longer at path
// (removed or replaced meanwhile) is dropped and taken again on the new one.
func lockFile(path, what string) (*os.File, []byte, error) {
	for range 100 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b, _ := io.ReadAll(io.LimitReader(f, maxHolder))
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				h, _ := readHolder(b)
				return nil, nil, &HeldError{Path: path, What: what, Holder: h}
			}
			return nil, nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if same(f, path) {
			b, err := io.ReadAll(io.LimitReader(f, maxHolder))
			if err != nil {
				f.Close()
				return nil, nil, fmt.Errorf("lock %s: %w", path, err)
			}
			return f, b, nil
		}
		f.Close() // released and removed meanwhile: take the new file
	}
	return nil, nil, fmt.Errorf("lock %s: the file kept changing while it was locked", path)
}

// same reports whether the open file f is the file at path.
func same(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// unlockFile releases f's lock, removing the file first when remove is set.
func unlockFile(f *os.File, path string, remove bool) error {
	var err error
	if remove {
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// running reports whether process pid runs, and runs command (when the
// system says what it runs: /proc on Linux), so that a process id reused by
// another program does not keep a dead trainer's lock.
func running(pid int, command string) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	b = bytes.TrimRight(b, "\x00")
	// An empty cmdline says nothing either: the kernel shows it empty for a
	// process in the middle of exec (its new arguments not yet in place), a
	// zombie or a kernel thread.
	if err != nil || command == "" || len(b) == 0 {
		return true // alive, and nothing says it runs something else
	}
	args := strings.Split(string(b), "\x00")
	return strings.Join(args, " ") == command
}
