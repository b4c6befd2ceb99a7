package arigraph

import (
	"regexp"
	"strings"

	"github.com/samem/trainer/envbridge"
)

var (
	// fiction: the room's header ("-= Kitchen =-") or a sentence naming it.
	reRoomHeader = regexp.MustCompile(`(?m)^\s*-=\s*(.+?)\s*=-\s*$`)
	reRoomIn     = regexp.MustCompile(`(?i)\b(?:you are in|you find yourself in|you're now in|you are now in|you've entered|you have entered|you arrive in|you arrive at|welcome to|you've just walked into|you've just sauntered into|you're in|we're calling) (?:a |an |the )?([a-z0-9][a-z0-9' -]*?)\s*[.!,;:\n]`)
	// household: the receptacle arrived at, shown, or found closed.
	reHHArrive = regexp.MustCompile(`(?i)you arrive at (?:loc \d+|(?:the )?([a-z0-9 ]+?))\s*\.`)
	reHHOn     = regexp.MustCompile(`(?i)\b(on|in) the ([a-z]+ \d+), you see ([^.]+)\.`)
	reHHClosed = regexp.MustCompile(`(?i)the ([a-z]+ \d+) is (closed|open)\.`)
)

// Locate is the agent's own bookkeeping of where it is, on every path: the
// location an observation names ("" when it names none) and, for a move by
// compass direction that arrived somewhere new, the spatial edge "new, is D
// of, old" (seed 000 Appendix B). The household world names the receptacle
// arrived at, shown or found closed; fiction names the room in a header
// ("-= Kitchen =-") or a sentence ("You are in the kitchen"). action is the
// action that led to text and prevLoc where the agent was before it.
func Locate(style envbridge.Style, text, action, prevLoc string) (loc string, spatial []Triplet) {
	if style == envbridge.StyleHousehold {
		if m := reHHArrive.FindStringSubmatch(text); m != nil && m[1] != "" {
			return NormEntity(m[1]), nil
		}
		if m := reHHOn.FindStringSubmatch(text); m != nil {
			return NormEntity(m[2]), nil
		}
		for _, m := range reHHClosed.FindAllStringSubmatch(text, -1) {
			if strings.EqualFold(m[2], "closed") {
				return NormEntity(m[1]), nil
			}
		}
		return "", nil
	}
	if m := reRoomHeader.FindStringSubmatch(text); m != nil {
		loc = NormEntity(m[1])
	} else if m := reRoomIn.FindStringSubmatch(text); m != nil {
		loc = NormEntity(m[1])
	}
	if d, ok := direction(action); ok && loc != "" && prevLoc != "" && NormEntity(prevLoc) != loc {
		spatial = []Triplet{spatialEdge(loc, d, prevLoc)}
	}
	return loc, spatial
}
