package belief

// Situations of a household task read from the text, in the order a task
// goes through them: the vocabulary in which offline roles write rules
// ("When <situation>: <thought>") and workflow steps.
const (
	SitSearchClosed = "the target object has not been found and the receptacle here is closed"
	SitSearch       = "the target object has not been found yet"
	SitSeen         = "the target object was seen elsewhere and nothing is carried"
	SitHere         = "the target object is here and nothing is carried"
	SitAtAppliance  = "carrying the target object that still needs cleaning, heating or cooling, at the right appliance"
	SitProcess      = "carrying the target object that still needs cleaning, heating or cooling"
	SitLampHere     = "holding the target object in a task that needs light, with a light source here"
	SitLamp         = "holding the target object in a task that needs light"
	SitDestClosed   = "carrying the target object at a closed destination"
	SitDest         = "carrying the target object at the destination"
	SitCarry        = "carrying the target object away from the destination"
	SitOther        = "carrying something that is not the target object"
)

// Situations lists the situations in task order.
var Situations = []string{SitSearchClosed, SitSearch, SitSeen, SitHere, SitAtAppliance, SitProcess, SitLampHere, SitLamp, SitDestClosed, SitDest, SitCarry, SitOther}

// Situation is the situation b describes; "" when the goal is not one of
// the household templates.
func (b *Belief) Situation() string {
	if !b.GoalOK {
		return ""
	}
	switch {
	case b.HoldingTarget() && b.NeedsProcessing() && b.AtAppliance():
		return SitAtAppliance
	case b.HoldingTarget() && b.NeedsProcessing():
		return SitProcess
	case b.HoldingTarget() && b.Goal.Lamp != "" && !b.LampOn && b.Lamp() != "":
		return SitLampHere
	case b.HoldingTarget() && b.Goal.Lamp != "" && !b.LampOn:
		return SitLamp
	case b.HoldingTarget() && b.AtDestination() && b.AtClosed():
		return SitDestClosed
	case b.HoldingTarget() && b.AtDestination():
		return SitDest
	case b.HoldingTarget():
		return SitCarry
	case b.Holding != "":
		return SitOther
	case b.TargetHere() != "":
		return SitHere
	case b.TargetSeenAt() != "":
		return SitSeen
	case b.AtClosed():
		return SitSearchClosed
	}
	return SitSearch
}
