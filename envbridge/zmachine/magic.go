package zmachine

import (
	"slices"
	"strings"
)

// Magic words: a command of one word that changed the world once in the
// episode ("plugh" carried the player from Y2 to the building) is tried
// early in every search after, right after the moves: such words work
// in more than one place, and among the dozens of commands without an
// object they would come too late for the budget. The episode keeps the
// latest maxWorked of them.

// maxWorked bounds the one-word commands an episode remembers as worked.
const maxWorked = 8

// noteWorked adds to worked the actions of one word (no move, no answer
// to a question, no meta command) among acts, the latest first.
func noteWorked(worked, acts []string) []string {
	for _, a := range acts {
		if strings.IndexByte(a, ' ') >= 0 || slices.Contains(validMoves, a) || slices.Contains(moveAbbrevs, a) ||
			a == "yes" || a == "no" || metaVerbs[a] || directionWords[a] {
			continue
		}
		if i := slices.Index(worked, a); i >= 0 {
			worked = slices.Delete(worked, i, i+1)
		}
		worked = slices.Insert(worked, 0, a)
		if len(worked) > maxWorked {
			worked = worked[:maxWorked]
		}
	}
	return worked
}
