package kgplan

import (
	"slices"

	"github.com/samem/trainer/pddl"
)

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
	out := []string{Agent}
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
