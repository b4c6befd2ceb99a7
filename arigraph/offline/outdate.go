package offline

import (
	"github.com/samem/trainer/arigraph"
)

// exclusive groups of states: a new state replaces any other of its group.
var stateGroups = [][]string{{"open", "closed"}, {"locked", "unlocked"}, {"on", "off"}}

func sameGroup(a, b string) bool {
	for _, g := range stateGroups {
		ia, ib := false, false
		for _, s := range g {
			ia = ia || s == a
			ib = ib || s == b
		}
		if ia && ib {
			return true
		}
	}
	// an opened thing is no longer locked
	return a == "open" && b == "locked"
}

// RuleOutdated is the offline outdated-edge detector: among existing edges,
// those that new ones contradict. An object is in one place ("x, is in, p"
// replaces "x, is on, q" and "q, contains, x" for q != p), and a state
// replaces the other states of its group (open/closed, locked/unlocked,
// on/off; open also ends locked).
func RuleOutdated(existing, fresh []arigraph.Triplet) []arigraph.Replacement {
	var out []arigraph.Replacement
	for _, n := range fresh {
		n = n.Norm()
		for _, e := range existing {
			e = e.Norm()
			if e == n {
				continue
			}
			switch {
			case arigraph.LocationRelation(n.Relation) && arigraph.LocationRelation(e.Relation) && e.Subject == n.Subject && e.Object != n.Object:
				out = append(out, arigraph.Replacement{Old: e, New: n})
			case arigraph.LocationRelation(n.Relation) && e.Relation == "contains" && e.Object == n.Subject && e.Subject != n.Object:
				out = append(out, arigraph.Replacement{Old: e, New: n})
			case n.Relation == arigraph.RelState && e.Relation == arigraph.RelState && e.Subject == n.Subject && e.Object != n.Object && sameGroup(n.Object, e.Object):
				out = append(out, arigraph.Replacement{Old: e, New: n})
			}
		}
	}
	return out
}
