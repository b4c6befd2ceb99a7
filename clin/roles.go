package clin

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/samem/trainer/envbridge"
)

// Step is one step of a trial as the roles see it: the goal the controller
// set, the action taken, what the environment answered, and the reward.
type Step struct {
	Goal        string
	Action      string
	Observation string
	Reward      float64
}

// Proposal is the controller's answer: the next goal g_{t+1} (seed 004
// Eq. 1), and, when the controller also writes one, a candidate action for
// the executor to check (the paper's controller and executor share one prompt,
// Fig. 6).
type Proposal struct {
	Goal   string
	Action string
	// Actions, when there is no Action, are the admissible actions that
	// realise Goal now (a controller without a model names goals, not
	// actions); the executor takes one at random.
	Actions []string
	Used    []int // 1-based ids of the shown memory items used; empty when none
}

// ControllerInput is what the controller sees at one step (Sec. 3.3): the
// task, the selected memory items, the trial so far and the current
// observation, with the candidates already rejected at this step.
type ControllerInput struct {
	Task     envbridge.Task
	Style    envbridge.Style
	Memory   []Abstraction // selected items, shown numbered from 1
	Trace    []Step
	Obs      envbridge.Observation
	Rejected []string // goals or actions the executor could not map, as feedback
	Rand     *rand.Rand
}

// Controller proposes the next goal.
type Controller interface {
	Next(ctx context.Context, in ControllerInput) (Proposal, error)
}

// Memory is one memory S_k with the trial (of its task) it was generated
// after and that trial's final reward in [0, 1].
type Memory struct {
	Trial  int
	Reward float64
	Items  []Abstraction
}

// AdaptInput is Eq. 2's input: the last trial, its final reward (also as
// feedback text) and the memories of the last three trials, oldest first.
type AdaptInput struct {
	Task     envbridge.Task
	Style    envbridge.Style
	Trial    int // index of the trial just played (0-based)
	Trace    []Step
	Reward   float64 // normalised final reward in [0, 1]
	Won      bool
	Previous []Memory
	// Advice asks for free-form advice instead of causal abstractions (the
	// ablation of Sec. 5 question E, Fig. 13).
	Advice bool
}

// Archived is one entry of the generalisation archive: the memory generated
// after the best trial of an earlier episode, with that trial's reward.
type Archived struct {
	Task   envbridge.Task
	Reward float64
	Items  []Abstraction
}

// MetaInput is Eq. 3's input: the new task and the archive of best memories
// of earlier episodes (at most Config.Archive of them, best first).
type MetaInput struct {
	Task    envbridge.Task
	Style   envbridge.Style
	Archive []Archived
	// GenTask asks for the meta-memory of a new task (GEN-TASK, Sec. 5C,
	// Fig. 9) from the archive of Config.GenTask; otherwise it is for the
	// same type in a new environment (GEN-ENV, Fig. 8).
	GenTask bool
	// Advice asks for free-form advice (Sec. 5 question E).
	Advice bool
}

// Generator is the memory generator (Sec. 3.4).
type Generator interface {
	// Adapt generates S_{k+1} from a trial (Eq. 2).
	Adapt(ctx context.Context, in AdaptInput) ([]Abstraction, error)
	// Meta generates the meta-memory for a new task (Eq. 3).
	Meta(ctx context.Context, in MetaInput) ([]Abstraction, error)
}

// Feedback turns a final reward into the text of the evaluation report. The
// paper uses "7 simple rules" on the score in [0, 100] and quotes two of them
// (seed 004 Sec. 3.4 footnote 1 and Fig. 7); the other five bands are ours.
func Feedback(reward float64, won bool) string {
	score := scoreOf(reward, won)
	switch {
	case score >= 100:
		return "The agent has performed exceptionally well and successfully solved the task."
	case score >= 80:
		return "The agent performed very well and nearly solved the task."
	case score >= 60:
		return "The agent performed well and made good progress but did not solve the task."
	case score >= 40:
		return "The agent performed moderately and made some progress but did not solve the task."
	case score >= 20:
		return "The agent performed below average and made limited progress towards solving the task."
	case score >= 0:
		return "The agent performed poorly and made some progress but not enough to solve the task."
	default:
		return "The agent performed very poorly and made no progress; its actions set the task back."
	}
}

// scoreOf is the paper's REWARD_FINAL: the reward on a 0-100 scale.
func scoreOf(reward float64, won bool) int {
	if won {
		return 100
	}
	if math.IsNaN(reward) {
		return 0
	}
	return int(math.Round(100 * reward))
}

// normReward maps an episode's outcome to [0, 1]: 1 when won, else the share
// of the maximum score when it is known, else the score clamped.
func normReward(won bool, score, maxScore float64) float64 {
	if won {
		return 1
	}
	r := score
	if maxScore > 0 {
		r = score / maxScore
	}
	return math.Max(0, math.Min(1, r))
}
