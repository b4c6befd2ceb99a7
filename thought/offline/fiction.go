package offline

import (
	"context"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/samem/trainer/thought"
)

// fictionStrategies is the offline thinker's library for interactive
// fiction, where there is no admissible list and actions are free-form
// (the action vocabulary of seed 002 Fig. 15).
var fictionStrategies = []string{
	"Explore: move in a direction not tried yet from here.",
	"Take an object that is mentioned here.",
	"Examine something mentioned here more closely.",
	"Open a door or container that is mentioned here.",
	"Read any note, sign or book that is here.",
	"Check the inventory.",
	"Look around to recall the surroundings.",
}

var directions = []string{"north", "south", "east", "west", "up", "down", "northeast", "northwest", "southeast", "southwest"}

// nounAfter finds nouns the text introduces: "a key", "the locker".
var nounAfter = regexp.MustCompile(`(?i)\b(?:a|an|the|some)\s+([a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)`)

type fictionSession struct {
	rng   *rand.Rand
	tried map[string]int // actions taken, by count
}

func (s *fictionSession) Think(_ context.Context, in thought.Input) (thought.Decision, error) {
	i := pick(fictionStrategies, in.Guide, s.rng)
	text := strings.ToLower(in.Obs.Text)
	var act string
	switch i {
	case 0:
		act = s.leastTried(mentionedDirections(text), directions)
	case 1:
		act = s.verbNoun("take", text)
	case 2:
		act = s.verbNoun("examine", text)
	case 3:
		act = s.verbNoun("open", text)
	case 4:
		act = s.verbNoun("read", text)
	case 5:
		act = "inventory"
	default:
		act = "look"
	}
	s.tried[act]++
	return thought.Decision{Thought: fictionStrategies[i], Action: act, Matched: true}, nil
}

func (s *fictionSession) verbNoun(verb, text string) string {
	var cands []string
	for _, m := range nounAfter.FindAllStringSubmatch(text, 40) {
		w := strings.Fields(m[1])
		cands = append(cands, verb+" "+w[len(w)-1])
	}
	if len(cands) == 0 {
		return "look"
	}
	return s.leastTried(cands, nil)
}

// leastTried returns the candidate tried least often (ties by order);
// falling back to the second list when the first is empty.
func (s *fictionSession) leastTried(cands, fallback []string) string {
	if len(cands) == 0 {
		cands = fallback
	}
	best := ""
	for _, c := range cands {
		if best == "" || s.tried[c] < s.tried[best] {
			best = c
		}
	}
	if best == "" {
		return "look"
	}
	return best
}

func mentionedDirections(text string) []string {
	var out []string
	for _, d := range directions {
		if strings.Contains(text, d) {
			out = append(out, d)
		}
	}
	return out
}

// FictionStrategies is the offline thinker's library for interactive
// fiction (a copy), for offline roles that read these thoughts back.
func FictionStrategies() []string { return slices.Clone(fictionStrategies) }
