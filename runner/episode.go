// Package runner executes memory methods on environments: one episode
// (Run), a training schedule over iterations with parallel workers and
// checkpoints (Train), and evaluation on held-out tasks (Evaluate).
package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// Episode is the record of one trial.
type Episode struct {
	Task    envbridge.Task `json:"task"`
	Outcome agent.Outcome  `json:"outcome"`
	// Opening is the observation the environment gave at Reset, before
	// the first action; each transition holds the observation after it.
	Opening     string             `json:"opening,omitempty"`
	Transitions []agent.Transition `json:"transitions"`
	// Trial is the trial of the task in an evaluation with several trials
	// per task (agent.EvalTrialer, CLIN's G+A); 0 otherwise.
	Trial int `json:"trial,omitempty"`
	// Mode is the episode's mode ("train", "eval" or "online"), Iteration a
	// training episode's iteration: with Index they place a training
	// episode in the schedule, so that a record of training can be read
	// back in order and an episode replayed after a resume recognised.
	Mode      string `json:"mode,omitempty"`
	Iteration int    `json:"iteration,omitempty"`
	// Index is the task's position in the list the runner was given (the
	// whole list, also when a shard plays part of it).
	Index int `json:"index"`
	// Use is what the episode shows of how memory and the environment were
	// used.
	Use Use `json:"use"`
}

// Use counts, for one episode, what the memory-use metrics are made of.
type Use struct {
	// GuidedSteps are the steps whose decision memory guided
	// (agent.Decision.Guided).
	GuidedSteps int `json:"guided_steps"`
	// CheckedSteps are the steps whose action could be judged (the Env is
	// an envbridge.ActionChecker, or the observation listed the admissible
	// actions); InvalidActions those judged invalid.
	CheckedSteps   int `json:"checked_steps"`
	InvalidActions int `json:"invalid_actions"`
	// Progress is the share of the task done at best during the episode:
	// the environment's subgoals (ProgressSubgoals) or the best score over
	// the maximum score (ProgressScore); nil when the environment gives
	// neither.
	Progress     *float64 `json:"progress,omitempty"`
	ProgressFrom string   `json:"progress_from,omitempty"`
	// Tokens are the model tokens of the episode's calls, answered by a
	// server or the response cache (llm.Episode).
	Tokens int64 `json:"tokens"`
}

// Where Use.Progress comes from.
const (
	ProgressSubgoals = "subgoals"
	ProgressScore    = "score"
)

// Run plays one episode of s.Task on env with a fresh episode of m.
//
// The episode ends when the environment says it is done, or after
// s.Task.MaxSteps actions (a guard for environments that do not truncate
// themselves). Finish is always called once the episode has started, also
// when the episode ends in an error; that error is recorded in
// Outcome.Err and returned, together with everything recorded so far.
func Run(ctx context.Context, env envbridge.Env, m agent.Method, s agent.Start) (Episode, error) {
	rec := Episode{Task: s.Task, Mode: s.Mode.String()}
	if s.Mode == agent.Train {
		rec.Iteration = s.Iteration
	}
	obs, err := env.Reset(ctx, s.Task)
	if err != nil {
		err = envError{fmt.Errorf("reset %s: %w", s.Task.ID, err)}
		rec.Outcome.Err = err.Error()
		return rec, err
	}
	s.Task = described(env, s.Task)
	rec.Task = s.Task
	rec.Opening = obs.Text
	ep, err := m.Start(ctx, s)
	if err != nil {
		err = fmt.Errorf("start %s on %s: %w", m.Name(), s.Task.ID, err)
		rec.Outcome.Err = err.Error()
		return rec, err
	}
	runErr := play(ctx, env, ep, s.Task, obs, &rec)
	if runErr != nil {
		rec.Outcome.Err = runErr.Error()
	}
	if p, ok := env.(envbridge.Progresser); ok {
		v := p.Progress()
		rec.Use.Progress, rec.Use.ProgressFrom = &v, ProgressSubgoals
	}
	// Finish must run even when ctx is cancelled (a method may persist what
	// the trial taught it); give it a context that is not cancelled.
	if err := ep.Finish(context.WithoutCancel(ctx), rec.Outcome); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("finish %s on %s: %w", m.Name(), s.Task.ID, err))
		rec.Outcome.Err = runErr.Error()
	}
	if e, ok := llm.EpisodeFrom(ctx); ok {
		rec.Use.Tokens = e.Tokens()
	}
	return rec, runErr
}

