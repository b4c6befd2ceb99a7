package arigraph

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Relations the offline extractors write and the exploration functions read.
// Algorithm 3 of seed 000 relies on "expert knowledge about what elements of
// the semantic graph can represent locations and exits"; these names are that
// knowledge here. The LLM extractor is told about them by the prompt's own
// examples ('room x, has exit, east'; 'hall, east of, kitchen').
const (
	RelHasExit       = "has exit"       // (location, has exit, direction)
	RelHasReceptacle = "has receptacle" // household: (room, has receptacle, receptacle)
	RelState         = "is"             // (entity, is, state)
	StateSearched    = "searched"       // household: the receptacle's contents were seen
	Inventory        = "inventory"      // the vertex that holds what the agent carries
)

var opposite = map[string]string{
	"north": "south", "south": "north", "east": "west", "west": "east",
	"northeast": "southwest", "southwest": "northeast", "northwest": "southeast", "southeast": "northwest",
	"up": "down", "down": "up", "in": "out", "out": "in",
}

var dirAbbrev = map[string]string{
	"n": "north", "s": "south", "e": "east", "w": "west",
	"ne": "northeast", "nw": "northwest", "se": "southeast", "sw": "southwest", "u": "up", "d": "down",
}

// direction returns the canonical compass direction named by s ("North",
// "go north", "n", "to the north") and whether s names one.
func direction(s string) (string, bool) {
	s = normText(s)
	s = strings.TrimPrefix(s, "go ")
	s = strings.TrimPrefix(s, "to the ")
	s = strings.TrimPrefix(s, "the ")
	if d, ok := dirAbbrev[s]; ok {
		return d, true
	}
	if _, ok := opposite[s]; ok {
		return s, true
	}
	return "", false
}

// exitDir reports the direction of an exit edge (v, has exit, dir); relations
// such as "has unexplored exit" (seed 000 Appendix B) count too.
func exitDir(e Triplet) (string, bool) {
	if !strings.Contains(e.Relation, "exit") {
		return "", false
	}
	return direction(e.Object)
}

// spatialDir reports D for a spatial edge (a, "is D of" | "D of", b): a lies D of b.
func spatialDir(e Triplet) (string, bool) {
	r := strings.TrimPrefix(e.Relation, "is ")
	r, ok := strings.CutSuffix(r, " of")
	if !ok {
		return "", false
	}
	return direction(r)
}

// spatialEdge returns the edge "a, is D of, b": location a lies in direction d of b.
func spatialEdge(a, d, b string) Triplet {
	return Triplet{Subject: a, Relation: "is " + d + " of", Object: b}.Norm()
}

// UnexploredExits is Algorithm 3 of seed 000: the exit edges leaving loc
// whose direction leads to no known location. An incoming spatial edge
// (x, is D of, loc) explores loc's exit D; we also read the outgoing form
// (loc, is D of, x), which explores the opposite exit, since extractors write
// both. The result keeps the graph's order.
func (g *Graph) UnexploredExits(loc string) []Triplet {
	loc = NormEntity(loc)
	explored := map[string]bool{}
	for _, e := range g.Incoming(loc) {
		if d, ok := spatialDir(e); ok {
			explored[d] = true
		}
	}
	for _, e := range g.Outgoing(loc) {
		if d, ok := spatialDir(e); ok {
			explored[opposite[d]] = true
		}
	}
	var out []Triplet
	seen := map[string]bool{}
	for _, e := range g.Outgoing(loc) {
		if d, ok := exitDir(e); ok && !explored[d] && !seen[d] {
			seen[d] = true
			out = append(out, e)
		}
	}
	return out
}

// Locations returns every vertex that is a location in the spatial sense:
// the subject of an exit edge or either end of a spatial edge, in graph order.
func (g *Graph) Locations() []string {
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, e := range g.edges {
		if _, ok := exitDir(e); ok {
			add(e.Subject)
		} else if _, ok := spatialDir(e); ok {
			add(e.Subject)
			add(e.Object)
		}
	}
	return out
}

// AllUnexploredExits maps every known location to its unexplored exits
// (the planning prompt's {all_unexpl_exits}, seed 000 Appendix D); locations
// without any are left out.
func (g *Graph) AllUnexploredExits() map[string][]string {
	out := map[string][]string{}
	for _, l := range g.Locations() {
		for _, e := range g.UnexploredExits(l) {
			d, _ := exitDir(e)
			out[l] = append(out[l], d)
		}
	}
	return out
}

// neighbours returns the moves out of v on spatial edges: direction -> location.
func (g *Graph) neighbours() map[string]map[string]string {
	adj := map[string]map[string]string{}
	link := func(from, d, to string) {
		if adj[from] == nil {
			adj[from] = map[string]string{}
		}
		if _, ok := adj[from][d]; !ok {
			adj[from][d] = to
		}
	}
	for _, e := range g.edges {
		if d, ok := spatialDir(e); ok && e.Subject != e.Object {
			link(e.Object, d, e.Subject)
			link(e.Subject, opposite[d], e.Object)
		}
	}
	return adj
}

// Route returns the shortest sequence of directions from one location to
// another over the spatial edges (the "go to <location>" action, seed 000
// Sec. 3), and false when no route is known. from == to gives an empty route.
// Among equally short routes the one whose directions sort first wins, so
// routes are deterministic.
func (g *Graph) Route(from, to string) ([]string, bool) {
	from, to = NormEntity(from), NormEntity(to)
	if from == to {
		return []string{}, true
	}
	adj := g.neighbours()
	type step struct {
		prev string
		dir  string
	}
	back := map[string]step{from: {}}
	queue := []string{from}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		dirs := make([]string, 0, len(adj[v]))
		for d := range adj[v] {
			dirs = append(dirs, d)
		}
		slices.Sort(dirs)
		for _, d := range dirs {
			u := adj[v][d]
			if _, ok := back[u]; ok {
				continue
			}
			back[u] = step{prev: v, dir: d}
			if u == to {
				var path []string
				for x := to; x != from; x = back[x].prev {
					path = append(path, back[x].dir)
				}
				slices.Reverse(path)
				return path, true
			}
			queue = append(queue, u)
		}
	}
	return nil, false
}

// UnsearchedReceptacles is Algorithm 3 adapted to the household world, where
// the receptacles are the locations (the agent moves with "go to
// <receptacle>"): the receptacles the room was seen to have, (room, has
// receptacle, r), minus those whose contents the agent has seen, (r, is,
// searched). Graph order.
func (g *Graph) UnsearchedReceptacles() []string {
	searched := map[string]bool{}
	for _, e := range g.edges {
		if e.Relation == RelState && e.Object == StateSearched {
			searched[e.Subject] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, e := range g.edges {
		if e.Relation == RelHasReceptacle && !searched[e.Object] && !seen[e.Object] {
			seen[e.Object] = true
			out = append(out, e.Object)
		}
	}
	return out
}

// Fallback is the action taken when a decision gives none: an admissible
// action not tried yet this episode (other than looking, the inventory and
// examining) at random, else any admissible action, else "look".
func Fallback(adm []string, tried map[string]int, rng *rand.Rand) string {
	var fresh []string
	for _, a := range adm {
		if a != "look" && a != "inventory" && !strings.HasPrefix(a, "examine") && tried[a] == 0 {
			fresh = append(fresh, a)
		}
	}
	if len(fresh) == 0 {
		fresh = adm
	}
	if len(fresh) == 0 {
		return "look"
	}
	return fresh[rng.IntN(len(fresh))]
}
