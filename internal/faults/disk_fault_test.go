package faults_test

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/runner"
)

func householdTasks(t testing.TB, perType int) (*household.Suite, []envbridge.Task) {
	t.Helper()
	suite, err := household.New(household.Config{Seed: 1, MaxSteps: 20})
	if err != nil {
		t.Fatal(err)
	}
	train, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	return suite, runner.PerType(train, perType)
}

// TestDiskFullKeepsPreviousCheckpoint fails the second checkpoint write of
// a run like a full disk: the run stops with the write error, the first
// checkpoint is intact and loadable, and once there is room again the same
// run resumes from it and finishes.
func TestDiskFullKeepsPreviousCheckpoint(t *testing.T) {
	ctx := context.Background()
	suite, tasks := householdTasks(t, 1)
	dir := t.TempDir()
	cfg := func(m *faults.DiskFull) runner.TrainConfig {
		return runner.TrainConfig{Method: m, Suite: suite, Tasks: tasks, Iterations: 3, Workers: 1, Seed: 1, Dir: dir}
	}
	full := &faults.DiskFull{Method: newSAMem(t), Fail: func(n int) bool { return n == 2 }}
	_, err := runner.Train(ctx, cfg(full))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Train on a full disk: %v, want ENOSPC", err)
	}
	cdir, meta, err := faults.LatestCheckpoint(ctx, dir)
	if err != nil || meta.Iteration != 0 {
		t.Fatalf("after the failed write: latest %s iteration %d, %v; want iteration 0 intact", cdir, meta.Iteration, err)
	}
	if _, err := checkpoints.LoadSAMem(ctx, cdir+"/samem", int(meta.EmbedDim)); err != nil {
		t.Fatalf("previous checkpoint does not load: %v", err)
	}
	if c := faults.Committed(dir); len(c) != 1 {
		t.Errorf("committed checkpoints %v, want only iteration 0", c)
	}

	room := &faults.DiskFull{Method: newSAMem(t)}
	res, err := runner.Train(ctx, cfg(room))
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if res.ResumedFrom != cdir || len(res.History) != 3 {
		t.Errorf("resume: from %q with %d iterations, want from %q to 3", res.ResumedFrom, len(res.History), cdir)
	}
}
