package zmachine

import (
	"slices"
	"strings"
)

// repeatCandidate adds the command played last, as it was written, when
// it is no meta command and no move (the moves are candidates already,
// "nw" is "northwest"): a player most often plays a command that worked
// again at once ("blow whistle" twice for a cab, "paddle west" three
// times up the river, "press black" twice).
func (e *Env) repeatCandidate(add func(c string)) {
	c := strings.Join(strings.Fields(strings.ToLower(e.lastAction)), " ")
	if c == "" || metaVerbs[strings.Fields(c)[0]] || slices.Contains(validMoves, NormalizeCommand(c)) {
		return
	}
	add(c)
}
