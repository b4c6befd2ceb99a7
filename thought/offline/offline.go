// Package offline is SAMem's thinker without a model: a fixed library of
// de-indexicalised strategy thoughts for the household world (read from its
// text by package belief) and for interactive fiction, each with a rule that
// turns it into an action. It stands in for the LLM thinker of package
// thought in offline runs and tests.
package offline

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/thought"
)

// Strategy is one de-indexicalised thought of the offline thinker's fixed
// library, with the rule that turns it into an action.
type Strategy struct {
	Thought string
	// act returns the action the strategy leads to, or "" when it has none
	// here (the executor then falls back to a harmless action).
	act func(x *executor) string
}

// executor maps a strategy onto one action from what the agent has seen.
type executor struct {
	b   *belief.Belief
	adm []string
	rng *rand.Rand
}

// find is the first admissible action with the given prefix, or "".
func (x *executor) find(prefix string) string {
	for _, a := range x.adm {
		if strings.HasPrefix(a, prefix) {
			return a
		}
	}
	return ""
}

func (x *executor) goTo(recep string) string {
	if recep == "" || recep == x.b.At {
		return ""
	}
	return x.find("go to " + recep)
}

// search goes to a receptacle not yet visited, in room order; once all are
// visited, to a random one other than the current.
func (x *executor) search() string {
	for _, r := range x.b.Unvisited() {
		if a := x.goTo(r); a != "" {
			return a
		}
	}
	var gos []string
	for _, a := range x.adm {
		if strings.HasPrefix(a, "go to ") && a != "go to "+x.b.At {
			gos = append(gos, a)
		}
	}
	if len(gos) == 0 {
		return ""
	}
	return gos[x.rng.IntN(len(gos))]
}

// The household strategy thoughts. They are worded so that no two fall into
// one thought cluster at the 0.85 threshold with the offline embedder (a test
// checks it), since SAMem stores and retrieves thoughts by cluster. The
// forgetting step's offline checker judges them by these texts.
const (
	Search       = "Search for the target object: go to a receptacle that has not been checked yet."
	Return       = "Return to the spot where the wanted item was noticed before."
	OpenHere     = "Open the closed receptacle here to see what is inside."
	TakeHere     = "Take the target object from the receptacle here."
	ToAppliance  = "Head for the appliance that can clean, heat or cool it, as the task requires."
	UseAppliance = "Process the carried item with this machine right now."
	ToDest       = "Carry the target object to the final destination."
	PlaceHere    = "Put down what is held into this receptacle, since it is the goal."
	FindLamp     = "Find a light source: walk to where one was seen, or keep looking."
	UseLamp      = "Switch on the lamp here to examine the held object."
	Inventory    = "Check what is being carried."
	lookAround   = "Look around to get one's bearings."
	CloseHere    = "Close the receptacle here."
)

// HouseholdStrategies is the offline thinker's library for household tasks.
// A strategy applies only where its own words hold (placing "since it is
// the goal" only at a destination, carrying "the target object" only when it
// is held), as a model acting on the thought would read it.
// Exploring picks among the strategies that apply at random; a guided step
// follows the given one. Some are useless for every task on purpose
// (checking the inventory, looking around, closing): an unguided agent
// wastes steps on them as a model without memory would, and memory has
// something to learn.
var HouseholdStrategies = []Strategy{
	{Search, func(x *executor) string { return x.search() }},
	{Return, func(x *executor) string { return x.goTo(x.b.TargetSeenAt()) }},
	{OpenHere, func(x *executor) string {
		if x.b.At == "" {
			return ""
		}
		return x.find("open " + x.b.At)
	}},
	{TakeHere, func(x *executor) string {
		t := x.b.TargetHere()
		if t == "" {
			return ""
		}
		return x.find("take " + t + " from ")
	}},
	{ToAppliance, func(x *executor) string {
		if !x.b.HoldingTarget() {
			return "" // "it": the carried target object
		}
		return x.goTo(x.b.FirstOfKind(x.b.Appliance()))
	}},
	{UseAppliance, func(x *executor) string {
		if x.b.Process() == "" || x.b.Holding == "" {
			return ""
		}
		return x.find(x.b.Process() + " " + x.b.Holding + " with ")
	}},
	{ToDest, func(x *executor) string {
		if !x.b.HoldingTarget() {
			return ""
		}
		return x.goTo(x.b.FirstOfKind(x.b.Goal.Receptacle))
	}},
	{PlaceHere, func(x *executor) string {
		if x.b.Holding == "" || !x.b.AtDestination() {
			return "" // "since it is the goal": only at a destination
		}
		if a := x.find("put " + x.b.Holding + " "); a != "" {
			return a
		}
		return x.find("move " + x.b.Holding + " to ")
	}},
	{FindLamp, func(x *executor) string {
		if at := x.b.LampSeenAt(); at != "" {
			return x.goTo(at)
		}
		return x.search()
	}},
	{UseLamp, func(x *executor) string {
		if l := x.b.Lamp(); l != "" && x.b.Holding != "" {
			return x.find("use " + l)
		}
		return ""
	}},
	{Inventory, func(x *executor) string { return x.find("inventory") }},
	{lookAround, func(x *executor) string { return x.find("look") }},
	{CloseHere, func(x *executor) string {
		if x.b.At == "" {
			return ""
		}
		return x.find("close " + x.b.At)
	}},
}

