// Package envtest is the conformance suite every envbridge driver runs
// against itself, so that the trainer can treat all environments alike.
//
// A driver's test calls Run:
//
//	func TestConformance(t *testing.T) {
//		suite, err := household.New(household.Config{})
//		if err != nil {
//			t.Fatal(err)
//		}
//		envtest.Run(t, suite, envtest.Options{})
//	}
//
// Free-form environments (no admissible list, e.g. Z-machine games) set
// Options.FreeForm and, if "look" and "inventory" mean nothing to them,
// Options.Actions. Slow environments (child processes, HTTP servers) lower
// Options.Tasks and Options.Steps so that the suite stays within seconds.
//
// What is checked, each as its own subtest of Run (and each reported by Check):
//
//   - suite: Name is non-empty, Splits is non-empty, every split lists tasks with
//     unique non-empty IDs, non-empty goals, the split's name and MaxSteps > 0;
//     an unknown split gives envbridge.ErrUnknownSplit.
//   - reset: Reset gives non-empty text; the admissible list is non-empty
//     (or nil when FreeForm); Step before any Reset gives envbridge.ErrEpisodeOver;
//     Reset with an unknown task id gives envbridge.ErrUnknownTask.
//   - episode: an unparsable action is answered, not an error; every step
//     result is consistent (Won, Lost and Truncated imply Done; Won excludes
//     Lost and Truncated; Score moves by Reward); the episode ends (by goal or
//     by truncation) within the task's MaxSteps, which the suite lowers to
//     Options.Steps; after the end Step returns an error wrapping
//     envbridge.ErrEpisodeOver.
//   - determinism: replaying the same actions after a new Reset, and in a new
//     environment, gives byte-identical observations and admissible lists.
//   - context: a cancelled context makes Reset and Step return an error that
//     wraps context.Canceled.
//   - close: Close twice returns nil; Reset and Step after Close return an error
//     wrapping envbridge.ErrClosed.
//   - parallel: two environments of the same suite run at once (under -race this
//     catches shared mutable state) and give the same transcripts as serial runs.
package envtest

//lint:file-ignore ST1005 a clause's error starts with the Env method that failed (Open, Reset, Step), as the driver's author reads it

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/envbridge"
)

// Options tune the conformance suite to a driver. The zero value suits a
// fast environment with admissible lists.
type Options struct {
	// Split is the split whose tasks are played; default: the first of Splits().
	Split string
	// Tasks is how many tasks of the split are played (from its start); default 3.
	Tasks int
	// Steps caps the length of each played episode: the task's MaxSteps is
	// lowered to it before Reset, so a driver must honour Task.MaxSteps.
	// Default 0 keeps the task's own MaxSteps. Slow drivers set 5 or so.
	Steps int
	// FreeForm says the environment gives no admissible list: observations
	// must then have Admissible == nil, and actions come from Actions.
	FreeForm bool
	// Actions are cycled through as the moves of a free-form episode.
	// Default: "look", "inventory".
	Actions []string
	// Policy, when set, chooses every action (after the first, which is
	// always an unparsable one) instead of the built-in choice. It must be
	// deterministic: the determinism check replays what it chose.
	Policy func(step int, obs envbridge.Observation) string
	// SkipParallel leaves out the parallel check (for drivers that cannot run
	// two environments at once, say one licensed game server).
	SkipParallel bool
}

// Gibberish is the first action of every played episode: a driver must answer
// it in its own words, not with an error.
const Gibberish = "xyzzy frobnicate the plugh"

func (o Options) withDefaults(s envbridge.Suite) Options {
	if o.Split == "" {
		if sp := s.Splits(); len(sp) > 0 {
			o.Split = sp[0]
		}
	}
	if o.Tasks <= 0 {
		o.Tasks = 3
	}
	if len(o.Actions) == 0 {
		o.Actions = []string{"look", "inventory"}
	}
	return o
}

