// Package offline is how L3M+P reads the household world's text: the
// rule-based update reader and :goal writer that stand in for the model
// without one (seed 003 Sec. IV-B and IV-C, rules of this project), and the
// reading the agent does itself on every path (what an observation says
// happened, what the goal is about), all with the household parser (package
// hhtext). Pass Text{} as kgplan.Deps.Text.
package offline

import (
	"github.com/samem/trainer/envbridge/household/hhtext"
	"github.com/samem/trainer/kgplan"
	"github.com/samem/trainer/pddl"
)

// Text implements kgplan.Text with the household parser.
type Text struct{}

// Read implements kgplan.Text with the rule-based reader (read).
func (Text) Read(g *kgplan.Graph, obs string) (kgplan.Update, bool) { return read(g, obs) }

// Goal implements kgplan.Text with goalRule.
func (Text) Goal(dom *pddl.Domain, text string) (pddl.Condition, error) {
	c, _, err := goalRule(dom, text)
	return c, err
}

// Event implements kgplan.Text.
func (Text) Event(obs string) kgplan.Event {
	ev := hhtext.ParseObservation(obs)
	e := kgplan.Event{Failed: ev.Kind == hhtext.Nothing, Known: ev.Kind != hhtext.Unknown}
	if ev.Kind == hhtext.Arrive {
		e.Arrived = ev.Target
	}
	return e
}

// GoalObject implements kgplan.Text: the object of a household goal.
func (Text) GoalObject(goal string) string {
	g, _ := hhtext.ParseGoal(goal)
	return g.Object
}
