// Package offline is SAMem's logical checker without a model: rules that
// read the states of the offline summariser (package summarize/offline) and
// the strategies of the offline thinker (package thought/offline). It stands
// in for the LLM checker of package forget in offline runs and tests.
package offline

import (
	"context"
	"strings"

	sumoff "github.com/samem/trainer/summarize/offline"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// Checker is the rule-based logical checker. It judges a thought invalid when
// the state contradicts what the thought presupposes: opening where nothing
// is closed, taking the target object where it is not, processing or placing
// a target object that is not carried, and so on. It reads the states of the
// offline summariser (package summarize/offline) and the thoughts of the
// offline thinker (thought/offline.HouseholdStrategies); a state or thought it cannot
// read gives no contradiction, so the thought is judged valid. Thoughts that
// are merely useless (checking the inventory) are valid: the check is of
// logic, not of merit (seed 002 Fig. 16).
type Checker struct{}

// rule: a thought is invalid unless the state is one of need (when need is
// set), and invalid when the state is one of deny.
type rule struct {
	need, deny []string
}

var (
	searching = []string{sumoff.Searching, sumoff.FacingClosed}
	notHeld   = []string{sumoff.Searching, sumoff.FacingClosed, sumoff.TargetHere, sumoff.TargetSeen, sumoff.CarryOther}
)

// rules judge the offline thinker's strategies (thought/offline.HouseholdStrategies)
// by what they presuppose.
var rules = map[string]rule{
	thoughtoff.OpenHere:     {need: []string{sumoff.FacingClosed, sumoff.DestClosed}},
	thoughtoff.TakeHere:     {need: []string{sumoff.TargetHere}},
	thoughtoff.Return:       {need: []string{sumoff.TargetSeen}},
	thoughtoff.ToAppliance:  {need: []string{sumoff.NeedsPrefix}},
	thoughtoff.UseAppliance: {need: []string{sumoff.AtAppliance}},
	thoughtoff.ToDest:       {deny: notHeld},
	thoughtoff.PlaceHere:    {need: []string{sumoff.AtDestination, sumoff.FirstOfMore}},
	thoughtoff.UseLamp:      {need: []string{sumoff.AtLamp}},
	thoughtoff.FindLamp:     {need: []string{sumoff.MustExamine, sumoff.AtLamp}},
	thoughtoff.Search:       {need: searching},
	thoughtoff.CloseHere:    {deny: []string{sumoff.FacingClosed, sumoff.DestClosed}},
}

// offlineSituations are the states the offline checker can read.
var offlineSituations = []string{
	sumoff.Searching, sumoff.FacingClosed, sumoff.TargetHere, sumoff.TargetSeen,
	sumoff.CarryOther, sumoff.NeedsPrefix, sumoff.AtAppliance, sumoff.ReadyToPlace,
	sumoff.AtDestination, sumoff.FirstOfMore, sumoff.DestClosed, sumoff.MustExamine, sumoff.AtLamp,
}

// Check implements forget.Checker.
func (Checker) Check(_ context.Context, state, thought string) (bool, error) {
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
