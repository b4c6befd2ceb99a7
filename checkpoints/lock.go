package checkpoints

import (
	"errors"
	"os"
	"sync"
)

// Run directory locking. A writer holds an advisory lock (flock) on
// <run>/checkpoints/.lock so that a second trainer process on the same run
// directory cannot delete the first one's pending checkpoint (Open cleans
// leftovers) or commit over it. Readers (eval, inspection, tests) open the
// same store while a trainer runs, so the lock is never required to open
// a store: Open takes it when it can, cleans leftovers only then, and
// Begin fails with ErrLocked when another process holds it.
//
// flock conflicts between two descriptors of one process too, and
// callers open a run directory's store more than once in one process
// (train, then eval; resume tests) without closing it, so the lock is
// shared per process: reference-counted by path.

var procLocks = struct {
	sync.Mutex
	m map[string]*procLock
}{m: map[string]*procLock{}}

type procLock struct {
	f    *os.File
	refs int
}

// acquire takes the lock on path for this process, or shares it when this
// process holds it already. held is false when another process holds it.
func acquire(path string) (held bool, err error) {
	procLocks.Lock()
	defer procLocks.Unlock()
	if l := procLocks.m[path]; l != nil {
		l.refs++
		return true, nil
	}
	f, err := lockFile(path)
	if errors.Is(err, ErrLocked) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	procLocks.m[path] = &procLock{f: f, refs: 1}
	return true, nil
}

// release drops one reference to this process's lock on path.
func release(path string) error {
	procLocks.Lock()
	defer procLocks.Unlock()
	l := procLocks.m[path]
	if l == nil {
		return nil
	}
	l.refs--
	if l.refs > 0 {
		return nil
	}
	delete(procLocks.m, path)
	return l.f.Close()
}
