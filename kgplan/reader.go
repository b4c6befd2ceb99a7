package kgplan

import (
	_ "embed"
	"fmt"
	"slices"
	"sync"

	"github.com/samem/trainer/envbridge/household/hhtext"
	"github.com/samem/trainer/pddl"
)

//go:embed household.pddl
var householdPDDL string

var (
	domOnce sync.Once
	domVal  *pddl.Domain
	domErr  error
)

// Household returns the parsed household domain (household.pddl). The
// domain is shared and must not be modified.
func Household() (*pddl.Domain, error) {
	domOnce.Do(func() {
		domVal, domErr = pddl.ParseDomain(householdPDDL)
		if domErr != nil {
			domErr = fmt.Errorf("household.pddl: %w", domErr)
		}
	})
	return domVal, domErr
}

// Names of the domain's constants.
const (
	agentName = "you"
	startName = "middle-of-room"
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

// Read is the offline, rule-based update reader: it turns one household
// observation into the triplets to remove and add (seed 003 Sec. IV-B,
// with rules standing in for the LLM). It reads only the observation text
// and the graph. failed is true when the text says the action did nothing.
func Read(g *Graph, obs string) (u Update, failed bool) {
	ev := hhtext.ParseObservation(obs)
	u.Entities = map[string]string{}
	item := func(name string) {
		if _, ok := g.types[name]; !ok {
			u.Entities[name] = entityType(g.dom, name, "item")
		}
	}
	recep := func(name string) {
		if _, ok := g.types[name]; !ok {
			u.Entities[name] = entityType(g.dom, name, "receptacle")
			class, _, _ := hhtext.SplitName(name)
			if slices.Contains(openableClasses, class) {
				u.Add = append(u.Add, Triplet{name, "openable", True}, Triplet{name, "opened", False})
			} else {
				u.Add = append(u.Add, Triplet{name, "opened", True})
			}
		}
	}
	moveTo := func(r string) {
		for _, t := range g.Triplets() {
			if t.Subject == agentName && t.Relation == "at" && t.Object != r {
				u.Remove = append(u.Remove, t)
			}
		}
		u.Add = append(u.Add, Triplet{agentName, "at", r})
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
			u.Add = append(u.Add, Triplet{it, "in", r})
		}
	}
	hold := func(o string, holding bool) {
		if holding {
			u.Add = append(u.Add, Triplet{agentName, "holding", o}, Triplet{agentName, "handempty", False})
		} else {
			u.Remove = append(u.Remove, Triplet{agentName, "holding", o})
			u.Add = append(u.Add, Triplet{agentName, "handempty", True})
		}
	}
	switch ev.Kind {
	case hhtext.Nothing:
		return Update{}, true
	case hhtext.Start:
		for _, r := range ev.Items {
			recep(r)
		}
		u.Add = append(u.Add, Triplet{agentName, "at", startName}, Triplet{agentName, "handempty", True})
	case hhtext.Arrive, hhtext.Open, hhtext.Examine:
		if ev.Target == "" {
			return Update{}, false
		}
		recep(ev.Target)
		if ev.Kind == hhtext.Arrive {
			moveTo(ev.Target)
		}
		switch {
		case ev.Closed:
			u.Add = append(u.Add, Triplet{ev.Target, "opened", False})
		case ev.Opened || ev.Kind == hhtext.Open:
			u.Add = append(u.Add, Triplet{ev.Target, "opened", True})
		}
		contents(ev.Target, ev.Items)
	case hhtext.Close:
		u.Add = append(u.Add, Triplet{ev.Target, "opened", False})
	case hhtext.Take:
		recep(ev.Target)
		item(ev.Object)
		u.Remove = append(u.Remove, Triplet{ev.Object, "in", ev.Target})
		hold(ev.Object, true)
	case hhtext.Put:
		recep(ev.Target)
		item(ev.Object)
		hold(ev.Object, false)
		u.Add = append(u.Add, Triplet{ev.Object, "in", ev.Target})
	case hhtext.Clean:
		item(ev.Object)
		u.Add = append(u.Add, Triplet{ev.Object, "clean", True})
	case hhtext.Heat:
		item(ev.Object)
		u.Add = append(u.Add, Triplet{ev.Object, "hot", True}, Triplet{ev.Object, "cool", False})
	case hhtext.Cool:
		item(ev.Object)
		u.Add = append(u.Add, Triplet{ev.Object, "cool", True}, Triplet{ev.Object, "hot", False})
	case hhtext.TurnOn:
		item(ev.Target)
		u.Add = append(u.Add, Triplet{ev.Target, "toggled", True})
	case hhtext.Inventory:
		for _, t := range g.Triplets() {
			if t.Subject == agentName && t.Relation == "holding" && !slices.Contains(ev.Items, t.Object) {
				u.Remove = append(u.Remove, t)
			}
		}
		for _, o := range ev.Items {
			item(o)
			u.Add = append(u.Add, Triplet{agentName, "holding", o})
		}
		empty := map[bool]string{true: True, false: False}[len(ev.Items) == 0]
		u.Add = append(u.Add, Triplet{agentName, "handempty", empty})
	}
	if len(u.Entities) == 0 {
		u.Entities = nil
	}
	return u, false
}