type check struct {
	name string
	run  func(ctx context.Context, s envbridge.Suite, o Options) error
}

var checks = []check{
	{"suite", checkSuite},
	{"reset", checkReset},
	{"episode", checkEpisode},
	{"determinism", checkDeterminism},
	{"context", checkContext},
	{"close", checkClose},
	{"parallel", checkParallel},
}

// Run runs every check as a subtest of t; a failed check fails its subtest
// with the reason.
func Run(t *testing.T, suite envbridge.Suite, opts Options) {
	t.Helper()
	opts = opts.withDefaults(suite)
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(t.Context(), suite, opts); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Check runs every check outside a test and returns all failures joined
// (nil when the driver conforms). Each failure names its check.
func Check(ctx context.Context, suite envbridge.Suite, opts Options) error {
	opts = opts.withDefaults(suite)
	var errs []error
	for _, c := range checks {
		if err := c.run(ctx, suite, opts); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

func tasks(s envbridge.Suite, o Options) ([]envbridge.Task, error) {
	ts, err := s.Tasks(o.Split)
	if err != nil {
		return nil, fmt.Errorf("tasks of split %q: %w", o.Split, err)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("split %q has no tasks", o.Split)
	}
	if len(ts) > o.Tasks {
		ts = ts[:o.Tasks]
	}
	out := make([]envbridge.Task, len(ts))
	for i, t := range ts {
		if o.Steps > 0 && t.MaxSteps > o.Steps {
			t.MaxSteps = o.Steps
		}
		out[i] = t
	}
	return out, nil
}

func checkSuite(_ context.Context, s envbridge.Suite, _ Options) error {
	if s.Name() == "" {
		return errors.New("Name() is empty")
	}
	if s.Style() == "" {
		return errors.New("Style() is empty")
	}
	splits := s.Splits()
	if len(splits) == 0 {
		return errors.New("Splits() is empty")
	}
	seen := map[string]string{}
	for _, sp := range splits {
		ts, err := s.Tasks(sp)
		if err != nil {
			return fmt.Errorf("Tasks(%q): %w", sp, err)
		}
		again, err := s.Tasks(sp)
		if err != nil || !slices.Equal(ts, again) {
			return fmt.Errorf("Tasks(%q) is not stable between calls (err %v)", sp, err)
		}
		for _, t := range ts {
			switch {
			case t.ID == "":
				return fmt.Errorf("split %q has a task with an empty ID", sp)
			case t.Goal == "":
				return fmt.Errorf("task %q has an empty goal", t.ID)
			case t.Split != sp:
				return fmt.Errorf("task %q listed in split %q says split %q", t.ID, sp, t.Split)
			case t.MaxSteps <= 0:
				return fmt.Errorf("task %q has MaxSteps %d, want > 0", t.ID, t.MaxSteps)
			case t.OracleSteps < 0:
				return fmt.Errorf("task %q has OracleSteps %d, want >= 0", t.ID, t.OracleSteps)
			}
			if other, dup := seen[t.ID]; dup {
				return fmt.Errorf("task id %q appears in split %q and %q", t.ID, other, sp)
			}
			seen[t.ID] = sp
		}
	}
	if _, err := s.Tasks("no-such-split-envtest"); !errors.Is(err, envbridge.ErrUnknownSplit) {
		return fmt.Errorf("Tasks(unknown split) error = %v, want ErrUnknownSplit", err)
	}
	return nil
}

func checkObservation(o Options, obs envbridge.Observation, done bool) error {
	if obs.Text == "" {
		return errors.New("observation text is empty")
	}
	if o.FreeForm {
		if obs.Admissible != nil {
			return fmt.Errorf("FreeForm environment gave an admissible list of %d actions", len(obs.Admissible))
		}
		return nil
	}
	if !done && len(obs.Admissible) == 0 {
		return errors.New("admissible list is empty before the end (set Options.FreeForm if the environment has none)")
	}
	return nil
}

func checkReset(ctx context.Context, s envbridge.Suite, o Options) error {
	ts, err := tasks(s, o)
	if err != nil {
		return err
	}
	env, err := s.Open(ctx)
	if err != nil {
		return fmt.Errorf("Open: %w", err)
	}
	defer env.Close()
	if _, err := env.Step(ctx, "look"); !errors.Is(err, envbridge.ErrEpisodeOver) {
		return fmt.Errorf("Step before Reset error = %v, want ErrEpisodeOver", err)
	}
	bad := ts[0]
	bad.ID = "no-such-task-envtest"
	if _, err := env.Reset(ctx, bad); !errors.Is(err, envbridge.ErrUnknownTask) {
		return fmt.Errorf("Reset(unknown task) error = %v, want ErrUnknownTask", err)
	}
	for _, t := range ts {
		if t.Goal == "" {
			return fmt.Errorf("task %q has an empty goal", t.ID)
		}
		obs, err := env.Reset(ctx, t)
		if err != nil {
			return fmt.Errorf("Reset(%q): %w", t.ID, err)
		}
		if err := checkObservation(o, obs, false); err != nil {
			return fmt.Errorf("Reset(%q): %w", t.ID, err)
		}
	}
	return nil
}

// transcript is what one played episode showed: the actions sent and every
// observation (the reset's first).
type transcript struct {
	actions []string
	obs     []envbridge.Observation
	last    envbridge.StepResult
}

func (tr transcript) equal(o transcript) (bool, string) {
	if !slices.Equal(tr.actions, o.actions) {
		return false, "actions differ"
	}
	if len(tr.obs) != len(o.obs) {
		return false, fmt.Sprintf("%d observations vs %d", len(tr.obs), len(o.obs))
	}
	for i := range tr.obs {
		a, b := tr.obs[i], o.obs[i]
		if a.Text != b.Text {
			return false, fmt.Sprintf("observation %d text %q vs %q", i, a.Text, b.Text)
		}
		if !slices.Equal(a.Admissible, b.Admissible) {
			return false, fmt.Sprintf("observation %d admissible %q vs %q", i, a.Admissible, b.Admissible)
		}
	}
	if !sameResult(tr.last, o.last) {
		return false, fmt.Sprintf("final result %+v vs %+v", tr.last, o.last)
	}
	return true, ""
}

func sameResult(a, b envbridge.StepResult) bool {
	return a.Text == b.Text && a.Reward == b.Reward && a.Score == b.Score && a.Done == b.Done &&
		a.Won == b.Won && a.Lost == b.Lost && a.Truncated == b.Truncated && slices.Equal(a.Admissible, b.Admissible)
}

// choose picks the action of a step: the policy's, a cycled free-form
// action, or an admissible one spread over the list so that episodes move.
func choose(o Options, step int, obs envbridge.Observation) string {
	if step == 0 {
		return Gibberish
	}
	if o.Policy != nil {
		return o.Policy(step, obs)
	}
	if o.FreeForm || len(obs.Admissible) == 0 {
		return o.Actions[(step-1)%len(o.Actions)]
	}
	return obs.Admissible[(step*7+3)%len(obs.Admissible)]
}

// play runs one episode of t to its end, or replays actions when given.
func play(ctx context.Context, env envbridge.Env, o Options, t envbridge.Task, replay []string) (transcript, error) {
	var tr transcript
	obs, err := env.Reset(ctx, t)
	if err != nil {
		return tr, fmt.Errorf("Reset(%q): %w", t.ID, err)
	}
	if err := checkObservation(o, obs, false); err != nil {
		return tr, fmt.Errorf("Reset(%q): %w", t.ID, err)
	}
	tr.obs = append(tr.obs, obs)
	prevScore := 0.0
	for step := 0; ; step++ {
		if step >= t.MaxSteps+1 {
			return tr, fmt.Errorf("task %q: not done after %d steps (MaxSteps %d)", t.ID, step, t.MaxSteps)
		}
		var a string
		if replay != nil {
			if step >= len(replay) {
				return tr, fmt.Errorf("task %q: replay went on past the recorded %d actions", t.ID, len(replay))
			}
			a = replay[step]
		} else {
			a = choose(o, step, obs)
		}
		tr.actions = append(tr.actions, a)
		res, err := env.Step(ctx, a)
		if err != nil {
			return tr, fmt.Errorf("task %q step %d Step(%q): %w", t.ID, step+1, a, err)
		}
		if err := checkResult(res, step, prevScore); err != nil {
			return tr, fmt.Errorf("task %q step %d Step(%q): %w", t.ID, step+1, a, err)
		}
		prevScore = res.Score
		if err := checkObservation(o, res.Observation, res.Done); err != nil {
			return tr, fmt.Errorf("task %q step %d Step(%q): %w", t.ID, step+1, a, err)
		}
		obs = res.Observation
		tr.obs = append(tr.obs, obs)
		tr.last = res
		if res.Done {
			return tr, nil
		}
	}
}

func checkResult(r envbridge.StepResult, step int, prevScore float64) error {
	switch {
	case r.Won && !r.Done, r.Lost && !r.Done, r.Truncated && !r.Done:
		return fmt.Errorf("won %v lost %v truncated %v but not done", r.Won, r.Lost, r.Truncated)
	case r.Won && (r.Lost || r.Truncated):
		return fmt.Errorf("won and also lost %v / truncated %v", r.Lost, r.Truncated)
	case math.IsNaN(r.Reward) || math.IsNaN(r.Score) || math.IsNaN(r.MaxScore):
		return fmt.Errorf("NaN in reward %v score %v max score %v", r.Reward, r.Score, r.MaxScore)
	}
	// The first step's score may include points from before it (games that
	// start with a score); from then on Score moves by Reward.
	if step > 0 && math.Abs(r.Score-(prevScore+r.Reward)) > 1e-9 {
		return fmt.Errorf("score %v is not previous %v plus reward %v", r.Score, prevScore, r.Reward)
	}
	return nil
}

func checkEpisode(ctx context.Context, s envbridge.Suite, o Options) error {
	ts, err := tasks(s, o)
	if err != nil {
		return err
	}
	env, err := s.Open(ctx)
	if err != nil {
		return fmt.Errorf("Open: %w", err)
	}
	defer env.Close()
	for _, t := range ts {
		tr, err := play(ctx, env, o, t, nil)
		if err != nil {
			return err
		}
		if n := len(tr.actions); n > t.MaxSteps {
			return fmt.Errorf("task %q ended after %d steps, MaxSteps %d", t.ID, n, t.MaxSteps)
		}
		if !tr.last.Won && !tr.last.Lost && !tr.last.Truncated {
			return fmt.Errorf("task %q: done without won, lost or truncated", t.ID)
		}
		if tr.last.Truncated && len(tr.actions) != t.MaxSteps {
			return fmt.Errorf("task %q truncated after %d steps, MaxSteps %d", t.ID, len(tr.actions), t.MaxSteps)
		}
		for _, a := range []string{"look", Gibberish} {
			if _, err := env.Step(ctx, a); !errors.Is(err, envbridge.ErrEpisodeOver) {
				return fmt.Errorf("task %q: Step(%q) after the end error = %v, want ErrEpisodeOver", t.ID, a, err)
			}
		}
	}
	return nil
}

func checkDeterminism(ctx context.Context, s envbridge.Suite, o Options) error {
	ts, err := tasks(s, o)
	if err != nil {
		return err
	}
	env, err := s.Open(ctx)
	if err != nil {
		return fmt.Errorf("Open: %w", err)
	}
	defer env.Close()
	env2, err := s.Open(ctx)
	if err != nil {
		return fmt.Errorf("Open (second): %w", err)
	}
	defer env2.Close()
	for _, t := range ts {
		first, err := play(ctx, env, o, t, nil)
		if err != nil {
			return err
		}
		again, err := play(ctx, env, o, t, first.actions)
		if err != nil {
			return fmt.Errorf("replay in the same env: %w", err)
		}
		if ok, why := first.equal(again); !ok {
			return fmt.Errorf("task %q replayed after a new Reset differs: %s", t.ID, why)
		}
		fresh, err := play(ctx, env2, o, t, first.actions)
		if err != nil {
			return fmt.Errorf("replay in a new env: %w", err)
		}
		if ok, why := first.equal(fresh); !ok {
			return fmt.Errorf("task %q replayed in a new environment differs: %s", t.ID, why)
		}
	}
	return nil
}

func checkContext(ctx context.Context, s envbridge.Suite, o Options) error {
	ts, err := tasks(s, o)
	if err != nil {
		return err
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	env, err := s.Open(ctx)
	if err != nil {
		return fmt.Errorf("Open: %w", err)
	}
	defer env.Close()
	if _, err := env.Reset(cancelled, ts[0]); !errors.Is(err, context.Canceled) {
		return fmt.Errorf("Reset with a cancelled context error = %v, want context.Canceled", err)
	}
	if _, err := env.Reset(ctx, ts[0]); err != nil {
		return fmt.Errorf("Reset after a cancelled Reset: %w", err)
	}
	if _, err := env.Step(cancelled, "look"); !errors.Is(err, context.Canceled) {
		return fmt.Errorf("Step with a cancelled context error = %v, want context.Canceled", err)
	}
	return nil
}

func checkClose(ctx context.Context, s envbridge.Suite, o Options) error {
	ts, err := tasks(s, o)
	if err != nil {
		return err
	}
	env, err := s.Open(ctx)
	if err != nil {
		return fmt.Errorf("Open: %w", err)
	}
	if _, err := env.Reset(ctx, ts[0]); err != nil {
		env.Close()
		return fmt.Errorf("Reset: %w", err)
	}
	if err := env.Close(); err != nil {
		return fmt.Errorf("first Close: %w", err)
	}
	if err := env.Close(); err != nil {
		return fmt.Errorf("second Close = %v, want nil (Close is idempotent)", err)
	}
	if _, err := env.Step(ctx, "look"); !errors.Is(err, envbridge.ErrClosed) {
		return fmt.Errorf("Step after Close error = %v, want ErrClosed", err)
	}
	if _, err := env.Reset(ctx, ts[0]); !errors.Is(err, envbridge.ErrClosed) {
		return fmt.Errorf("Reset after Close error = %v, want ErrClosed", err)
	}
	return nil
}

func checkParallel(ctx context.Context, s envbridge.Suite, o Options) error {
	if o.SkipParallel {
		return nil
	}
	ts, err := tasks(s, o)
	if err != nil {
		return err
	}
	serial := make([]transcript, len(ts))
	env, err := s.Open(ctx)
	if err != nil {
		return fmt.Errorf("Open: %w", err)
	}
	for i, t := range ts {
		if serial[i], err = play(ctx, env, o, t, nil); err != nil {
			env.Close()
			return err
		}
	}
	env.Close()
	const workers = 2
	got := make([][]transcript, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			e, err := s.Open(ctx)
			if err != nil {
				errs[w] = fmt.Errorf("Open: %w", err)
				return
			}
			defer e.Close()
			for _, t := range ts {
				tr, err := play(ctx, e, o, t, nil)
				if err != nil {
					errs[w] = err
					return
				}
				got[w] = append(got[w], tr)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	var diffs []string
	for w := range workers {
		for i := range ts {
			if ok, why := serial[i].equal(got[w][i]); !ok {
				diffs = append(diffs, fmt.Sprintf("worker %d task %q: %s", w, ts[i].ID, why))
			}
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("parallel runs differ from serial ones: %s", strings.Join(diffs, "; "))
	}
	return nil
}
