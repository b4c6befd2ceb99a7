package household

import (
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

var (
	_ envbridge.ActionChecker = (*Env)(nil)
	_ envbridge.Progresser    = (*Env)(nil)
)

// Accepts reports whether the world would carry out action now: it is in
// the admissible list after normalising case, spacing and the place
// action's form (what Step does). Anything else is answered "Nothing
// happens.".
func (e *Env) Accepts(action string) bool {
	return e.sp != nil && !e.over && e.find(action) >= 0
}

// subgoals is what an episode has reached of its task, in order: the goal's
// object found (seen in a receptacle, or taken), taken, processed (cleaned,
// heated, cooled, or the lamp turned on while holding it; only the types
// that need it), and placed in a destination (PickTwo: two objects). Each
// is kept once reached.
type subgoals struct {
	found, taken, processed bool
	placed                  []bool // per object: placed, processed if need be, in a destination
	won                     bool
}

// needsProcess reports whether the task type has a processing subgoal.
func needsProcess(typ string) bool {
	switch typ {
	case hhtext.PickClean, hhtext.PickHeat, hhtext.PickCool, hhtext.LookInLight:
		return true
	}
	return false
}

// processedObj reports whether object o has the state the goal asks for.
func (e *Env) processedObj(o int) bool {
	switch e.sp.goal.Type {
	case hhtext.PickClean:
		return e.clean[o]
	case hhtext.PickHeat:
		return e.hot[o]
	case hhtext.PickCool:
		return e.cold[o]
	}
	return true
}

// noteSeen marks the goal found when receptacle r, now shown, holds an
// object of the goal's type.
func (e *Env) noteSeen(r int) {
	for o, at := range e.loc {
		if int(at) == r && e.sp.goalObj[o] {
			e.sub.found = true
			return
		}
	}
}

// noteApplied updates the subgoals after op p was carried out.
func (e *Env) noteApplied(p op) {
	sp := e.sp
	switch p.verb {
	case VerbTake:
		if sp.goalObj[p.o] {
			e.sub.found, e.sub.taken = true, true
		}
	case VerbClean, VerbHeat, VerbCool:
		if sp.goalObj[p.o] && e.processedObj(p.o) {
			e.sub.processed = true
		}
	case VerbUse:
		if sp.goal.Type == hhtext.LookInLight && e.held >= 0 && sp.goalObj[e.held] {
			e.sub.processed = true
		}
	case VerbPut:
		if sp.goalObj[p.o] && sp.destRec[p.r] && e.processedObj(p.o) {
			e.sub.placed[p.o] = true
		}
	}
}

// Progress is the share of the task's subgoals reached so far: find, take,
// process (where the type has it), place (PickTwo: place two objects), in
// order; 1 once the goal holds. 0 before any Reset.
func (e *Env) Progress() float64 {
	if e.sp == nil {
		return 0
	}
	if e.sub.won {
		return 1
	}
	typ := e.sp.goal.Type
	var steps []bool
	steps = append(steps, e.sub.found, e.sub.taken)
	if needsProcess(typ) {
		steps = append(steps, e.sub.processed)
	}
	placed := 0
	for _, p := range e.sub.placed {
		if p {
			placed++
		}
	}
	switch typ {
	case hhtext.LookInLight:
		// no placing: the object is looked at under the lamp
	case hhtext.PickTwo:
		steps = append(steps, placed >= 1, placed >= 2)
	default:
		steps = append(steps, placed >= 1)
	}
	n := 0
	for _, s := range steps {
		if !s {
			break
		}
		n++
	}
	return float64(n) / float64(len(steps))
}
