package offline

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/samem/trainer/arigraph"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

// Decider is the offline planner and decision module of the Ariadne agent:
// deterministic rules over working memory (the goal, the retrieved triplets,
// the unexplored exits or receptacles, the admissible actions), never the
// environment's hidden state. It is memory-agnostic, as Ariadne is (seed 000
// Sec. 4.2 swaps only the memory module): the memory-stream baseline feeds it
// triplets read from its retrieved memories. The zero value is ready to use.
type Decider struct{}

// facts is the decider's reading of working-memory triplets.
type facts struct {
	where     map[string]string          // object -> place (latest triplet wins)
	state     map[string]map[string]bool // entity -> states
	inventory []string
	requires  []string
	toBe      map[string][]string // ingredient -> required states
	order     []string            // entities in first-mention order
}

func readFacts(ts []arigraph.Triplet) facts {
	f := facts{where: map[string]string{}, state: map[string]map[string]bool{}, toBe: map[string][]string{}}
	seen := map[string]bool{}
	for _, t := range ts {
		for _, v := range []string{t.Subject, t.Object} {
			if !seen[v] {
				seen[v] = true
				f.order = append(f.order, v)
			}
		}
		switch {
		case arigraph.LocationRelation(t.Relation):
			f.where[t.Subject] = t.Object
		case t.Relation == "contains":
			f.where[t.Object] = t.Subject
		case t.Relation == arigraph.RelState:
			if f.state[t.Subject] == nil {
				f.state[t.Subject] = map[string]bool{}
			}
			f.state[t.Subject][t.Object] = true
		case t.Relation == "requires" && t.Subject == "recipe":
			f.requires = append(f.requires, t.Object)
		case t.Relation == "to be":
			f.toBe[t.Subject] = append(f.toBe[t.Subject], t.Object)
		}
	}
	for o, p := range f.where {
		if p == arigraph.Inventory {
			f.inventory = append(f.inventory, o)
		}
	}
	slices.Sort(f.inventory)
	return f
}

func (f facts) has(e, s string) bool { return f.state[e][s] }

// Decide picks the next action. tried counts how often each action was
// already taken this episode, so that fruitless actions are not repeated
// forever; rng breaks ties of the fallback.
func (Decider) Decide(style envbridge.Style, wm arigraph.WorkingMemory, tried map[string]int, rng *rand.Rand) (reason, action string) {
	if style == envbridge.StyleHousehold {
		return decideHousehold(wm, tried, rng)
	}
	return decideFiction(wm, tried, rng)
}

func kindOf(name string) string {
	if k, _, ok := hhtext.SplitName(name); ok {
		return k
	}
	return name
}

// pick returns the first candidate that is admissible (any candidate when
// the world gives no list) and not tried more than limit times.
func pick(adm []string, tried map[string]int, limit int, cands ...string) string {
	for _, c := range cands {
		if c == "" || tried[c] > limit {
			continue
		}
		if adm == nil || slices.Contains(adm, c) {
			return c
		}
	}
	return ""
}

var applianceOf = map[string]string{hhtext.PickClean: "sinkbasin", hhtext.PickHeat: "microwave", hhtext.PickCool: "fridge"}
var verbOf = map[string]string{hhtext.PickClean: "clean", hhtext.PickHeat: "heat", hhtext.PickCool: "cool"}
var doneOf = map[string]string{hhtext.PickClean: "clean", hhtext.PickHeat: "hot", hhtext.PickCool: "cool"}

