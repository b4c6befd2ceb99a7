// Package thought produces SAMem's reasoning thought and action for a state
// (seed 002 Eq. 3 and Eq. 6): freely when exploring, or guided by the
// highest-valued stored thought of the matched state when exploiting.
//
// Two implementations share one contract: LLM (prompts of Appendix D.2,
// Fig. 13-15; by default two calls, the thought from the state and then the
// action, Eq. 3; optionally one call replying "Thought: ... / Action: ...")
// and package thought/offline's Thinker (a fixed library of
// de-indexicalised strategy thoughts and a rule-based executor). Both map
// the proposed action onto the admissible list with actions.MatchAdmissible.
package thought

import (
	"context"
	"math/rand/v2"

	"github.com/samem/trainer/envbridge"
)

// Thinker starts one thinking session per episode.
type Thinker interface {
	// Begin starts a session; rng is the episode's random source.
	Begin(t envbridge.Task, style envbridge.Style, rng *rand.Rand) Session
}

// Session decides one episode's steps. It is used by one goroutine.
type Session interface {
	Think(ctx context.Context, in Input) (Decision, error)
}

// Input is what a step's thinking sees.
type Input struct {
	State string                // the summarised state (seed 002 Eq. 2)
	Obs   envbridge.Observation // the current observation and admissible actions
	// Guide is the highest-valued stored thought of the matched state when
	// exploiting (Eq. 6), or empty when thinking freely.
	Guide string
	// GuideIsAction says that Guide is a stored action, not a thought (the
	// action-level memory of seed 002 Table 3).
	GuideIsAction bool
}

// Decision is a thought and the action it leads to.
type Decision struct {
	Thought string
	Action  string
	// Attempts counts the model calls made (1 when the first action was
	// admissible); 0 for the offline thinker.
	Attempts int
	// Matched reports that the action is admissible (always true for
	// free-form environments).
	Matched bool
}
