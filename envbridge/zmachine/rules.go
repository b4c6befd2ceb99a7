package zmachine

// Inform 6's library (releases 6/1 to 6/11) runs a command's action
// through the game's before rules (the react_before of the things in
// scope, the room's before, the noun's before) and then its own routine,
// which for some actions only prints ("Nothing obvious happens.", "It is
// fixed in place.", "You find nothing of interest."): such a command about
// a thing that no before rule catches changes nothing, as "wait" does, and
// costs a turn of the search's budget. It is not tried.

// The library's common properties (linklpa.h): before is declared first
// after the compiler's own three (4), react_before after the exits and
// the door's properties (26), description after the messages (35).
const (
	propBefore      = 4
	propReactBefore = 26
	propDescription = 35
)

// inertVerbs are the templates' verbs whose library action changes
// nothing on a thing that is not a character: Push, Pull, Turn, Climb,
// Burn, Tie, Drink, Search, Examine ("read"), Smell, Listen, Touch, Rub,
// Squeeze, Wave, Blow, Attack.
var inertVerbs = map[string]bool{
	"push": true, "pull": true, "turn": true, "climb": true, "climb up": true, "climb over": true,
	"light": true, "burn": true, "tie": true, "drink": true, "search": true, "read": true,
	"smell": true, "listen to": true, "touch": true, "rub": true, "squeeze": true,
	"wave": true, "blow": true, "attack": true, "kill": true, "break": true,
}

// informProps reports a game whose objects' common properties are numbered
// as the 6/x library's: Inform's "name" property holds the objects' words
// and most objects named so have a description where linklpa.h puts it.
func (g *vmGame) informProps() bool {
	if g.propsKnown {
		return g.props
	}
	g.propsKnown = true
	if !g.dictionary().inform || g.nameFacts().prop != 1 {
		return false
	}
	named, described := 0, 0
	for id := 1; id <= g.m.NumObjects(); id++ {
		if g.m.Property(id, 1) == nil {
			continue
		}
		named++
		if g.m.Property(id, propDescription) != nil {
			described++
		}
	}
	g.props = named >= minNameObjects && 2*described >= named
	return g.props
}

// hasRoutine reports object id's property p set to something (NULL, 0
// and an absent property are nothing).
func (g *vmGame) hasRoutine(id, p int) bool {
	b := g.m.Property(id, p)
	for _, c := range b {
		if c != 0 && c != 0xff {
			return true
		}
	}
	return false
}

// inertHere is, where no thing in view (ids) of world w reacts before, a
// test of a command that changes nothing: its verb is inert and its thing
// (no character) has no before rule. Nil (nothing known) where something
// reacts before or the game's properties are not the library's. The
// room's before is not looked at: it mostly catches the moves and a verb
// or two of its own, and looking at it loses more of the gain (Gold's
// sitting room has one) than it keeps (a Deephome room's before searches
// the valuables).
func (g *vmGame) inertHere(w World, ids map[string]int) func(id int, verb string, attrs []int, l *attrLayout) bool {
	if !g.informProps() {
		return nil
	}
	for _, id := range ids {
		if g.hasRoutine(id, propReactBefore) {
			return nil
		}
	}
	return func(id int, verb string, attrs []int, l *attrLayout) bool {
		if !inertVerbs[verb] || g.hasRoutine(id, propBefore) {
			return false
		}
		for _, a := range attrs {
			if a == l.animate {
				return false // life catches these
			}
		}
		return true
	}
}
