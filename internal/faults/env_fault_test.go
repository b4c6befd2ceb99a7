package faults_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/jsonl"
	forgetoff "github.com/samem/trainer/forget/offline"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/samem"
	sumoff "github.com/samem/trainer/summarize/offline"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// episodes records every finished episode of a run.
type episodes struct {
	mu  sync.Mutex
	eps []runner.Episode
}

func (e *episodes) Begin(string, int) {}
func (e *episodes) End(string)        {}
func (e *episodes) Done(ep runner.Episode) {
	e.mu.Lock()
	e.eps = append(e.eps, ep)
	e.mu.Unlock()
}

func newSAMem(t testing.TB) *samem.Method {
	t.Helper()
	m, err := samem.New(samem.Config{}, samem.Deps{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}, Checker: forgetoff.Checker{}, Embedder: offline.New(64)})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// noLeftovers fails the test when a child process of this test binary is
// still alive (or a zombie) after the run returned. It polls for up to 30 s,
// a hang guard: a process that is gone passes at once, and only one that
// outlives 30 s fails, whatever the load.
func noLeftovers(t *testing.T, started []int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var alive []int
		for _, p := range started {
			if faults.Alive(p) {
				alive = append(alive, p)
			}
		}
		kids := faults.Descendants(os.Getpid())
		if len(alive) == 0 && len(kids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("environment processes outlive the run: started and alive %v, children of the test %v", alive, kids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTrainSurvivesBrokenEnvironments trains SAMem on a JSON-lines
// environment whose process crashes, hangs past the per-step deadline,
// prints garbage or an endless line on some tasks. Each such episode is
// recorded as failed with the reason, the process is replaced, the other
// tasks are played and won, training finishes, and no process outlives it.
func TestTrainSurvivesBrokenEnvironments(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: training through crashing, hanging and garbage-printing environments (runs without -short)")
	}
	pids := t.TempDir()
	tasks := []string{"ok-2", "crash-2", "ok-3", "hang-2", "garbage-2", "ok-1", "long-2", "ok-2b"}
	// "ok-2b" is not a valid id: reset is answered with an error object,
	// the process stays in use.
	cmd := faults.EnvCommand(faults.EnvOptions{Tasks: tasks, PIDDir: pids, LongBytes: 8 << 20})
	ctx := context.Background()
	suite, err := jsonl.NewSuite(ctx, jsonl.Config{Command: cmd, RequestTimeout: 6 * time.Second, MaxLineBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	train, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	rec := &episodes{}
	m := newSAMem(t)
	res, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: train, Iterations: 2, Workers: 2, Seed: 1, Dir: t.TempDir(), Progress: rec})
	if err != nil {
		t.Fatalf("Train: %v", err)
	}
	if len(res.History) != 2 {
		t.Fatalf("history has %d iterations, want 2", len(res.History))
	}
	for _, it := range res.History {
		if it.Episodes != len(tasks) || it.Errors != 5 {
			t.Errorf("iteration %d: %d episodes, %d errors; want %d episodes, 5 errors", it.Iteration, it.Episodes, it.Errors, len(tasks))
		}
	}
	reasons := map[string]string{
		"crash-2":   "exited during step",
		"hang-2":    "no answer to step within 6s",
		"garbage-2": "Traceback",
		"long-2":    "line too long",
		"ok-2b":     "unknown_task",
	}
	won := 0
	for _, ep := range rec.eps {
		want, bad := reasons[ep.Task.ID]
		switch {
		case bad && !strings.Contains(ep.Outcome.Err, want):
			t.Errorf("episode %s: error %q, want it to say %q", ep.Task.ID, ep.Outcome.Err, want)
		case !bad && ep.Outcome.Err != "":
			t.Errorf("episode %s failed: %s", ep.Task.ID, ep.Outcome.Err)
		case !bad && ep.Outcome.Won:
			won++
		}
	}
	if won == 0 {
		t.Errorf("no healthy task was won: the broken ones took the run down with them")
	}
	// One process listed the tasks, two workers each started one, and every
	// crash, hang, garbage and long line (2 iterations x 4) cost a process.
	if got := len(faults.Started(pids)); got < 3+8 {
		t.Errorf("%d environment processes started, want at least %d (one per broken episode)", got, 3+8)
	}
	noLeftovers(t, faults.Started(pids))
}

// TestSuiteCloseLeavesNoProcess checks the bare driver: a hung environment
// is killed at the deadline and reaped.
func TestHungEnvironmentIsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a hung environment's deadline (runs without -short)")
	}
	pids := t.TempDir()
	ctx := context.Background()
	suite, err := jsonl.NewSuite(ctx, jsonl.Config{Command: faults.EnvCommand(faults.EnvOptions{Tasks: []string{"hang-1"}, PIDDir: pids}), RequestTimeout: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	env, err := suite.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Reset(ctx, envbridge.Task{ID: "hang-1"}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	_, err = env.Step(ctx, "next")
	if err == nil || !strings.Contains(err.Error(), "no answer") {
		t.Fatalf("Step on a hung environment: %v", err)
	}
	// The environment hangs for much longer than a minute: returning within
	// one shows the 6 s deadline acted (a bound far from any scheduling delay).
	if d := time.Since(began); d > time.Minute {
		t.Errorf("Step returned after %v; the deadline is 6s", d)
	}
	env.Close()
	noLeftovers(t, faults.Started(pids))
}
