package zmachine

import (
	"slices"
	"strings"
)

// moveState is what a refused move is remembered by where the search is
// starved (Inform 7 games, some 25 candidates a search, of which the
// twelve moves would be half): the room, what holds the player, and the
// doors and characters in the room with their attributes. A move refused
// there ("Grunk only see way to go back south from here.") is refused again
// while these are as they were, and is tried after the other candidates;
// a door opened or unlocked, a character come or gone, the player got
// off a chair, and the move is back in its place. "" where the attributes
// do not follow the Inform library's order (the doors are unknown) or the
// search is not starved: there the moves come first.
func (e *Env) moveState(w World, layout *attrLayout) string {
	if layout == nil || !e.starved() || w.Location == 0 {
		return ""
	}
	h := newStateHash()
	h.put(w.Location)
	if p, ok := w.Object(w.Player); ok {
		h.put(p.Parent)
	}
	for _, o := range w.Objects {
		if o.Parent != w.Location || o.ID == w.Player {
			continue
		}
		if !slices.Contains(o.Attrs, layout.door) && !slices.Contains(o.Attrs, layout.animate) {
			continue
		}
		h.thing(o)
	}
	return "|move#" + h.String()
}

// toolVerbs are the verbs whose refusal most often says that a thing is
// missing rather than that the verb does nothing to its object ("You
// need something to open it with", a lantern lit with the match the
// player does not hold yet, a drawer unlocked with the key found later).
var toolVerbs = map[string]bool{"open": true, "unlock": true, "light": true, "burn": true, "cut": true,
	"dig": true, "fill": true, "break": true}

// toolVerb reports a command with one of the toolVerbs.
func toolVerb(c string) bool {
	v, _, _ := strings.Cut(c, " ")
	return toolVerbs[v]
}

// maxRetried bounds the toolVerb refusals tried again per search (the
// most salient things first): a verb refused for want of a tool is
// refused so for every thing ("You don't have a match."), and each is a
// turn.
const maxRetried = 12

// heldMark ends the refusal key of a toolVerb command: such a refusal
// is remembered with the things the player carried then (Env.refusedHeld).
const heldMark = "|held"

// heldIDs appends to dst the object numbers of the things held, in order.
func heldIDs(dst []int, held []string, ids map[string]int) []int {
	for _, h := range held {
		if id, ok := ids[h]; ok {
			dst = append(dst, id)
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// gained reports a thing in now (in order) that was not in before: a
// toolVerb command refused before is tried early again (right after the
// takes and drops), as what it lacked may be the thing now carried.
func gained(now, before []int) bool {
	for _, id := range now {
		if _, found := slices.BinarySearch(before, id); !found {
			return true
		}
	}
	return false
}
