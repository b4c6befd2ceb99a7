package zmachine

import "slices"

// Commands about a group by its plural ("get rods from sack", "put rods in
// socket"): where two or more things in view share a name word whose
// plural (the word with an "s") the dictionary holds as a word of its
// own, the parser may read the plural as all of them (a game's own
// parse_name or the library's plural words), one command for what would
// otherwise take a turn per thing, in an order no list of names gives.
// Made per search: the group near the player in one holder taken from it
// (or from the room), and the group carried put into each container or
// fixture in view, at most maxPluralTargets of them.

// maxPluralTargets bounds the things a carried group is put into.
const maxPluralTargets = 4

// pluralCandidates adds the plural commands (see above); words are an
// object's name words.
func (ps *pairScope) pluralCandidates(dict *dictionary, words func(id int) []string, add func(string)) {
	if len(ps.ids) < 2 {
		return
	}
	var plurals []string
	members := map[string][]string{}
	for _, o := range append(slices.Clone(ps.carried), ps.near...) {
		id, tree := ps.ids[o]
		if !tree || slices.Contains(ps.animate, o) {
			continue
		}
		seen := map[string]bool{}
		for _, x := range words(id) {
			if len(x) < 3 || x[len(x)-1] == 's' {
				continue
			}
			p := x + "s"
			if seen[p] || dict.key(p) == dict.key(x) || !dict.has(p) {
				continue
			}
			seen[p] = true
			if _, ok := members[p]; !ok {
				plurals = append(plurals, p)
			}
			members[p] = append(members[p], o)
		}
	}
	held := map[string]bool{}
	for _, c := range ps.carried {
		held[c] = true
	}
	for _, p := range plurals {
		var near, carried []string
		for _, o := range members[p] {
			if held[o] {
				carried = append(carried, o)
			} else if ob, _ := ps.w.Object(ps.ids[o]); ps.layout == nil || !ps.layout.fixture(ob.Attrs) {
				near = append(near, o)
			}
		}
		if len(near) >= 2 && dict.has("take") {
			h := ps.holder[near[0]]
			same := true
			for _, o := range near[1:] {
				same = same && ps.holder[o] == h
			}
			switch {
			case same && h == "":
				add("take " + p)
			case same && dict.has("from"):
				add("take " + p + " from " + h)
			}
		}
		if len(carried) >= 2 && dict.has("put") && dict.has("in") {
			k := 0
			for _, b := range ps.near {
				if k >= maxPluralTargets {
					break
				}
				id, tree := ps.ids[b]
				if !tree || slices.Contains(members[p], b) || slices.Contains(ps.animate, b) || ps.pocketed(b) {
					continue
				}
				if ob, _ := ps.w.Object(id); !ps.fits(b, "in", true) && (ps.layout == nil || !ps.layout.fixture(ob.Attrs)) {
					continue
				}
				add("put " + p + " in " + b)
				k++
			}
		}
	}
}
