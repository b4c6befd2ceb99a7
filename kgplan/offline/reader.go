package offline

import (
	"slices"

	"github.com/samem/trainer/envbridge/household/hhtext"
	"github.com/samem/trainer/kgplan"
	"github.com/samem/trainer/pddl"
)

// openableClasses start closed and must be opened (../shared/ALFWORLD-FACTS.md).
var openableClasses = []string{"fridge", "cabinet", "microwave", "drawer", "safe", "box"}

// entityType picks the PDDL type of an entity the text lists in a given
// role: its class when the class is declared under that role's type, else
// the role's generic type.
func entityType(dom *pddl.Domain, name, role string) string {
	class, _, ok := hhtext.SplitName(name)
	if ok && dom.HasType(class) && dom.IsA(class, role) {
		return class
	}
	if role == "item" {
		return "portable"
	}
	return role
}

// read is the offline, rule-based update reader: it turns one household
// observation into the triplets to remove and add (seed 003 Sec. IV-B,
// with rules standing in for the LLM). It reads only the observation text
// and the graph. failed is true when the text says the action did nothing.
func read(g *kgplan.Graph, obs string) (u kgplan.Update, failed bool) {
	ev := hhtext.ParseObservation(obs)
	u.Entities = map[string]string{}
	item := func(name string) {
		if !g.Knows(name) {
			u.Entities[name] = entityType(g.Domain(), name, "item")
		}
	}
	recep := func(name string) {
		if !g.Knows(name) {
			u.Entities[name] = entityType(g.Domain(), name, "receptacle")
			class, _, _ := hhtext.SplitName(name)
			if slices.Contains(openableClasses, class) {
				u.Add = append(u.Add, tr(name, "openable", kgplan.True), tr(name, "opened", kgplan.False))
			} else {
				u.Add = append(u.Add, tr(name, "opened", kgplan.True))
			}
		}
	}
	moveTo := func(r string) {
		for _, t := range g.Triplets() {
			if t.Subject == kgplan.Agent && t.Relation == "at" && t.Object != r {
				u.Remove = append(u.Remove, t)
			}
		}
		u.Add = append(u.Add, tr(kgplan.Agent, "at", r))
	}
	contents := func(r string, items []string) {
		if items == nil {
			return
		}
		for _, t := range g.Triplets() {
			if t.Relation != "in" {
				continue
			}
			listed := slices.Contains(items, t.Subject)
			if (t.Object == r && !listed) || (t.Object != r && listed) {
				u.Remove = append(u.Remove, t) // gone, or seen elsewhere now
			}
		}
		for _, it := range items {
			item(it)
			u.Add = append(u.Add, tr(it, "in", r))
		}
	}
	hold := func(o string, holding bool) {
		if holding {
			u.Add = append(u.Add, tr(kgplan.Agent, "holding", o), tr(kgplan.Agent, "handempty", kgplan.False))
		} else {
			u.Remove = append(u.Remove, tr(kgplan.Agent, "holding", o))
			u.Add = append(u.Add, tr(kgplan.Agent, "handempty", kgplan.True))
		}
	}
	switch ev.Kind {
	case hhtext.Nothing:
		return kgplan.Update{}, true
	case hhtext.Start:
		for _, r := range ev.Items {
			recep(r)
		}
		u.Add = append(u.Add, tr(kgplan.Agent, "at", kgplan.StartPlace), tr(kgplan.Agent, "handempty", kgplan.True))
	case hhtext.Arrive, hhtext.Open, hhtext.Examine:
		if ev.Target == "" {
			return kgplan.Update{}, false
		}
		recep(ev.Target)
		if ev.Kind == hhtext.Arrive {
			moveTo(ev.Target)
		}
		switch {
		case ev.Closed:
			u.Add = append(u.Add, tr(ev.Target, "opened", kgplan.False))
		case ev.Opened || ev.Kind == hhtext.Open:
			u.Add = append(u.Add, tr(ev.Target, "opened", kgplan.True))
		}
		contents(ev.Target, ev.Items)
	case hhtext.Close:
		u.Add = append(u.Add, tr(ev.Target, "opened", kgplan.False))
	case hhtext.Take:
		recep(ev.Target)
		item(ev.Object)
		u.Remove = append(u.Remove, tr(ev.Object, "in", ev.Target))
		hold(ev.Object, true)
	case hhtext.Put:
		recep(ev.Target)
		item(ev.Object)
		hold(ev.Object, false)
		u.Add = append(u.Add, tr(ev.Object, "in", ev.Target))
	case hhtext.Clean:
		item(ev.Object)
		u.Add = append(u.Add, tr(ev.Object, "clean", kgplan.True))
	case hhtext.Heat:
		item(ev.Object)
		u.Add = append(u.Add, tr(ev.Object, "hot", kgplan.True), tr(ev.Object, "cool", kgplan.False))
	case hhtext.Cool:
		item(ev.Object)
		u.Add = append(u.Add, tr(ev.Object, "cool", kgplan.True), tr(ev.Object, "hot", kgplan.False))
	case hhtext.TurnOn:
		item(ev.Target)
		u.Add = append(u.Add, tr(ev.Target, "toggled", kgplan.True))
	case hhtext.Inventory:
		for _, t := range g.Triplets() {
			if t.Subject == kgplan.Agent && t.Relation == "holding" && !slices.Contains(ev.Items, t.Object) {
				u.Remove = append(u.Remove, t)
			}
		}
		for _, o := range ev.Items {
			item(o)
			u.Add = append(u.Add, tr(kgplan.Agent, "holding", o))
		}
		empty := map[bool]string{true: kgplan.True, false: kgplan.False}[len(ev.Items) == 0]
		u.Add = append(u.Add, tr(kgplan.Agent, "handempty", empty))
	}
	if len(u.Entities) == 0 {
		u.Entities = nil
	}
	return u, false
}

// tr is the triplet (s, r, o).
func tr(s, r, o string) kgplan.Triplet { return kgplan.Triplet{Subject: s, Relation: r, Object: o} }
