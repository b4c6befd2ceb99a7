package zmachine

import (
	"slices"
	"strings"
)

// Numbers written: a game whose grammar writes a thing on a thing
// ("write OBJ on OBJ") may take a number for the first ("write 1 on
// cube": Spellbreaker's cubes are named so). No object of the tree is a
// number, so no template makes it; the number itself is stored outside
// the tree, so any number leads to the world the written word does: "1"
// is tried on each thing carried, the most salient first.

// maxWrittenOn bounds the carried things a number is written on.
const maxWrittenOn = 8

// writeVerbs are the verbs that write a word on a thing.
var writeVerbs = []string{"write", "inscribe", "scribe", "etch"}

// numberCandidates adds "write 1 on X" for the things carried, where a
// line of the game's grammar writes one thing on another.
func (e *Env) numberCandidates(carried []string, addAbout func(obj, c string)) {
	if len(carried) == 0 || e.g == nil || e.g.jericho == nil {
		return
	}
	verb := e.vm.writeVerb(e.g.jericho.Grammar)
	if verb == "" {
		return
	}
	for _, c := range carried[:min(len(carried), maxWrittenOn)] {
		addAbout(c, verb+" 1 on "+c)
	}
}

// writeVerb is the verb of the grammar's line "write OBJ on OBJ" (or
// inscribe, scribe, etch), "" for none.
func (g *vmGame) writeVerb(grammar string) string {
	for _, line := range strings.Split(grammar, ";") {
		f := strings.Fields(line)
		if len(f) != 4 || f[1] != "OBJ" || f[2] != "on" || f[3] != "OBJ" {
			continue
		}
		alts := strings.Split(strings.ToLower(f[0]), "/")
		for _, v := range writeVerbs {
			if slices.Contains(alts, v) {
				return v
			}
		}
	}
	return ""
}
