// Package runlock is the one-writer lock of a run directory (train) or an
// evaluation directory (eval): a file whose holder is named in it (process
// id, host, command, since when), taken before a command does anything that
// costs or writes, so that a second command on the same directory fails at
// once, naming the first, instead of paying for episodes it cannot keep.
//
// On Unix the lock is an advisory flock on the file: the kernel releases it
// when its process dies, however it dies, so a lock is never left behind by
// a crash. The file's content only describes the holder. Content left by a
// process that died without releasing (kill -9) is taken over with a note
// when that process is known to be gone: it ran on this host and its
// process id is no longer running that command. Content naming another host
// is never taken over: that process cannot be checked from here.
package runlock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// ErrHeld is wrapped by the error of Acquire when another process holds
// the lock.
var ErrHeld = errors.New("in use by another process")

// Holder describes the process that holds a lock, as written in its file.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

// Self describes this process, running args (os.Args), from now.
func Self(args []string, now time.Time) Holder {
	host, _ := os.Hostname()
	return Holder{PID: os.Getpid(), Host: host, Command: strings.Join(args, " "), Since: now}
}

// String names the holder: "pid 4242 on host h (train -run r) since
// 2026-11-22 10:04:05 (3m12s ago)".
func (h Holder) String() string {
	if h.PID == 0 {
		return "a process that has not written its name yet"
	}
	s := fmt.Sprintf("pid %d on host %s", h.PID, h.Host)
	if h.Command != "" {
		s += " (" + h.Command + ")"
	}
	if !h.Since.IsZero() {
		s += fmt.Sprintf(" since %s (%s ago)", h.Since.Format("2006-01-02 15:04:05 MST"), time.Since(h.Since).Round(time.Second))
	}
	return s
}

// HeldError is returned by Acquire when the lock is held by another process
// (or may be: Stale says why it was not taken over).
type HeldError struct {
	Path   string
	What   string // what the lock guards, e.g. "run directory runs/a"
	Holder Holder
	// Stale, when not "", says why a lock that may be stale was not taken
	// over (its holder ran on another host, or its process id runs the
	// same command), and what to do.
	Stale string
}

func (e *HeldError) Error() string {
	s := fmt.Sprintf("%s is %v: %s holds %s", e.What, ErrHeld, e.Holder, e.Path)
	if e.Stale != "" {
		s += "; " + e.Stale
	}
	return s
}

// Unwrap makes errors.Is(err, ErrHeld) true.
func (e *HeldError) Unwrap() error { return ErrHeld }

// Lock is a lock held by this process.
type Lock struct {
	path string
	f    *os.File
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// maxHolder bounds the bytes read from a lock file.
const maxHolder = 64 << 10

// readHolder parses a lock file's content; empty content is the zero
// Holder with ok false.
func readHolder(b []byte) (h Holder, ok bool) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return Holder{}, false
	}
	if err := json.Unmarshal(b, &h); err != nil || h.PID <= 0 {
		return Holder{}, false
	}
	return h, true
}

// Acquire takes the lock at path (creating the file; its directory must
// exist) for me, and writes me into it. what names what the lock guards in
// errors. A lock another process holds gives a *HeldError at once (no
// waiting). note is not "" when the file named a process that died without
// releasing it, which Acquire took over: it says which.
func Acquire(path, what string, me Holder) (l *Lock, note string, err error) {
	f, prev, err := lockFile(path, what)
	if err != nil {
		return nil, "", err
	}
	if h, ok := readHolder(prev); ok {
		if why := notGone(h, me); why != "" {
			unlockFile(f, path, false)
			return nil, "", &HeldError{Path: path, What: what, Holder: h, Stale: why}
		}
		note = fmt.Sprintf("took over %s from %s: that process is no longer running", path, h)
	}
	b, _ := json.Marshal(me)
	if err := writeHolder(f, append(b, '\n')); err != nil {
		unlockFile(f, path, true)
		return nil, "", fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{path: path, f: f}, note, nil
}

// notGone says why a holder whose file this process could lock may still
// be running ("" when it is gone).
func notGone(h, me Holder) string {
	if h.Host != me.Host {
		return "it ran on another host, where this process cannot tell whether it still runs: if it does not, delete the lock file"
	}
	if h.PID == me.PID {
		return "" // this process, after a release it could not finish
	}
	if running(h.PID, h.Command) {
		return fmt.Sprintf("process %d still runs that command: if it is not a trainer, delete the lock file", h.PID)
	}
	return ""
}

// Release gives the lock up and removes its file. It is safe to call more
// than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	return unlockFile(f, l.path, true)
}

func writeHolder(f *os.File, b []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		return err
	}
	return nil
}
