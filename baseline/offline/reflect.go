package offline

import (
	"strings"

	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/envbridge/household/hhtext"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// Lessons of the offline reflection. Each names the first stage of a
// household task that a failed trial never reached, de-indexicalised (the
// target object, the final destination), so that it carries over to other
// tasks; the offline actor recognises them by these texts.
const (
	lessonFind    = "The target object was never found: go through the receptacles not checked yet, opening the closed ones, before anything else."
	lessonTake    = "The target object was seen but never picked up: take it as soon as it is within reach, or go back to where it was seen."
	lessonProcess = "The target object was carried but never cleaned, heated or cooled as the task asked: bring it to the right appliance and use it there before delivering it."
	lessonLamp    = "The target object was held but no light source was switched on: find a lamp and use it while holding the object."
	lessonDeliver = "The target object was ready but never brought to the final destination: carry it there."
	lessonPlace   = "The target object reached the final destination but was never put down there: place it there, opening the destination first if it is closed."
	lessonSecond  = "Only one of the two target objects was put in place: look for the second one and deliver it as well."
)

var stageLessons = []string{lessonFind, lessonTake, lessonProcess, lessonLamp, lessonDeliver, lessonPlace, lessonSecond}

// classPhrases names action classes in the offline reflection.
var classPhrases = map[string]string{
	classInventory: "Checking the inventory",
	classLook:      "Looking around",
	classExamine:   "Examining things",
	classGo:        "Walking to the same places",
	classOpen:      "Opening things",
	classClose:     "Closing receptacles",
	classTake:      "Trying to take things",
	classPlace:     "Trying to put things down",
	classProcess:   "Trying to clean, heat or cool things",
	classUse:       "Using devices",
	classOther:     "Trying unusual actions",
}

// repeatSuffix ends the repeat lesson of the offline reflection.
const repeatSuffix = " was repeated without any effect: do not spend steps on it."

// minRepeats is how many actions of one class must have had no effect
// before the offline reflection names the class ("repeated").
const minRepeats = 2

// offlineReflection is the rule-based reflection on a failed trial: the
// first stage of the task never reached (household), and the class of
// actions most often taken without effect, if any was repeated. It is ""
// when neither applies.
func offlineReflection(t *tracker) string {
	var parts []string
	if t.b != nil && t.b.GoalOK {
		if l := stageLesson(t); l != "" {
			parts = append(parts, l)
		}
	}
	best, n := "", 0
	for _, c := range classOrder {
		if k := t.noEffect[c]; k > n {
			best, n = c, k
		}
	}
	if n >= minRepeats {
		parts = append(parts, classPhrases[best]+repeatSuffix)
	}
	return strings.Join(parts, " ")
}

// classOrder fixes the tie-break among classes (map order is random).
var classOrder = []string{classInventory, classLook, classExamine, classClose, classOpen, classGo, classTake, classPlace, classProcess, classUse, classOther}

func stageLesson(t *tracker) string {
	g := t.b.Goal
	switch {
	case !t.found:
		return lessonFind
	case !t.held:
		return lessonTake
	case g.Type == hhtext.LookInLight:
		if !t.lamp {
			return lessonLamp
		}
		return ""
	case !t.processed:
		return lessonProcess
	case !t.atDest:
		return lessonDeliver
	case t.placed == 0:
		return lessonPlace
	case t.placed < g.Count:
		return lessonSecond
	}
	return ""
}

// lessons is what the offline actor reads from reflections: the stage
// lessons they contain and the action classes they say to avoid.
type lessons struct {
	stage map[string]bool
	avoid map[string]bool
}

func readLessons(reflections []string) lessons {
	l := lessons{stage: map[string]bool{}, avoid: map[string]bool{}}
	for _, r := range reflections {
		for _, s := range stageLessons {
			if strings.Contains(r, s) {
				l.stage[s] = true
			}
		}
		for c, p := range classPhrases {
			if strings.Contains(r, p+repeatSuffix) {
				l.avoid[c] = true
			}
		}
	}
	return l
}

// guide is the strategy thought of package thought that the stage lessons
// call for in the situation b describes, or "" when none does. The offline
// thinker follows a guide only where its strategy applies.
func (l lessons) guide(b *belief.Belief) string {
	second := l.stage[lessonSecond] && len(b.Placed) > 0
	switch {
	case b.HoldingTarget() && b.NeedsProcessing():
		if l.stage[lessonProcess] {
			if b.AtAppliance() {
				return thoughtoff.UseAppliance
			}
			return thoughtoff.ToAppliance
		}
	case b.HoldingTarget() && b.Goal.Lamp != "":
		if l.stage[lessonLamp] {
			if b.Lamp() != "" {
				return thoughtoff.UseLamp
			}
			return thoughtoff.FindLamp
		}
	case b.HoldingTarget() && b.AtDestination():
		if l.stage[lessonPlace] {
			if b.AtClosed() {
				return thoughtoff.OpenHere
			}
			return thoughtoff.PlaceHere
		}
	case b.HoldingTarget():
		if l.stage[lessonDeliver] {
			return thoughtoff.ToDest
		}
	case b.Holding != "":
	case b.TargetHere() != "":
		if l.stage[lessonTake] || second {
			return thoughtoff.TakeHere
		}
	case b.TargetSeenAt() != "":
		if l.stage[lessonTake] || second {
			return thoughtoff.Return
		}
	default:
		if l.stage[lessonFind] || second {
			if b.AtClosed() {
				return thoughtoff.OpenHere
			}
			return thoughtoff.Search
		}
	}
	return ""
}
