package kgplan

import (
	"fmt"
	"slices"

	"github.com/samem/trainer/envbridge/household/hhtext"
	"github.com/samem/trainer/pddl"
)

// GoalRule is the offline :goal writer for the six household goal templates
// (seed 003 Sec. IV-C step 3, with a rule standing in for the LLM). Goals
// are existential over instances of the named types, as the game checks them:
// any object of the type, in any receptacle of the type.
func GoalRule(dom *pddl.Domain, text string) (pddl.Condition, hhtext.Goal, error) {
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
		c.Lits = []pddl.Literal{lit(false, "holding", agentName, "?o"), lit(false, "toggled", "?l"),
			lit(false, "in", "?l", "?r"), lit(false, "at", agentName, "?r")}
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

// goalTypes returns the types a goal condition quantifies over or names,
// plus the appliances its predicates need, so that retrieval starts from
// every entity that can take part in a plan.
func goalTypes(c pddl.Condition) []string {
	var ts []string
	for _, v := range c.Vars {
		if v.Type == "receptacle" {
			continue // too broad: the lamp's receptacle is reached from the lamp
		}
		ts = append(ts, v.Type)
	}
	for _, l := range c.Lits {
		switch l.Pred {
		case "clean":
			ts = append(ts, "sinkbasin")
		case "hot":
			ts = append(ts, "microwave")
		case "cool":
			ts = append(ts, "fridge")
		}
	}
	return ts
}

// RelevantEntities is the offline entity selector (seed 003 Sec. IV-A): the
// agent, every known entity of a type the goal needs, and every entity the
// goal names.
func RelevantEntities(g *Graph, c pddl.Condition) []string {
	types := goalTypes(c)
	out := []string{agentName}
	for _, e := range g.Entities() {
		for _, t := range types {
			if g.dom.IsA(e.Type, t) && !slices.Contains(out, e.Name) {
				out = append(out, e.Name)
			}
		}
	}
	for _, l := range c.Lits {
		for _, a := range l.Args {
			if n := FromPDDL(a); a[0] != '?' && !slices.Contains(out, n) {
				if _, ok := g.TypeOf(n); ok {
					out = append(out, n)
				}
			}
		}
	}
	return out
}
