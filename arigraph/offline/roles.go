package offline

import (
	"context"
	"math/rand/v2"

	"github.com/samem/trainer/arigraph"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

// Roles are AriGraph's roles without a model, for arigraph.Deps.Offline:
// triplets read by Rules, outdated edges by RuleOutdated, the Ariadne
// planner and decider by Decider, and a household goal's object,
// receptacle and lamp as retrieval queries.
type Roles struct{}

// Read implements arigraph.Offline with Rules.
func (Roles) Read(style envbridge.Style, text, action, prevLoc string) []arigraph.Triplet {
	return Rules{}.Extract(style, text, action, prevLoc).Triplets
}

// Outdated implements arigraph.Outdater with RuleOutdated.
func (Roles) Outdated(_ context.Context, existing, fresh []arigraph.Triplet) ([]arigraph.Replacement, error) {
	return RuleOutdated(existing, fresh), nil
}

// Decide implements arigraph.Offline with Decider.
func (Roles) Decide(style envbridge.Style, wm arigraph.WorkingMemory, tried map[string]int, rng *rand.Rand) (reason, action string) {
	return Decider{}.Decide(style, wm, tried, rng)
}

// GoalQueries implements arigraph.Offline: the object, receptacle and lamp
// of a household goal (empty ones are dropped by the caller).
func (Roles) GoalQueries(goal string) []string {
	if g, ok := hhtext.ParseGoal(goal); ok {
		return []string{g.Object, g.Receptacle, g.Lamp}
	}
	return nil
}