func decideHousehold(wm arigraph.WorkingMemory, tried map[string]int, rng *rand.Rand) (string, string) {
	adm := wm.Actions
	g, ok := hhtext.ParseGoal(wm.Goal)
	if !ok {
		return "goal not understood; acting at random", arigraph.Fallback(adm, tried, rng)
	}
	f := readFacts(wm.Facts)
	at := wm.Location
	// receptacles of a type, from the admissible "go to" actions and the facts.
	recsOf := func(kind string) []string {
		var out []string
		for _, a := range adm {
			if r, ok := strings.CutPrefix(a, "go to "); ok && kindOf(r) == kind {
				out = append(out, r)
			}
		}
		if kindOf(at) == kind && !slices.Contains(out, at) {
			out = append([]string{at}, out...)
		}
		return out
	}
	goTo := func(r string) string { return pick(adm, tried, 1000, "go to "+r) }
	var holding string
	for _, o := range f.inventory {
		holding = o
	}
	placed := 0
	for o, p := range f.where {
		if kindOf(o) == g.Object && kindOf(p) == g.Receptacle && g.Receptacle != "" {
			placed++
		}
	}
	if holding != "" && kindOf(holding) == g.Object {
		if ap := applianceOf[g.Type]; ap != "" && !f.has(holding, doneOf[g.Type]) {
			if kindOf(at) == ap {
				if a := pick(adm, tried, 3, verbOf[g.Type]+" "+holding+" with "+at); a != "" {
					return "process the object at the appliance", a
				}
			}
			for _, r := range recsOf(ap) {
				if a := goTo(r); a != "" && r != at {
					return "carry it to the " + ap, a
				}
			}
		}
		if g.Type == hhtext.LookInLight {
			for _, a := range adm {
				if strings.HasPrefix(a, "use "+g.Lamp) {
					return "the lamp is here", a
				}
			}
			for o, p := range f.where {
				if kindOf(o) == g.Lamp && p != at {
					if a := goTo(p); a != "" {
						return "go where the lamp was seen", a
					}
				}
			}
			return exploreHousehold(wm, f, g.Lamp, tried, rng)
		}
		for _, r := range recsOf(g.Receptacle) {
			if r == at {
				if f.has(at, "closed") {
					if a := pick(adm, tried, 2, "open "+at); a != "" {
						return "open the destination", a
					}
				}
				for _, a := range adm {
					if (strings.HasPrefix(a, "put "+holding+" ") || strings.HasPrefix(a, "move "+holding+" ")) && strings.HasSuffix(a, " "+at) {
						return "put it in place", a
					}
				}
			}
		}
		for _, r := range recsOf(g.Receptacle) {
			if a := goTo(r); a != "" && r != at {
				return "carry it to the destination", a
			}
		}
	}
	if holding != "" && kindOf(holding) != g.Object && g.Type != hhtext.LookInLight {
		for _, a := range adm {
			if strings.HasPrefix(a, "put "+holding+" ") || strings.HasPrefix(a, "move "+holding+" ") {
				return "free the hands", a
			}
		}
	}
	if holding == "" || (g.Type == hhtext.LookInLight && kindOf(holding) != g.Object) {
		// a known object of the goal type not yet placed
		for _, o := range f.order {
			p, ok := f.where[o]
			if !ok || kindOf(o) != g.Object || p == arigraph.Inventory || (kindOf(p) == g.Receptacle && g.Receptacle != "") {
				continue
			}
			if p == at {
				if a := pick(adm, tried, 2, "take "+o+" from "+p); a != "" {
					return "the object is here", a
				}
			} else if a := goTo(p); a != "" {
				return "memory says the object is at " + p, a
			}
		}
	}
	_ = placed
	return exploreHousehold(wm, f, g.Object, tried, rng)
}

// exploreHousehold opens the closed receptacle the agent stands at, else goes
// to the next unsearched receptacle, earlier tasks' priors first.
func exploreHousehold(wm arigraph.WorkingMemory, f facts, want string, tried map[string]int, rng *rand.Rand) (string, string) {
	adm := wm.Actions
	if wm.Location != "" && f.has(wm.Location, "closed") && !f.has(wm.Location, arigraph.StateSearched) {
		if a := pick(adm, tried, 1, "open "+wm.Location); a != "" {
			return "look inside", a
		}
	}
	var unsearched []string
	for _, l := range wm.Exits["room"] {
		if l != wm.Location {
			unsearched = append(unsearched, l)
		}
	}
	rank := func(r string) int {
		for i, p := range wm.Priors {
			if strings.HasPrefix(p, want+" ") && strings.HasSuffix(p, " "+kindOf(r)) {
				return i
			}
		}
		return len(wm.Priors)
	}
	slices.SortStableFunc(unsearched, func(a, b string) int { return rank(a) - rank(b) })
	for _, r := range unsearched {
		if a := pick(adm, tried, 0, "go to "+r); a != "" {
			return "explore an unsearched receptacle", a
		}
	}
	return "nothing left to search; acting at random", arigraph.Fallback(adm, tried, rng)
}

var toolFor = map[string]string{"diced": "knife", "sliced": "knife", "chopped": "knife", "fried": "stove", "grilled": "bbq", "roasted": "oven"}
var verbFor = map[string]string{"diced": "dice", "sliced": "slice", "chopped": "chop"}

