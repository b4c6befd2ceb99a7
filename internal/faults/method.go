package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/samem/trainer/agent"
)

// DiskFull wraps a method so that chosen checkpoint saves fail the way a
// full disk makes them fail: part of a file is written, then the write
// returns ENOSPC. Every other call goes to the method.
type DiskFull struct {
	agent.Method
	// Fail reports whether save number n (1-based) fails.
	Fail func(n int) bool

	mu    sync.Mutex
	saves int
}

// Save implements agent.Saver.
func (d *DiskFull) Save(ctx context.Context, dir string) error {
	d.mu.Lock()
	d.saves++
	n := d.saves
	d.mu.Unlock()
	s, ok := d.Method.(agent.Saver)
	if !ok {
		return fmt.Errorf("faults: %s does not save", d.Method.Name())
	}
	if err := s.Save(ctx, dir); err != nil {
		return err
	}
	if d.Fail != nil && d.Fail(n) {
		p := filepath.Join(dir, "partial.parquet")
		os.WriteFile(p, []byte("PAR1 half a row group"), 0o644)
		return fmt.Errorf("write %s: %w", p, syscall.ENOSPC)
	}
	return nil
}

// Load implements agent.Saver.
func (d *DiskFull) Load(ctx context.Context, dir string) error {
	return d.Method.(agent.Saver).Load(ctx, dir)
}

// EndIteration implements agent.IterationEnder when the method does.
func (d *DiskFull) EndIteration(ctx context.Context, it int) error {
	if ie, ok := d.Method.(agent.IterationEnder); ok {
		return ie.EndIteration(ctx, it)
	}
	return nil
}

// Size implements agent.Sizer when the method does.
func (d *DiskFull) Size() map[string]int {
	if sz, ok := d.Method.(agent.Sizer); ok {
		return sz.Size()
	}
	return nil
}

// Saves is the number of Save calls so far.
func (d *DiskFull) Saves() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.saves
}
