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

// All of a kind: where two or more things carried (or in view) share a
// plural the parser knows them by (Spellbreaker's cubes are "cube" and
// "cubes" each), "drop all cubes" drops those and keeps the rest, a world
// neither "drop all" nor any one drop reaches; "take all cubes" alike.

// allPluralCandidates adds "drop all P" for a plural P two or more carried
// things share and "take all P" for one two or more things in view not
// carried share.
func (e *Env) allPluralCandidates(dict *dictionary, near, carried []string, ids map[string]int, add func(string)) {
	if !dict.has("all") {
		return
	}
	for _, side := range []struct {
		verb  string
		names []string
	}{{"drop", carried}, {"take", near}} {
		if len(side.names) < 2 || !dict.has(side.verb) {
			continue
		}
		count := map[string]int{}
		var order []string
		for _, n := range side.names {
			id, ok := ids[n]
			if !ok {
				continue
			}
			for _, p := range e.vm.pluralsOf(id) {
				if count[p]++; count[p] == 2 {
					order = append(order, p)
				}
			}
		}
		for _, p := range order {
			add(side.verb + " all " + p)
		}
	}
}

// pluralsOf are the words object id is known by that are another of its
// words with "s" or "es" added ("cubes" beside "cube"), as the dictionary
// keeps them.
func (g *vmGame) pluralsOf(id int) []string {
	ws := g.objectWords(id)
	if len(ws) < 2 {
		return nil
	}
	d := g.dictionary()
	keys := make(map[string]bool, len(ws))
	for _, w := range ws {
		keys[d.key(w)] = true
	}
	var out []string
	for _, w := range ws {
		for _, suffix := range []string{"s", "es"} {
			p := d.key(w + suffix)
			if p != d.key(w) && keys[p] && !containsStr(out, fullWord(p, d.res)) {
				out = append(out, fullWord(p, d.res))
			}
		}
	}
	return out
}
