package forget

import (
	"context"
	"strings"

	"github.com/samem/trainer/summarize"
)

// Offline is the rule-based logical checker. It judges a thought invalid when
// the state contradicts what the thought presupposes: opening where nothing
// is closed, taking the target object where it is not, processing or placing
// a target object that is not carried, and so on. It reads states written by
// the offline summariser (summarize.HouseholdState); a state it cannot read
// gives no contradiction, so the thought is judged valid.
type Offline struct{}

// rule: a thought containing any of when is invalid unless the state holds
// every phrase of need, and invalid if the state holds any phrase of deny.
type rule struct {
	when, need, deny []string
}

var rules = []rule{
	{when: []string{"open the closed receptacle"}, need: []string{summarize.FacingClosed}},
	{when: []string{"take the target object"}, need: []string{summarize.TargetHere}},
	{when: []string{"where the target object was seen"}, need: []string{summarize.TargetSeen}},
	{when: []string{"go to the appliance"}, need: []string{summarize.NeedsPrefix}},
	{when: []string{"use the appliance here"}, need: []string{summarize.AtAppliance}},
	{when: []string{"carry the target object"}, deny: []string{summarize.Searching, summarize.FacingClosed, summarize.TargetHere, summarize.TargetSeen, summarize.CarryOther}},
	{when: []string{"place the carried target object"}, need: []string{summarize.AtDestination}},
	{when: []string{"turn on the light source"}, need: []string{summarize.AtLamp}},
	{when: []string{"search for the target object"}, deny: []string{summarize.TargetHere, summarize.ReadyToPlace, summarize.AtDestination, summarize.AtLamp, summarize.MustExamine}},
	{when: []string{"close the receptacle"}, deny: []string{summarize.FacingClosed}},
}

// offlineSituations are the states the offline checker can read.
var offlineSituations = []string{
	summarize.Searching, summarize.FacingClosed, summarize.TargetHere, summarize.TargetSeen,
	summarize.CarryOther, summarize.NeedsPrefix, summarize.AtAppliance, summarize.ReadyToPlace,
	summarize.AtDestination, summarize.MustExamine, summarize.AtLamp,
}

// Check implements Checker.
func (Offline) Check(_ context.Context, state, thought string) (bool, error) {
	if !containsAny(state, offlineSituations) {
		return true, nil
	}
	th := strings.ToLower(thought)
	for _, r := range rules {
		if !containsAny(th, r.when) {
			continue
		}
		for _, p := range r.need {
			if !strings.Contains(state, p) {
				return false, nil
			}
		}
		if containsAny(state, r.deny) {
			return false, nil
		}
	}
	return true, nil
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
