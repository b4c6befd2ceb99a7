package offline

import (
	"fmt"

	"github.com/samem/trainer/envbridge/household/hhtext"
	"github.com/samem/trainer/kgplan"
	"github.com/samem/trainer/pddl"
)

// goalRule is the offline :goal writer for the six household goal templates
// (seed 003 Sec. IV-C step 3, with a rule standing in for the LLM). Goals
// are existential over instances of the named types, as the game checks them:
// any object of the type, in any receptacle of the type.
func goalRule(dom *pddl.Domain, text string) (pddl.Condition, hhtext.Goal, error) {
	g, ok := hhtext.ParseGoal(text)
	if !ok {
		return pddl.Condition{}, g, fmt.Errorf("goal %q: no household template matches", text)
	}
	for _, t := range []string{g.Object, g.Receptacle, g.Lamp} {
		if t != "" && !dom.HasType(t) {
			return pddl.Condition{}, g, fmt.Errorf("goal %q: %w: type %s", text, pddl.ErrUndefined, t)
		}
	}
	lit := func(neg bool, pred string, args ...string) pddl.Literal {
		return pddl.Literal{Atom: pddl.Atom{Pred: pred, Args: args}, Neg: neg}
	}
	c := pddl.Condition{Vars: []pddl.Param{{Name: "?o", Type: g.Object}}}
	switch g.Type {
	case hhtext.LookInLight:
		// The game also wants the agent beside the lit lamp.
		c.Vars = append(c.Vars, pddl.Param{Name: "?l", Type: g.Lamp}, pddl.Param{Name: "?r", Type: "receptacle"})
		c.Lits = []pddl.Literal{lit(false, "holding", kgplan.Agent, "?o"), lit(false, "toggled", "?l"),
			lit(false, "in", "?l", "?r"), lit(false, "at", kgplan.Agent, "?r")}
		return c, g, nil
	case hhtext.PickTwo:
		c.Vars = append(c.Vars, pddl.Param{Name: "?p", Type: g.Object}, pddl.Param{Name: "?r", Type: g.Receptacle})
		c.Lits = []pddl.Literal{lit(false, "in", "?o", "?r"), lit(false, "in", "?p", "?r"), lit(true, "=", "?o", "?p")}
		return c, g, nil
	}
	c.Vars = append(c.Vars, pddl.Param{Name: "?r", Type: g.Receptacle})
	c.Lits = []pddl.Literal{lit(false, "in", "?o", "?r")}
	switch g.Type {
	case hhtext.PickClean:
		c.Lits = append(c.Lits, lit(false, "clean", "?o"))
	case hhtext.PickHeat:
		c.Lits = append(c.Lits, lit(false, "hot", "?o"))
	case hhtext.PickCool:
		c.Lits = append(c.Lits, lit(false, "cool", "?o"))
	}
	return c, g, nil
}
