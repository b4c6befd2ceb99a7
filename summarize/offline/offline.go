// Package offline is SAMem's summariser without a model: household states
// read from the text by package belief and worded de-indexicalised, one
// sentence per situation; for other styles the first sentences of the
// current observation. It stands in for the LLM summariser of package
// summarize in offline runs and tests.
package offline

import (
	"context"
	"regexp"
	"strings"

	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/summarize"
)

// Situations of the offline summariser's household states. The forgetting
// step's offline checker reads states by these sentences, so they are
// exported. A state names the situation the agent is in with respect to its
// task, de-indexicalised as seed 002 Appendix D.1 asks of the model ("the
// target object", "the final destination"): the same situation in another
// task (another object, another room) gives the same text. Situations that
// call for different strategies use different words, so that their
// embeddings fall well below the 0.85 clustering threshold (a test checks
// this with the offline embedder); where a situation keeps the verb of the
// task (cleaning, heating, cooling) the variants may merge, since one
// strategy serves all three.
const (
	Searching     = "Nothing is held yet, and the target object has not turned up anywhere checked so far."
	FacingClosed  = "Facing a shut receptacle whose inside cannot be seen."
	TargetHere    = "The target object lies right here, within reach."
	TargetSeen    = "The target object was spotted earlier, at another place."
	CarryOther    = "Some other item is in hand instead of the target object."
	NeedsPrefix   = "Carrying the target object, which still needs " // + "heating." ...
	AtAppliance   = "Beside the appliance that can do the required " // + "heating" ...
	ReadyToPlace  = "The carried item is ready; only its delivery to the goal place remains."
	AtDestination = "Arrived at the final destination with the target object in hand."
	// FirstOfMore is AtDestination when the task asks for more target
	// objects than are already placed: the task is part of the situation
	// (seed 002 Eq. 2 and Fig. 12 summarise the task together with the
	// history), and delivering one of two does not end the task, so it is
	// not the situation of a last delivery (sharing one state made its value
	// a mixture that depended on which task type trained last:
	// docs/results/2026-11-24-samem-sweep.md).
	FirstOfMore = "Standing by the goal place with one wanted piece, while the job calls for one more after it."
	DestClosed  = "A shut lid or door still blocks the goal place, while the wanted item is carried."
	MustExamine = "Holding the target object for examination; a light source must be reached."
	AtLamp      = "A lamp stands here while the target object is held for examination."
)

var gerund = map[string]string{"clean": "cleaning", "heat": "heating", "cool": "cooling"}

// householdState renders a belief as an offline state: the one sentence of
// the situation the agent is in. With progress the task's progress is part
// of the situation: at the destination with a target object while the task
// needs more than this one, the state is FirstOfMore rather than
// AtDestination.
func householdState(b *belief.Belief, progress bool) string {
	switch {
	case b.HoldingTarget() && b.NeedsProcessing() && b.AtAppliance():
		return AtAppliance + gerund[b.Process()] + ", with the target object carried."
	case b.HoldingTarget() && b.NeedsProcessing():
		return NeedsPrefix + gerund[b.Process()] + " at an appliance somewhere else."
	case b.HoldingTarget() && b.Goal.Lamp != "" && b.Lamp() != "":
		return AtLamp
	case b.HoldingTarget() && b.Goal.Lamp != "":
		return MustExamine
	case b.HoldingTarget() && b.AtDestination() && b.AtClosed():
		return DestClosed
	case progress && b.HoldingTarget() && b.AtDestination() && len(b.Placed)+1 < b.Goal.Count:
		return FirstOfMore
	case b.HoldingTarget() && b.AtDestination():
		return AtDestination
	case b.HoldingTarget():
		return ReadyToPlace
	case b.Holding != "":
		return CarryOther
	case b.TargetHere() != "":
		return TargetHere
	case b.TargetSeenAt() != "":
		return TargetSeen
	case b.AtClosed():
		return FacingClosed
	default:
		return Searching
	}
}

// Summarizer is the rule-based summariser: household states from a belief
// built from the text, and for other styles the current observation reduced
// to its first sentences (Jericho-style summarising of the current
// observation only, seed 002 Appendix A).
type Summarizer struct {
	// TaskProgress adds the task's progress to household states
	// (householdState with progress): off by default; see FirstOfMore.
	TaskProgress bool
}

// Begin implements Summarizer.
func (o Summarizer) Begin(t envbridge.Task, style envbridge.Style) summarize.Session {
	if style == envbridge.StyleHousehold {
		return &householdSession{b: belief.New(t.Goal), progress: o.TaskProgress}
	}
	return textSession{}
}

type householdSession struct {
	b        *belief.Belief
	progress bool
}

func (s *householdSession) Summarize(_ context.Context, action string, obs envbridge.Observation) (string, error) {
	s.b.Observe(action, obs.Text)
	return householdState(s.b, s.progress), nil
}

type textSession struct{}

// notice matches score notices and status clutter that carry no situation.
var notice = regexp.MustCompile(`\[[^\]]*\]|\*\*\*[^*]*\*\*\*|>`)

// maxSentences is how many sentences the offline summary of free text keeps
// (the Jericho prompt asks for at most three, Fig. 12).
const maxSentences = 3

func (textSession) Summarize(_ context.Context, _ string, obs envbridge.Observation) (string, error) {
	t := fold(notice.ReplaceAllString(obs.Text, " "))
	if t == "" {
		// A game that words everything in brackets ("[!: Verb error. ...]",
		// 9:05): the words inside them are the situation.
		t = fold(strings.NewReplacer("[", " ", "]", " ", "*", " ", ">", " ").Replace(obs.Text))
	}
	if t == "" {
		return "", summarize.ErrEmptySummary
	}
	return summarize.Clip(firstSentences(t, maxSentences), summarize.MaxStateLen), nil
}

// firstSentences keeps the first n sentences of s.
func firstSentences(s string, n int) string {
	count := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c == '.' || c == '!' || c == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			count++
			if count == n {
				return s[:i+1]
			}
		}
	}
	return s
}

// fold collapses runs of white space into single spaces.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }
