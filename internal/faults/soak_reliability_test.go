package faults_test

import (
	"context"
	"flag"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/runner"
)

var soak = flag.Int("soak", 0, "episodes of the soak test (make soak: 5000); 0 runs the short version")

// heapTracker records the live heap after a GC at the end of every iteration.
type heapTracker struct {
	episodes int
	heap     []uint64
}

func (h *heapTracker) Begin(string, int)   {}
func (h *heapTracker) Done(runner.Episode) { h.episodes++ }
func (h *heapTracker) End(string) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	h.heap = append(h.heap, m.HeapAlloc)
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// TestSoak trains SAMem offline for many episodes (-soak 5000 with make
// soak; 240 in the normal run) with forgetting: the live heap levels off
// (the last third of the iterations holds no more than the middle third,
// with slack), no goroutine, file descriptor or child process is left
// behind, and the final checkpoint verifies and loads into a fresh method.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test (runs without -short; make soak runs the long one)")
	}
	episodes := *soak
	if episodes <= 0 {
		episodes = 240
	}
	suite, tasks := householdTasks(t, 5) // 30 tasks, 20 steps at most
	iterations := max(6, (episodes+len(tasks)-1)/len(tasks))
	ctx := context.Background()
	goroutines, fds := runtime.NumGoroutine(), openFDs()
	dir := t.TempDir()
	h := &heapTracker{}
	began := time.Now()
	m := newSAMem(t)
	res, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: tasks, Iterations: iterations, Workers: 2, Seed: 3, Dir: dir, Progress: h})
	if err != nil {
		t.Fatalf("Train: %v", err)
	}
	t.Logf("%d episodes in %d iterations, %v; live heap per iteration (KiB): %v; memory %v",
		h.episodes, iterations, time.Since(began).Round(time.Millisecond), kib(h.heap), res.History[len(res.History)-1].Size)
	if h.episodes != iterations*len(tasks) {
		t.Errorf("%d episodes played, want %d", h.episodes, iterations*len(tasks))
	}
	third := len(h.heap) / 3
	mid, last := peak(h.heap[third:2*third]), peak(h.heap[2*third:])
	if last > mid+mid/2+(4<<20) {
		t.Errorf("live heap still growing: peak %d KiB in the middle third, %d KiB in the last", mid>>10, last>>10)
	}
	// Goroutines of the run end shortly after it returns; 30 s is a hang
	// guard (a leak fails only after it), not a measure of "shortly".
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		t.Errorf("goroutines: %d before, %d after the run", goroutines, n)
	}
	if n := openFDs(); n > fds {
		t.Errorf("open file descriptors: %d before, %d after the run", fds, n)
	}
	if kids := faults.Descendants(os.Getpid()); len(kids) > 0 {
		t.Errorf("child processes left: %v", kids)
	}
	cdir, meta, err := faults.LatestCheckpoint(ctx, dir)
	if err != nil {
		t.Fatalf("final checkpoint: %v", err)
	}
	if _, err := checkpoints.LoadSAMem(ctx, cdir+"/samem", int(meta.EmbedDim)); err != nil {
		t.Fatalf("final checkpoint does not load: %v", err)
	}
	fresh := newSAMem(t)
	if err := fresh.Load(ctx, cdir+"/samem"); err != nil {
		t.Fatalf("a fresh SAMem does not load the final checkpoint: %v", err)
	}
}

func peak(xs []uint64) uint64 {
	var p uint64
	for _, x := range xs {
		p = max(p, x)
	}
	return p
}

func kib(xs []uint64) []uint64 {
	out := make([]uint64, len(xs))
	for i, x := range xs {
		out[i] = x >> 10
	}
	return out
}
