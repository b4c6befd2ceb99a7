package forget

import (
	"context"
	"strings"

	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// Offline is the rule-based logical checker. It judges a thought invalid when
// the state contradicts what the thought presupposes: opening where nothing
// is closed, taking the target object where it is not, processing or placing
// a target object that is not carried, and so on. It reads the states of the
// offline summariser (summarize.HouseholdState) and the thoughts of the
// offline thinker (thought.HouseholdStrategies); a state or thought it cannot
// read gives no contradiction, so the thought is judged valid. Thoughts that
// are merely useless (checking the inventory) are valid: the check is of
// logic, not of merit (seed 002 Fig. 16).
type Offline struct{}

// rule: a thought is invalid unless the state is one of need (when need is
// set), and invalid when the state is one of deny.
type rule struct {
	need, deny []string
}

var (
	searching = []string{summarize.Searching, summarize.FacingClosed}
	notHeld   = []string{summarize.Searching, summarize.FacingClosed, summarize.TargetHere, summarize.TargetSeen, summarize.CarryOther}
)

// rules judge the offline thinker's strategies (thought.HouseholdStrategies)
// by what they presuppose.
var rules = map[string]rule{
	thought.OpenHere:     {need: []string{summarize.FacingClosed, summarize.DestClosed}},
	thought.TakeHere:     {need: []string{summarize.TargetHere}},
	thought.Return:       {need: []string{summarize.TargetSeen}},
	thought.ToAppliance:  {need: []string{summarize.NeedsPrefix}},
	thought.UseAppliance: {need: []string{summarize.AtAppliance}},
	thought.ToDest:       {deny: notHeld},
	thought.PlaceHere:    {need: []string{summarize.AtDestination, summarize.FirstOfMore}},
	thought.UseLamp:      {need: []string{summarize.AtLamp}},
	thought.FindLamp:     {need: []string{summarize.MustExamine, summarize.AtLamp}},
	thought.Search:       {need: searching},
	thought.CloseHere:    {deny: []string{summarize.FacingClosed, summarize.DestClosed}},
}

// offlineSituations are the states the offline checker can read.
var offlineSituations = []string{
	summarize.Searching, summarize.FacingClosed, summarize.TargetHere, summarize.TargetSeen,
	summarize.CarryOther, summarize.NeedsPrefix, summarize.AtAppliance, summarize.ReadyToPlace,
	summarize.AtDestination, summarize.FirstOfMore, summarize.DestClosed, summarize.MustExamine, summarize.AtLamp,
}

// Check implements Checker.
func (Offline) Check(_ context.Context, state, thought string) (bool, error) {
	if !containsAny(state, offlineSituations) {
		return true, nil
	}
	r, ok := rules[thought]
	if !ok {
		return true, nil
	}
	if r.need != nil && !containsAny(state, r.need) {
		return false, nil
	}
	return !containsAny(state, r.deny), nil
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
