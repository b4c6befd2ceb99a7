package samem_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	forgetoff "github.com/samem/trainer/forget/offline"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/samem"
	sumoff "github.com/samem/trainer/summarize/offline"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

func newOffline(t testing.TB, cfg samem.Config) *samem.Method {
	t.Helper()
	m, err := samem.New(cfg, samem.Deps{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}, Checker: forgetoff.Checker{}, Embedder: offline.New(offline.DefaultDim)})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func suiteAndTasks(t testing.TB) (*household.Suite, []envbridge.Task, []envbridge.Task) {
	t.Helper()
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	train, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	test, err := suite.Tasks(envbridge.SplitValidUnseen)
	if err != nil {
		t.Fatal(err)
	}
	return suite, runner.PerType(train, 5), test
}

// TestOfflineLearns trains SAMem with the paper's defaults (5 tasks per type,
// 9 iterations) on the household world with the offline roles and checks
// the offline backend's bar on valid_unseen: success >= 0.85 and >= 25
// points above the
// no-memory agent. Training runs with one worker, so the run (and the
// verdict) is the same every time whatever the scheduler does; evaluation of
// a frozen memory is deterministic with any number of workers.
func TestOfflineLearns(t *testing.T) {
	ctx := context.Background()
	suite, train, test := suiteAndTasks(t)
	m := newOffline(t, samem.Config{})
	res, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: train, Iterations: 9, Workers: 1, Seed: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.History) != 9 {
		t.Fatalf("history has %d iterations, want 9", len(res.History))
	}
	first, last := res.History[0], res.History[8]
	t.Logf("training success: iteration 1 %.2f, iteration 9 %.2f; memory %v; %+v", first.SuccessRate, last.SuccessRate, last.Size, m.Stats())
	if last.SuccessRate <= first.SuccessRate {
		t.Errorf("training success did not rise: %.2f -> %.2f", first.SuccessRate, last.SuccessRate)
	}
	eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: suite, Tasks: test, Workers: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	base, err := runner.Evaluate(ctx, runner.EvalConfig{Method: baseline.NoMemory{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}}, Suite: suite, Tasks: test, Workers: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, b := runner.Summarize(eps, nil), runner.Summarize(base, nil)
	t.Logf("valid_unseen: samem %.3f (SPL %.3f, %.1f steps), nomemory %.3f", s.SuccessRate, *s.SPL, s.AvgSteps, b.SuccessRate)
	if s.SuccessRate < 0.85 || s.SuccessRate-b.SuccessRate < 0.25 {
		t.Errorf("samem success %.3f, nomemory %.3f: want >= 0.85 and >= 0.25 above", s.SuccessRate, b.SuccessRate)
	}
}

// TestResumeAfterInterrupt: a run stopped in the middle of an iteration and
// started again ends with the same memory as an uninterrupted run.
func TestResumeAfterInterrupt(t *testing.T) {
	ctx := context.Background()
	suite, train, _ := suiteAndTasks(t)
	const iters = 3
	whole := newOffline(t, samem.Config{})
	if _, err := runner.Train(ctx, runner.TrainConfig{Method: whole, Suite: suite, Tasks: train, Iterations: iters, Workers: 1, Seed: 3, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stop := make(chan struct{})
	first := newOffline(t, samem.Config{})
	prog := &stopAfter{n: len(train) + 7, stop: stop}
	_, err := runner.Train(ctx, runner.TrainConfig{Method: first, Suite: suite, Tasks: train, Iterations: iters, Workers: 1, Seed: 3, Dir: dir, Stop: stop, Progress: prog})
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("interrupted Train error = %v, want ErrInterrupted", err)
	}
	second := newOffline(t, samem.Config{})
	res, err := runner.Train(ctx, runner.TrainConfig{Method: second, Suite: suite, Tasks: train, Iterations: iters, Workers: 1, Seed: 3, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResumedFrom == "" || len(res.History) != iters {
		t.Errorf("resumed run: from %q, %d iterations of history", res.ResumedFrom, len(res.History))
	}
	if a, b := whole.Snapshot(), second.Snapshot(); !reflect.DeepEqual(a, b) {
		t.Errorf("resumed memory differs from an uninterrupted run's (%d vs %d entries)", len(b.QTable), len(a.QTable))
	}
}

// stopAfter closes stop once n episodes have finished.
type stopAfter struct {
	n, done int
	stop    chan struct{}
}

func (s *stopAfter) Begin(string, int) {}
func (s *stopAfter) End(string)        {}
func (s *stopAfter) Done(runner.Episode) {
	s.done++
	if s.done == s.n {
		close(s.stop)
	}
}
