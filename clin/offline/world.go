package offline

import (
	"regexp"
	"strings"

	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

// This file de-indexicalises household actions for the offline roles: an
// action such as "heat apple 1 with microwave 1" under the goal "heat some
// apple and put it in countertop" becomes the phrase "heating the target
// object with the microwave", which names roles (the target object, the target
// receptacle, the appliance of the task) instead of instances, so that an
// abstraction learned on one task applies to every task of its type (seed 004
// Sec. 1: insights like "go to desk 1" do not transfer; causal abstractions
// about kinds of actions do). It reads only the goal, the observations and the
// actions, as every offline role must.

// Phrases of the progress milestones that are not actions.
const (
	phraseFind     = "finding the target object"
	phraseComplete = "completing the task"
)

// milestonePhrases are action phrases whose success changes the state of the
// task (taking, transforming, placing the target, turning on the lamp). They
// order each other: "heating the target object with the microwave is
// NECESSARY to putting the target object in the target receptacle".
func isMilestone(p string) bool {
	switch {
	case p == phraseFind, p == phraseComplete:
		return true
	case p == "taking the target object", p == "putting the target object in the target receptacle",
		p == "turning on the lamp":
		return true
	case strings.HasSuffix(p, "the target object with the microwave"),
		strings.HasSuffix(p, "the target object with the fridge"),
		strings.HasSuffix(p, "the target object with the sinkbasin"):
		return true
	}
	return strings.HasPrefix(p, "heating the target object") || strings.HasPrefix(p, "cooling the target object") ||
		strings.HasPrefix(p, "cleaning the target object")
}

// goalInfo is what the goal text asks for, with the appliance its type needs.
type goalInfo struct {
	hhtext.Goal
	ok bool
}

func parseGoal(goal string) goalInfo {
	g, ok := hhtext.ParseGoal(goal)
	return goalInfo{Goal: g, ok: ok}
}

// kindOf is the type of an instance name ("apple 1" -> "apple").
func kindOf(name string) string {
	if k, _, ok := hhtext.SplitName(name); ok {
		return k
	}
	return strings.TrimSpace(name)
}

var (
	reGo      = regexp.MustCompile(`^go to (.+)$`)
	reOpen    = regexp.MustCompile(`^open (.+)$`)
	reClose   = regexp.MustCompile(`^close (.+)$`)
	reTake    = regexp.MustCompile(`^take (.+) from (.+)$`)
	rePut     = regexp.MustCompile(`^(?:put (.+) (?:in/on|in|on)|move (.+) to) (.+)$`)
	reApply   = regexp.MustCompile(`^(heat|cool|clean) (.+) with (.+)$`)
	reUse     = regexp.MustCompile(`^use (.+)$`)
	reExamine = regexp.MustCompile(`^examine (.+)$`)
)

// tracker follows one trial from its text: where the agent is, what it has
// seen and holds, and which phrases it has achieved. Only the offline roles
// use it.
type tracker struct {
	goal     goalInfo
	at       string
	visited  map[string]bool
	closed   map[string]bool
	seen     map[string]string // target instance -> where it was seen (not taken, not placed)
	lamps    map[string]string // lamp instance -> where it was seen
	placed   map[string]bool   // target instances put in the target receptacle
	holding  string
	achieved map[string]bool   // phrases achieved this trial (effective actions and milestones)
	tried    map[string]int    // action -> times taken
	here     map[string]bool   // actions taken since the last arrival
	futile   map[string]int    // phrase -> executions without effect
	moved    map[string]bool   // move phrases made since the last change of the task's state
	noEffect map[string]bool   // action -> its last try changed nothing
	lastObs  map[string]string // action -> observation it last gave
}

func newTracker(goal string) *tracker {
	return &tracker{
		goal:    parseGoal(goal),
		visited: map[string]bool{}, closed: map[string]bool{}, seen: map[string]string{},
		lamps: map[string]string{}, placed: map[string]bool{}, achieved: map[string]bool{},
		tried: map[string]int{}, here: map[string]bool{}, moved: map[string]bool{}, futile: map[string]int{}, noEffect: map[string]bool{}, lastObs: map[string]string{},
	}
}

func (t *tracker) isTarget(name string) bool {
	return t.goal.ok && kindOf(name) == t.goal.Object
}

// phrase de-indexicalises an action in the tracker's current state. Actions
// outside the household grammar are returned normalised, as they are (the
// fiction style: the action is its own abstraction).
func (t *tracker) phrase(action string) string {
	a := clin.NormPhrase(action)
	if !t.goal.ok {
		return a
	}
	g := t.goal
	switch {
	case a == "look":
		return "looking around"
	case a == "inventory":
		return "checking the inventory"
	case reGo.MatchString(a):
		r := reGo.FindStringSubmatch(a)[1]
		k := kindOf(r)
		switch {
		case g.Receptacle != "" && k == g.Receptacle:
			return "going to the target receptacle"
		case t.holding == "" && t.seenAt(r):
			return "going to where the target object was seen"
		case g.Lamp != "" && t.lampAt(r):
			return "going to where the lamp was seen"
		case k == appliance(g.Type) && k != "":
			return "going to the " + k
		case !t.visited[r]:
			return "going to an unvisited receptacle"
		default:
			return "going to a visited receptacle"
		}
	case reOpen.MatchString(a):
		r := reOpen.FindStringSubmatch(a)[1]
		if g.Receptacle != "" && kindOf(r) == g.Receptacle {
			return "opening the target receptacle"
		}
		return "opening a closed receptacle"
	case reClose.MatchString(a):
		return "closing a receptacle"
	case reTake.MatchString(a):
		m := reTake.FindStringSubmatch(a)
		if !t.isTarget(m[1]) {
			return "taking a non-target object"
		}
		if g.Receptacle != "" && kindOf(m[2]) == g.Receptacle {
			return "taking the target object from the target receptacle"
		}
		return "taking the target object"
	case rePut.MatchString(a):
		m := rePut.FindStringSubmatch(a)
		o := m[1] + m[2]
		if t.isTarget(o) && g.Receptacle != "" && kindOf(m[3]) == g.Receptacle {
			return "putting the target object in the target receptacle"
		}
		if t.isTarget(o) {
			return "putting the target object elsewhere"
		}
		return "putting a non-target object somewhere"
	case reApply.MatchString(a):
		m := reApply.FindStringSubmatch(a)
		verb := map[string]string{"heat": "heating", "cool": "cooling", "clean": "cleaning"}[m[1]]
		if t.isTarget(m[2]) {
			return verb + " the target object with the " + kindOf(m[3])
		}
		return verb + " a non-target object"
	case reUse.MatchString(a):
		l := reUse.FindStringSubmatch(a)[1]
		if g.Lamp != "" && kindOf(l) == g.Lamp {
			return "turning on the lamp"
		}
		return "turning on another light"
	case reExamine.MatchString(a):
		if t.isTarget(reExamine.FindStringSubmatch(a)[1]) {
			return "examining the target object"
		}
		return "examining something else"
	}
	return a
}

// appliance is the receptacle type a task type transforms its object with.
func appliance(typ string) string {
	switch typ {
	case hhtext.PickHeat:
		return "microwave"
	case hhtext.PickCool:
		return "fridge"
	case hhtext.PickClean:
		return "sinkbasin"
	}
	return ""
}

func (t *tracker) seenAt(r string) bool {
	for _, loc := range t.seen {
		if loc == r {
			return true
		}
	}
	return false
}

func (t *tracker) lampAt(r string) bool {
	for _, loc := range t.lamps {
		if loc == r {
			return true
		}
	}
	return false
}

// update applies one step and returns the phrase of the action (in the state
// before it) and the progress events it caused: phraseFind on the first
// sighting of a target, the phrase itself for an effective milestone action,
// phraseComplete when the step was rewarded.
func (t *tracker) update(action, obs string, reward float64) (phrase string, events []string) {
	phrase = t.phrase(action)
	a := clin.NormPhrase(action)
	t.tried[a]++
	prev, had := t.lastObs[a]
	t.lastObs[a] = obs
	ev := hhtext.ParseObservation(obs)
	// Without effect: nothing happened, or the same answer as last time
	// (examining or looking again, with nothing changed).
	effective := ev.Kind != hhtext.Nothing && !(had && prev == obs && ev.Kind != hhtext.Arrive)
	t.noEffect[a] = ev.Kind == hhtext.Nothing
	if !effective {
		t.futile[phrase]++
	}
	if ev.Kind == hhtext.Arrive {
		clear(t.here)
	}
	t.here[a] = true
	if ev.Kind == hhtext.Nothing {
		return phrase, nil
	}
	if !t.goal.ok { // no household grammar: progress is reward only
		if effective {
			t.achieved[phrase] = true
		}
		if reward > 0 {
			events = append(events, phraseComplete)
		}
		return phrase, events
	}
	foundBefore := len(t.seen) > 0 || t.achieved[phraseFind]
	switch ev.Kind {
	case hhtext.Arrive:
		t.at = ev.Target
		t.visited[ev.Target] = true
		t.closed[ev.Target] = ev.Closed
	case hhtext.Open:
		t.closed[ev.Target] = false
	case hhtext.Close:
		t.closed[ev.Target] = true
	case hhtext.Take:
		t.holding = ev.Object
		delete(t.seen, ev.Object)
		delete(t.lamps, ev.Object)
	case hhtext.Put:
		t.holding = ""
		if t.isTarget(ev.Object) && kindOf(ev.Target) == t.goal.Receptacle {
			t.placed[ev.Object] = true
			// Two-object tasks: the next object must be found and taken anew.
			delete(t.achieved, "taking the target object")
			if len(t.seen) == 0 {
				delete(t.achieved, phraseFind)
			}
		}
	}
	for _, it := range ev.Items {
		k := kindOf(it)
		if t.isTarget(it) && !t.placed[it] && it != t.holding && kindOf(t.at) != t.goal.Receptacle {
			t.seen[it] = t.at
		}
		if t.goal.Lamp != "" && k == t.goal.Lamp {
			t.lamps[it] = t.at
		}
	}
	if !foundBefore && len(t.seen) > 0 {
		events = append(events, phraseFind)
		t.achieved[phraseFind] = true
	}
	if effective {
		t.achieved[phrase] = true
		// A transformation the goal does not ask for (cooling in a heat
		// task) is no progress, however it went.
		if isMilestone(phrase) && (!isTransform(phrase) || goalNames(t, phrase)) {
			events = append(events, phrase)
		}
	}
	if reward > 0 {
		events = append(events, phraseComplete)
	}
	if len(events) > 0 || ev.Kind == hhtext.Take || ev.Kind == hhtext.Put {
		clear(t.moved)
	}
	if ev.Kind == hhtext.Arrive {
		t.moved[phrase] = true
	}
	return phrase, events
}

// isTransform says whether a phrase heats, cools or cleans the target.
func isTransform(p string) bool {
	return strings.HasPrefix(p, "heating the target object") || strings.HasPrefix(p, "cooling the target object") ||
		strings.HasPrefix(p, "cleaning the target object")
}
