package zmachine

import (
	"slices"
	"strconv"
	"strings"
)

// Numbers written: a game whose grammar writes a thing on a thing
// ("write OBJ on OBJ") may take a number for the first ("write 1 on
// cube": Spellbreaker's cubes are named so). No object of the tree is a
// number, so no template makes it; the number itself is stored outside
// the tree, so any number leads to the world the written word does, but
// a game may refuse one already written: the least number the episode's
// observations have not quoted alone ('The word "1" is now written on
// the cube') is tried on each thing carried, the most salient first.

// maxWrittenOn bounds the carried things a number is written on.
const maxWrittenOn = 8

// writeVerbs are the verbs that write a word on a thing.
var writeVerbs = []string{"write", "inscribe", "scribe", "etch"}

// maxNumbers bounds the quoted numbers an episode remembers.
const maxNumbers = 64

// noteNumbers adds to nums the numbers text quotes alone (between double
// quotes, one to four digits, trailing punctuation dropped), each once,
// at most maxNumbers.
func noteNumbers(nums []int, text string) []int {
	for _, q := range quotedRuns(clip(text)) {
		if len(nums) >= maxNumbers {
			break
		}
		if len(q) == 0 || len(q) > 4 || strings.Trim(q, "0123456789") != "" {
			continue
		}
		if n, err := strconv.Atoi(q); err == nil && !slices.Contains(nums, n) {
			nums = append(nums, n)
		}
	}
	return nums
}

// numberCandidates adds "write N on X" for the things carried, where a
// line of the game's grammar writes one thing on another.
func (e *Env) numberCandidates(carried []string, addAbout func(obj, c string)) {
	if len(carried) == 0 || e.g == nil || e.g.jericho == nil {
		return
	}
	verb := e.vm.writeVerb(e.g.jericho.Grammar)
	if verb == "" {
		return
	}
	n := 1
	for slices.Contains(e.numbers, n) {
		n++
	}
	for _, c := range carried[:min(len(carried), maxWrittenOn)] {
		addAbout(c, verb+" "+strconv.Itoa(n)+" on "+c)
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
