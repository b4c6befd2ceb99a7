// Package envbridge is the contract between the trainer and a text environment:
// tasks grouped in splits, observations with an optional list of admissible
// actions, and step results with reward, score and how the episode ended.
//
// Drivers live in subpackages (household, zmachine, jsonl, agentgym). Every
// driver passes the conformance suite in envbridge/envtest.
package envbridge

import (
	"context"
	"errors"
)

// Split names used by every suite. A suite may offer others.
const (
	SplitTrain       = "train"
	SplitValidSeen   = "valid_seen"
	SplitValidUnseen = "valid_unseen"
)

// Style says which family of text an environment speaks, so that LLM roles can
// pick the matching prompt (seed 002 Appendix D has one per family).
type Style string

const (
	StyleHousehold Style = "household" // ALFWorld-like: admissible actions, object/receptacle grammar
	StyleScience   Style = "science"   // ScienceWorld-like
	StyleFiction   Style = "fiction"   // interactive fiction (Jericho, TextWorld): free-form actions
)

// Task is one episode's specification. It is plain data: a suite hands it out
// and an Env is reset with it.
type Task struct {
	ID          string `json:"id"`           // unique within its suite and stable across runs
	Type        string `json:"type"`         // task family, the unit of per-type reports
	Goal        string `json:"goal"`         // the goal as the agent sees it
	Split       string `json:"split"`        // SplitTrain, SplitValidSeen, SplitValidUnseen, ...
	Seed        int64  `json:"seed"`         // what the environment seeds itself with
	MaxSteps    int    `json:"max_steps"`    // truncation limit; > 0
	OracleSteps int    `json:"oracle_steps"` // shortest known solution, for SPL; 0 when unknown
}

// Observation is what the agent sees after a reset or a step.
type Observation struct {
	Text string `json:"text"`
	// Admissible lists the actions the environment accepts now, or is nil
	// where the environment gives no list (free-form actions).
	Admissible []string `json:"admissible,omitempty"`
	// Objects and Templates are the action language of an environment
	// whose actions are templates over the objects in view (ScienceWorld's
	// possible objects and action templates, OBJ standing for an object), as
	// its driver gives them; nil where it gives none (see Templates).
	Objects   []string `json:"objects,omitempty"`
	Templates []string `json:"templates,omitempty"`
}

// StepResult is the outcome of one action.
type StepResult struct {
	Observation
	Reward   float64 `json:"reward"`    // change in score caused by this step
	Score    float64 `json:"score"`     // score so far
	MaxScore float64 `json:"max_score"` // best possible score; 0 when unknown
	Done     bool    `json:"done"`      // the episode is over (for any reason)
	Won      bool    `json:"won"`       // the goal was reached (implies Done)
	Lost     bool    `json:"lost"`      // the game ended in failure (implies Done)
	// Truncated: the step limit was reached before the goal (implies Done, not Won).
	Truncated bool `json:"truncated"`
}

// Env is one running environment. It is not safe for concurrent use; run one
// Env per worker. Every method that can block takes a context and returns
// promptly once it is cancelled.
type Env interface {
	// Reset starts an episode of t and returns the first observation.
	// The same task (and seed) always gives the same text.
	Reset(ctx context.Context, t Task) (Observation, error)
	// Step applies an action. An action the environment does not understand
	// is not an error: it is answered in the environment's own words.
	// After the episode is done Step returns ErrEpisodeOver.
	Step(ctx context.Context, action string) (StepResult, error)
	// Close releases the environment (child processes, connections).
	// It is idempotent; any call after it returns ErrClosed.
	Close() error
}

// Suite lists tasks by split and opens environments that can run them.
// A Suite is safe for concurrent use.
type Suite interface {
	// Name identifies the suite in reports and checkpoints ("household", "zmachine:hunt").
	Name() string
	// Style is the family of text the suite's environments speak.
	Style() Style
	// Splits names the splits the suite offers, in a stable order.
	Splits() []string
	// Tasks lists a split's tasks in a stable order. An unknown split gives ErrUnknownSplit.
	Tasks(split string) ([]Task, error)
	// Open starts a fresh environment. The caller closes it.
	Open(ctx context.Context) (Env, error)
}

// Errors shared by every driver; drivers wrap them with detail, callers test
// them with errors.Is.
var (
	// ErrEpisodeOver is returned by Step after the episode is done, and by Step before any Reset.
	ErrEpisodeOver = errors.New("episode is over")
	// ErrClosed is returned by every Env method called after Close.
	ErrClosed = errors.New("environment is closed")
	// ErrUnknownTask is returned by Reset for a task the suite does not have.
	ErrUnknownTask = errors.New("unknown task")
	// ErrUnknownSplit is returned by Suite.Tasks for a split the suite does not have.
	ErrUnknownSplit = errors.New("unknown split")
)

// Describer is an Env that learns what a task is from the environment itself
// at Reset (AgentGym's servers state a task's type and goal only in their
// /reset answer). After a Reset, Described returns the task as the
// environment stated it: the listed task with its Type, Goal and MaxSteps
// replaced. The runner gives that task to the method and to the records, so
// that every method has the environment's own task text as Task.Goal for the
// whole episode, not only in the first observation.
type Describer interface {
	Described() Task
}

// ActionChecker is an Env that judges actions itself: Accepts reports
// whether the environment would carry out action now (an admissible action
// in any of the forms it understands) rather than answer it as invalid.
// Reports count invalid actions with it; for an Env without it, an action
// outside the observation's admissible list (case and spacing aside) is
// invalid, and without a list nothing is judged.
type ActionChecker interface {
	Accepts(action string) bool
}

// Progresser is an Env that tracks the subgoals of its task (AgentBoard's
// progress rate): Progress is the share of them reached so far in the
// episode, in [0, 1], reached once counting for the rest of the episode.
// The household world's are finding, taking, processing (cleaning,
// heating, cooling, lighting) and placing the goal's objects.
type Progresser interface {
	Progress() float64
}