func play(ctx context.Context, env envbridge.Env, ep agent.Episode, t envbridge.Task, obs envbridge.Observation, rec *Episode) error {
	maxSteps := t.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	out := &rec.Outcome
	use := &rec.Use
	checker, _ := env.(envbridge.ActionChecker)
	best := math.Inf(-1)
	for step := 0; step < maxSteps; step++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := ep.Act(ctx, obs)
		if err != nil {
			return fmt.Errorf("act at step %d: %w", step, err)
		}
		if d.Guided {
			use.GuidedSteps++
		}
		switch {
		case checker != nil:
			use.CheckedSteps++
			if !checker.Accepts(d.Action) {
				use.InvalidActions++
			}
		case obs.Admissible != nil:
			use.CheckedSteps++
			if !admissible(obs.Admissible, d.Action) {
				use.InvalidActions++
			}
		}
		res, err := env.Step(ctx, d.Action)
		if err != nil {
			return envError{fmt.Errorf("step %d (%q): %w", step, d.Action, err)}
		}
		out.Steps = step + 1
		out.Score, out.MaxScore = res.Score, res.MaxScore
		out.Won, out.Lost, out.Truncated = res.Won, res.Lost, res.Truncated
		if res.MaxScore > 0 {
			best = math.Max(best, res.Score)
			v := math.Max(0, math.Min(1, best/res.MaxScore))
			use.Progress, use.ProgressFrom = &v, ProgressScore
		}
		tr := agent.Transition{Step: step, Decision: d, Result: res}
		rec.Transitions = append(rec.Transitions, tr)
		if err := ep.Observe(ctx, tr); err != nil {
			return fmt.Errorf("observe step %d: %w", step, err)
		}
		if res.Done {
			return nil
		}
		obs = res.Observation
	}
	out.Truncated = !out.Won && !out.Lost
	return nil
}

// admissible reports whether action is in list, case and spacing aside.
func admissible(list []string, action string) bool {
	a := strings.Join(strings.Fields(strings.ToLower(action)), " ")
	for _, x := range list {
		if x == action || strings.Join(strings.Fields(strings.ToLower(x)), " ") == a {
			return true
		}
	}
	return false
}

// described is the task as the environment stated it at its last Reset
// (envbridge.Describer: AgentGym's servers name the type and goal only
// there), else t. The method sees that task's goal for the whole episode
// and the records keep it. The task's ID and split stay the suite's.
func described(env envbridge.Env, t envbridge.Task) envbridge.Task {
	d, ok := env.(envbridge.Describer)
	if !ok {
		return t
	}
	got := d.Described()
	if got.Goal != "" {
		t.Goal = got.Goal
	}
	if got.Type != "" {
		t.Type = got.Type
	}
	if got.MaxSteps > 0 {
		t.MaxSteps = got.MaxSteps
	}
	return t
}

// envError marks an episode error that came from the environment (its
// Reset or Step, or opening it): the worker replaces the environment and
// training goes on. Any other episode error comes from the method (a model
// call that failed after its retry budget, a bug) and stops training.
type envError struct{ err error }

func (e envError) Error() string { return e.err.Error() }
func (e envError) Unwrap() error { return e.err }

// isEnvError reports whether err came from the environment.
func isEnvError(err error) bool {
	var e envError
	return errors.As(err, &e)
}

// DefaultMaxSteps bounds an episode whose task gives no limit.
const DefaultMaxSteps = 50
