package zmachine

// All of a kind: where two or more things carried (or in view) share a
// plural the parser knows them by (Spellbreaker's cubes are "cube" and
// "cubes" each), "drop all cubes" drops those and keeps the rest, a world
// neither "drop all" nor any one drop reaches; "take all cubes" alike.

// pluralCandidates adds "drop all P" for a plural P two or more carried
// things share and "take all P" for one two or more things in view not
// carried share.
func (e *Env) pluralCandidates(dict *dictionary, near, carried []string, ids map[string]int, add func(string)) {
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
