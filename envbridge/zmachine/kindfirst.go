package zmachine

import "strings"

// kindVerbs are the verbs whose one-object commands are tried right after
// the takes and drops, on every thing of their kind in view, where the
// search is starved (an Inform 7 game, some 25 candidates a search): each
// is about the few things of the kind its verb needs (kindOK: clothing
// worn or not, food, a closed container or door, a locked thing, a device
// that is off), so they are few, and they are most of what moves such a
// game on ("open cauldron", "wear robe", "turn on lamp"), while the verbs
// that fit every thing (examine, push, search) would spend the budget on
// the first thing or two in view.
var kindVerbs = []string{"open", "wear", "take off", "eat", "unlock", "turn on"}

// kindFirst adds the commands of the kindVerbs on the things in view that
// fit them (the most salient first; only the things of the object tree,
// whose kinds are known), where the attribute layout is known and the
// last search was starved; else nothing.
func (e *Env) kindFirst(ts []template, inView []string, ids map[string]int, layoutKnown bool, fits func(name, verb string, second bool) bool, addAbout func(obj, c string)) {
	if !layoutKnown || !e.starved() {
		return
	}
	var one []template
	for _, v := range kindVerbs {
		for _, t := range ts {
			if t.objs == 1 && strings.TrimSuffix(t.String(), " OBJ") == v {
				one = append(one, t)
				break
			}
		}
	}
	for _, o := range inView {
		if _, tree := ids[o]; !tree {
			continue // a name from the text: its kind is unknown
		}
		for _, t := range one {
			if fits(o, strings.TrimSuffix(t.String(), " OBJ"), false) {
				addAbout(o, t.fill(o))
			}
		}
	}
}