// Thinker is the rule-based thinker: a fixed library of
// de-indexicalised strategy thoughts and an executor that maps a strategy and
// the admissible list onto one action. It sees only the observation text, the
// goal and the admissible actions.
//
// Exploring (no guide) picks a strategy uniformly at random; a guided step
// follows the guide: the library thought equal to it, or else the one sharing
// the most words with it (a guide written by a model).
type Thinker struct{}

// Begin implements Thinker.
func (Thinker) Begin(t envbridge.Task, style envbridge.Style, rng *rand.Rand) thought.Session {
	if rng == nil {
		rng = rand.New(rand.NewPCG(0, 0))
	}
	if style == envbridge.StyleHousehold {
		return &householdSession{b: belief.New(t.Goal), rng: rng}
	}
	return &fictionSession{rng: rng, tried: map[string]int{}}
}

type householdSession struct {
	b    *belief.Belief
	rng  *rand.Rand
	last string // the action of the previous step, to update the belief
	// stale is a guide that was just followed without changing anything the
	// agent knows (checking the inventory, looking around, an action the
	// world ignored). A model shown the unchanged situation would not repeat
	// it; the offline thinker explores instead until something changes.
	stale     string
	lastGuide string
	lastKey   string
}

func (s *householdSession) Think(_ context.Context, in thought.Input) (thought.Decision, error) {
	s.b.Observe(s.last, in.Obs.Text)
	key := s.b.Key()
	if key != s.lastKey {
		s.stale = ""
	} else if s.lastGuide != "" {
		s.stale = s.lastGuide
	}
	s.lastKey = key
	guide := in.Guide
	if guide != "" && guide == s.stale {
		guide = ""
	}
	s.lastGuide = guide
	if in.GuideIsAction && guide != "" {
		// An action-level memory (seed 002 Table 3) hands over an action:
		// it is taken when it can be taken here; otherwise it says nothing
		// about this scene and the thinker explores.
		if slices.Contains(in.Obs.Admissible, guide) {
			s.last = guide
			return thought.Decision{Thought: FollowRemembered, Action: guide, Matched: true}, nil
		}
		guide = ""
	}
	x := &executor{b: s.b, adm: in.Obs.Admissible, rng: s.rng}
	// A strategy applies when its rule yields an action here. Exploring picks
	// uniformly among the strategies that apply, as a model would not propose
	// opening where nothing is closed; a guided step follows the guide when it
	// applies, and explores otherwise.
	acts := make([]string, len(HouseholdStrategies))
	var applicable []int
	for i, st := range HouseholdStrategies {
		if acts[i] = st.act(x); acts[i] != "" {
			applicable = append(applicable, i)
		}
	}
	i := -1
	if guide != "" {
		if g := pick(householdThoughts, guide, s.rng); acts[g] != "" {
			i = g
		}
	}
	if i < 0 && len(applicable) > 0 {
		i = applicable[s.rng.IntN(len(applicable))]
	}
	var act, th string
	if i >= 0 {
		act, th = acts[i], HouseholdStrategies[i].Thought
	} else {
		act, th = fallback(in.Obs.Admissible), lookAround
	}
	s.last = act
	return thought.Decision{Thought: th, Action: act, Matched: true}, nil
}

// FollowRemembered is the offline thinker's thought when it takes an action
// handed over by an action-level memory.
const FollowRemembered = "Repeat the action that worked in this situation before."

// fallback is the harmless action taken when a strategy has no action here.
func fallback(adm []string) string {
	for _, a := range adm {
		if a == "look" {
			return a
		}
	}
	if len(adm) > 0 {
		return adm[0]
	}
	return "look"
}

var householdThoughts = func() []string {
	out := make([]string, len(HouseholdStrategies))
	for i, st := range HouseholdStrategies {
		out[i] = st.Thought
	}
	return out
}()

// pick chooses a thought of lib: the guide's, or uniformly at random.
func pick(lib []string, guide string, rng *rand.Rand) int {
	if guide == "" {
		return rng.IntN(len(lib))
	}
	best, bestScore := 0, -1.0
	gw := words(guide)
	for i, t := range lib {
		if t == guide {
			return i
		}
		if s := overlap(gw, words(t)); s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
		m[w] = true
	}
	return m
}

// overlap is the Jaccard similarity of two word sets.
func overlap(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
