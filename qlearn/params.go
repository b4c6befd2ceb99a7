// Package qlearn is SAMem's value memory: a sparse Q-table over (state
// cluster id, thought cluster id) pairs, the tabular update of seed 002
// Eq. 4-5, argmax with deterministic tie-breaking, and the decayed
// epsilon-greedy schedule of Eq. 7.
//
// A Table is not safe for concurrent use: its single user (the SAMem method)
// calls it while holding its own memory lock, so a second lock here would
// only cost time.
package qlearn

import (
	"errors"
	"fmt"
	"math"
)

// Defaults for Params. Seed 002 gives no learning rate or discount factor,
// so they are chosen here for its setting: sparse rewards (a success reward at
// the end of an episode of at most about 50 steps, ALFWorld-style) and
// tabular updates of clustered states and thoughts.
const (
	// DefaultAlpha is the learning rate. A state cluster gathers different
	// concrete situations (and task types) that reach different outcomes,
	// and training meets the tasks in blocks of one type, so a constant
	// rate makes an entry's value that of the last few updates, i.e. of the
	// type trained last. Measured on the household world with the offline
	// roles (cmd/sweep grid mode, world seeds 1-10 x run seeds
	// 1-2, one worker): alpha 0.2 gave a mean valid_unseen success of 0.909
	// with 5 tasks per type and 0.608 with 20 (7 and 3 of 10 cells at >=
	// 0.85 on both seeds); alpha 0.05 gave 0.952 and 0.998 (9 and 10 of 10).
	// Those runs played the tasks in the suite's order (by type); with the
	// shuffled order of the training tasks (app.TrainingTasks, the default
	// since then) 0.2 did not do better with 1 task per type either (0.605
	// against 0.666 over world seeds 1-8, run seed 1).
	// docs/results/2026-11-24-samem-sweep.md has the tables. An earlier
	// measurement (2 workers) had chosen 0.2 over 0.5.
	DefaultAlpha = 0.05
	// DefaultGamma is the discount factor. With 0.9 a final reward of 1 is
	// still worth 0.9^10 ≈ 0.35 ten steps earlier and 0.9^30 ≈ 0.04 thirty
	// steps earlier, so the value propagates back through typical solution
	// lengths (5-30 steps) yet shorter solutions rank higher than long ones.
	DefaultGamma = 0.9
)

// ErrParams is returned (wrapped) by Params.Validate and New when a parameter
// is out of range.
var ErrParams = errors.New("qlearn: invalid parameters")

// Params are the learning parameters of Eq. 4-5 of seed 002.
type Params struct {
	// Alpha is the learning rate of Eq. 5, in (0, 1]; default DefaultAlpha.
	Alpha float64
	// Gamma is the discount factor of Eq. 4, in [0, 1]; default DefaultGamma.
	Gamma float64
}

// DefaultParams returns DefaultAlpha and DefaultGamma.
func DefaultParams() Params {
	return Params{Alpha: DefaultAlpha, Gamma: DefaultGamma}
}

// Validate reports whether p is usable: Alpha in (0, 1], Gamma in [0, 1].
func (p Params) Validate() error {
	if !(p.Alpha > 0 && p.Alpha <= 1) {
		return fmt.Errorf("%w: alpha %v not in (0, 1]", ErrParams, p.Alpha)
	}
	if !(p.Gamma >= 0 && p.Gamma <= 1) {
		return fmt.Errorf("%w: gamma %v not in [0, 1]", ErrParams, p.Gamma)
	}
	return nil
}

// Exploration schedule constants of seed 002 Eq. 7 (Sec. 3.3).
const (
	// Eps0 is the initial exploration rate epsilon_0.
	Eps0 = 0.95
	// Beta is the decay rate beta.
	Beta = 6.0
)

// Epsilon is the exploration rate of seed 002 Eq. 7:
// eps0 * exp(-beta * t / T).
//
// Units are the caller's: SAMem passes by default the training steps applied
// so far and the step budget (episodes times the step limit), as Algorithm 1
// decays epsilon after every transition, or with its episode schedule the
// episode's index (0-based, iteration*tasks + task index) and the number of
// training episodes. So the schedule starts at eps0 and ends at about
// eps0*exp(-beta) (0.0024 with the defaults). A negative t counts as 0; t
// beyond T keeps decaying. With T <= 0 (no schedule) it returns eps0.
func Epsilon(eps0, beta float64, t, T int) float64 {
	if T <= 0 {
		return eps0
	}
	if t < 0 {
		t = 0
	}
	return eps0 * math.Exp(-beta*float64(t)/float64(T))
}
