package envtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/samem/trainer/envbridge"
)

// fake is a tiny counting game: the goal is to say "win" (admissible from
// step 3 on). Its bug fields break one rule each, so that the tests can show
// every check can fail.
type fake struct {
	freeForm       bool
	noEndError     bool // Step after the end succeeds
	closeErrTwice  bool // second Close fails
	ignoreCtx      bool // cancelled contexts are ignored
	nondeterminism bool // texts carry a global counter
	noTruncate     bool // never ends: no truncation and no win
}

var counter atomic.Int64

func (f *fake) Name() string                                { return "fake" }
func (f *fake) Style() envbridge.Style                      { return envbridge.StyleFiction }
func (f *fake) Splits() []string                            { return []string{envbridge.SplitTrain} }
func (f *fake) Open(context.Context) (envbridge.Env, error) { return &fakeEnv{f: f}, nil }
func (f *fake) Tasks(split string) ([]envbridge.Task, error) {
	if split != envbridge.SplitTrain {
		return nil, fmt.Errorf("split %q: %w", split, envbridge.ErrUnknownSplit)
	}
	var ts []envbridge.Task
	for i := range 4 {
		ts = append(ts, envbridge.Task{ID: fmt.Sprintf("t%d", i), Type: "count", Goal: "say win", Split: split, MaxSteps: 6 + i})
	}
	return ts, nil
}

type fakeEnv struct {
	f      *fake
	task   envbridge.Task
	steps  int
	over   bool
	closed int
}

func (e *fakeEnv) obs(text string) envbridge.Observation {
	if e.f.nondeterminism {
		text += fmt.Sprint(counter.Add(1))
	}
	o := envbridge.Observation{Text: text}
	if !e.f.freeForm {
		o.Admissible = []string{"look", "wait"}
		if e.steps >= 3 {
			o.Admissible = append(o.Admissible, "win")
		}
	}
	return o
}

func (e *fakeEnv) Reset(ctx context.Context, t envbridge.Task) (envbridge.Observation, error) {
	if e.closed > 0 {
		return envbridge.Observation{}, envbridge.ErrClosed
	}
	if err := ctx.Err(); err != nil && !e.f.ignoreCtx {
		return envbridge.Observation{}, err
	}
	if !strings.HasPrefix(t.ID, "t") {
		return envbridge.Observation{}, fmt.Errorf("reset %q: %w", t.ID, envbridge.ErrUnknownTask)
	}
	e.task, e.steps, e.over = t, 0, false
	return e.obs("start of " + t.ID), nil
}

func (e *fakeEnv) Step(ctx context.Context, a string) (envbridge.StepResult, error) {
	if e.closed > 0 {
		return envbridge.StepResult{}, envbridge.ErrClosed
	}
	if err := ctx.Err(); err != nil && !e.f.ignoreCtx {
		return envbridge.StepResult{}, err
	}
	if e.over && !e.f.noEndError || e.task.ID == "" {
		return envbridge.StepResult{}, fmt.Errorf("step: %w", envbridge.ErrEpisodeOver)
	}
	e.steps++
	var r envbridge.StepResult
	switch {
	case a == "win" && e.steps > 3 && !e.f.noTruncate:
		r = envbridge.StepResult{Reward: 1, Score: 1, MaxScore: 1, Done: true, Won: true}
	case e.steps >= e.task.MaxSteps && !e.f.noTruncate:
		r = envbridge.StepResult{MaxScore: 1, Done: true, Truncated: true}
	default:
		r = envbridge.StepResult{MaxScore: 1}
	}
	r.Observation = e.obs(fmt.Sprintf("step %d: %s", e.steps, a))
	e.over = r.Done
	return r, nil
}

func (e *fakeEnv) Close() error {
	e.closed++
	if e.closed > 1 && e.f.closeErrTwice {
		return errors.New("already closed")
	}
	return nil
}

func TestRunPassesAGoodDriver(t *testing.T) {
	Run(t, &fake{}, Options{})
	Run(t, &fake{freeForm: true}, Options{FreeForm: true, Actions: []string{"look", "win"}})
	Run(t, &fake{}, Options{Steps: 2, Tasks: 1})
}

func TestCheckCatchesBrokenDrivers(t *testing.T) {
	tests := []struct {
		name  string
		f     *fake
		opts  Options
		check string // the check whose failure must be reported
	}{
		{"step after end", &fake{noEndError: true}, Options{}, "episode"},
		{"close twice", &fake{closeErrTwice: true}, Options{}, "close"},
		{"ignores context", &fake{ignoreCtx: true}, Options{}, "context"},
		{"nondeterministic", &fake{nondeterminism: true}, Options{}, "determinism"},
		{"never ends", &fake{noTruncate: true}, Options{}, "episode"},
		{"list where free-form declared", &fake{}, Options{FreeForm: true}, "reset"},
		{"no list where expected", &fake{freeForm: true}, Options{}, "reset"},
		{"unknown split", &fake{}, Options{Split: "nope"}, "episode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(t.Context(), tc.f, tc.opts)
			if err == nil {
				t.Fatalf("Check passed a broken driver")
			}
			if !strings.Contains(err.Error(), tc.check+": ") {
				t.Errorf("Check error = %v, want a failure of check %q", err, tc.check)
			}
		})
	}
}