func decideFiction(wm arigraph.WorkingMemory, tried map[string]int, rng *rand.Rand) (string, string) {
	f := readFacts(wm.Facts)
	loc := wm.Location
	inInv := func(x string) bool { return f.where[x] == arigraph.Inventory }
	// here reports whether x is in loc, directly or on/in something in loc.
	var here func(x string, depth int) (string, bool)
	here = func(x string, depth int) (string, bool) {
		p, ok := f.where[x]
		if !ok || depth > 3 || loc == "" {
			return "", false
		}
		if p == loc {
			return "", true
		}
		if _, ok := here(p, depth+1); ok {
			return p, true
		}
		return "", false
	}
	take := func(x string) string {
		if c, ok := here(x, 0); ok {
			if c != "" {
				return pick(nil, tried, 1, "take "+x+" from "+c)
			}
			return pick(nil, tried, 1, "take "+x)
		}
		return ""
	}
	// Cooking (recipe read): gather, prepare, cook, eat.
	if len(f.requires) > 0 {
		all := true
		for _, x := range f.requires {
			if !inInv(x) {
				all = false
				if a := take(x); a != "" {
					return "take an ingredient of the recipe", a
				}
			}
		}
		if all {
			for _, x := range f.requires {
				for _, st := range f.toBe[x] {
					if f.has(x, st) {
						continue
					}
					tool := toolFor[st]
					if tool == "knife" {
						if !inInv("knife") {
							if a := take("knife"); a != "" {
								return "a knife is needed", a
							}
							continue
						}
						if a := pick(nil, tried, 0, verbFor[st]+" "+x+" with knife"); a != "" {
							return "cut as the recipe says", a
						}
						continue
					}
					if _, ok := here(tool, 0); ok {
						if a := pick(nil, tried, 0, "cook "+x+" with "+tool); a != "" {
							return "cook as the recipe says", a
						}
					} else if p, ok := f.where[tool]; ok {
						if a := routeStep(wm, p, tried); a != "" {
							return "go to the " + tool, a
						}
					}
				}
			}
			if a := pick(nil, tried, 0, "prepare meal"); a != "" {
				return "everything is ready", a
			}
			if tried["prepare meal"] > 0 {
				if a := pick(nil, tried, 0, "eat meal"); a != "" {
					return "eat", a
				}
			}
		}
	}
	// Things worth taking or reading here.
	for _, x := range f.order {
		if !inInv(x) && (strings.Contains(x, "key") || strings.Contains(x, "note")) {
			if a := take(x); a != "" {
				return "take what may unlock or tell something", a
			}
		}
	}
	for _, x := range f.order {
		if (strings.Contains(x, "cookbook") || strings.Contains(x, "note")) && tried["examine "+x] == 0 {
			if _, ok := here(x, 0); ok || inInv(x) {
				return "read it", "examine " + x
			}
		}
	}
	// Closed or locked containers here.
	for _, x := range f.order {
		if _, ok := here(x, 0); !ok || strings.Contains(x, "door") {
			continue
		}
		if f.has(x, "locked") {
			for _, k := range f.inventory {
				if strings.Contains(k, "key") {
					if a := pick(nil, tried, 0, "unlock "+x+" with "+k); a != "" {
						return "try a key", a
					}
				}
			}
		}
		if (f.has(x, "closed") || f.has(x, "locked") || strings.Contains(x, "locker")) && !f.has(x, "open") {
			if a := pick(nil, tried, 0, "open "+x); a != "" {
				return "look inside", a
			}
		}
	}
	// Exploration: an unexplored exit here, else the nearest location with one.
	for _, d := range wm.Exits[loc] {
		if a := pick(nil, tried, 2, "go "+d); a != "" {
			return "explore an unexplored exit", a
		}
	}
	locs := make([]string, 0, len(wm.Exits))
	for l := range wm.Exits {
		locs = append(locs, l)
	}
	slices.Sort(locs)
	for _, l := range locs {
		if l != loc && len(wm.Exits[l]) > 0 {
			if a := routeStep(wm, l, tried); a != "" {
				return "go to a location with unexplored exits", a
			}
		}
	}
	dirs := []string{"go north", "go south", "go east", "go west"}
	return "nothing known to do; wander", dirs[rng.IntN(len(dirs))]
}

// routeStep returns the "go to <location>" action; the episode turns it
// into the route's first move.
func routeStep(wm arigraph.WorkingMemory, to string, tried map[string]int) string {
	if to == "" || to == wm.Location {
		return ""
	}
	return pick(nil, tried, 20, "go to "+to)
}
