package zmachine

import (
	"slices"
	"strings"
)

// A command about several objects at once ("get vial, calendar and
// matchbook"): a parser plays each object in turn and goes on past one it
// refuses, so such a command reaches the world of the takes that succeed,
// in its order (a thing taken is made the player's first child: the same
// things taken in another order are another tree). One is made per
// search, one turn: take the things in view, not carried, that the last
// text names, in the order it names them (the things a room's or a
// container's description lists), when it names two or more: the world
// of "take all" only where nothing else in view can be taken.
//
// Measured and left out: dropping the two to four things carried taken
// latest ("drop crown, stamp, zorkmid and ruby" after a trip): the
// walkthroughs drop them in another order than the tree's, so the worlds
// differ, and the turns cost other candidates.

// maxTakeNamed bounds the objects of one command.
const maxTakeNamed = 7

// severalCandidates adds the command about several objects (see above);
// low is the last text, lower-cased.
func (ps *pairScope) severalCandidates(dict *dictionary, low string, add func(string)) {
	if !dict.has("and") {
		return
	}
	var take []string
	for _, o := range ps.near {
		if len(take) >= maxTakeNamed {
			break
		}
		if wordIndex(low, o) < 0 {
			continue
		}
		id, tree := ps.ids[o]
		if !tree || slices.Contains(ps.animate, o) {
			continue
		}
		if ps.layout != nil {
			if ob, _ := ps.w.Object(id); ps.layout.fixture(ob.Attrs) {
				continue
			}
		}
		take = append(take, o)
	}
	if len(take) >= 2 && dict.has("take") {
		add("take " + listOf(take))
	}
}

// listOf writes names as a parser reads a list: "a and b", "a, b and c".
func listOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
