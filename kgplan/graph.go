package kgplan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/samem/trainer/pddl"
)

// Property values of property triplets (seed 003 Sec. IV-A: (subject, property, boolean)).
const (
	True  = "true"
	False = "false"
)

// Triplet is one edge of the knowledge graph: (subject, relation, object)
// for a binary predicate, or (subject, property, true|false) for a unary
// one (seed 003 Sec. IV-A). Names are the game's ("cabinet 4") or the
// domain's constants ("you", "middle-of-room").
type Triplet struct {
	Subject  string `json:"subject"`
	Relation string `json:"relation"`
	Object   string `json:"object"`
}

// IsProperty reports whether t is a property triplet.
func (t Triplet) IsProperty() bool { return t.Object == True || t.Object == False }

// String writes t in the paper's notation, "subject -> relation -> object".
func (t Triplet) String() string {
	return t.Subject + " -> " + t.Relation + " -> " + t.Object
}

// ErrInvalidUpdate is returned (wrapped in a *VerifyError) when an update
// breaks the domain's rules: an unknown predicate, a wrong arity, a wrong
// argument type or an unknown entity.
var ErrInvalidUpdate = errors.New("invalid graph update")

// VerifyError lists every violation of one update, in the words fed back to
// the LLM for its next attempt (seed 003 Sec. IV-B step 4).
type VerifyError struct {
	Violations []string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("%v: %s", ErrInvalidUpdate, strings.Join(e.Violations, "; "))
}

// Unwrap makes errors.Is(err, ErrInvalidUpdate) true.
func (e *VerifyError) Unwrap() error { return ErrInvalidUpdate }

// Update is one change to the graph: E_{t+1} = E_t - Remove + Add
// (seed 003 Sec. III-A). Entities registers new entity names with their
// PDDL types (the rule reader knows a receptacle from an item by where the
// text lists it); others get a type from their class name.
type Update struct {
	Remove   []Triplet         `json:"remove"`
	Add      []Triplet         `json:"add"`
	Entities map[string]string `json:"entities,omitempty"`
}

// Empty reports whether u changes nothing.
func (u Update) Empty() bool { return len(u.Remove) == 0 && len(u.Add) == 0 && len(u.Entities) == 0 }

// Change is one applied edit, kept in the graph's history.
type Change struct {
	Seq     int     // order of application, from 0
	Step    int     // episode step at which it was applied (-1: before the first action)
	Op      string  // "add" or "remove"
	Triplet Triplet //
	Source  string  // "reader", "llm", "plan", "scene"
}

// Graph is the knowledge graph standing for the world state (seed 003
// Sec. IV-A): triplets in one-to-one correspondence with the domain's
// predicates, the entities' types, and the history of every change. It is
// not safe for concurrent use.
type Graph struct {
	dom     *pddl.Domain
	types   map[string]string // entity -> PDDL type
	edges   map[Triplet]bool
	history []Change
}

// NewGraph returns an empty graph over dom, knowing only dom's constants.
func NewGraph(dom *pddl.Domain) *Graph {
	g := &Graph{dom: dom, types: map[string]string{}, edges: map[Triplet]bool{}}
	for _, c := range dom.Constants {
		g.types[c.Name] = c.Type
	}
	return g
}

// Triplets returns every triplet, sorted.
func (g *Graph) Triplets() []Triplet {
	out := make([]Triplet, 0, len(g.edges))
	for t := range g.edges {
		out = append(out, t)
	}
	slices.SortFunc(out, compareTriplets)
	return out
}

func compareTriplets(a, b Triplet) int {
	if c := strings.Compare(a.Subject, b.Subject); c != 0 {
		return c
	}
	if c := strings.Compare(a.Relation, b.Relation); c != 0 {
		return c
	}
	return strings.Compare(a.Object, b.Object)
}

// Has reports whether t is in the graph.
func (g *Graph) Has(t Triplet) bool { return g.edges[t] }

// Len is the number of triplets.
func (g *Graph) Len() int { return len(g.edges) }

// History returns the applied changes in order.
func (g *Graph) History() []Change { return slices.Clone(g.history) }

// Entities returns every known entity name with its type, sorted by name.
func (g *Graph) Entities() []pddl.Param {
	out := make([]pddl.Param, 0, len(g.types))
	for n, t := range g.types {
		out = append(out, pddl.Param{Name: n, Type: t})
	}
	slices.SortFunc(out, func(a, b pddl.Param) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// TypeOf returns the PDDL type of a known entity, or the type its class
// name implies ("apple 3" -> apple) when that class is a declared type.
func (g *Graph) TypeOf(name string) (string, bool) {
	if t, ok := g.types[name]; ok {
		return t, true
	}
	class, ok := kindOf(name)
	if ok && g.dom.HasType(class) && class != pddl.RootType {
		return class, true
	}
	return "", false
}

// Objects returns the entities (not relations) of t.
func (t Triplet) entities() []string {
	if t.IsProperty() {
		return []string{t.Subject}
	}
	return []string{t.Subject, t.Object}
}

// Verify checks an update against the domain (seed 003 Sec. IV-B step 3):
// each triplet's relation is a declared predicate, a property triplet names
// a unary predicate and a relation triplet a binary one, and the arguments
// are known entities of the predicate's parameter types. It returns a
// *VerifyError listing every violation, or nil.
func (g *Graph) Verify(u Update) error {
	var bad []string
	types := func(name string) (string, bool) {
		if t, ok := u.Entities[name]; ok {
			return t, true
		}
		return g.TypeOf(name)
	}
	for name, t := range u.Entities {
		if !g.dom.HasType(t) {
			bad = append(bad, fmt.Sprintf("entity %q: unknown type %q", name, t))
		} else if old, ok := g.types[name]; ok && old != t {
			bad = append(bad, fmt.Sprintf("entity %q: type %q conflicts with known type %q", name, t, old))
		}
	}
	check := func(kind string, t Triplet) {
		if strings.TrimSpace(t.Subject) == "" || strings.TrimSpace(t.Relation) == "" || strings.TrimSpace(t.Object) == "" {
			bad = append(bad, fmt.Sprintf("%s %q: empty part", kind, t))
			return
		}
		p, ok := g.dom.Predicate(t.Relation)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s %q: unknown predicate %q", kind, t, t.Relation))
			return
		}
		args := t.entities()
		if len(p.Params) != len(args) {
			form := "a relation triplet (subject, relation, object)"
			if len(p.Params) == 1 {
				form = "a property triplet (subject, property, true|false)"
			}
			bad = append(bad, fmt.Sprintf("%s %q: wrong arity: %s takes %d argument(s), so it must be %s", kind, t, p.Name, len(p.Params), form))
			return
		}
		for i, a := range args {
			at, ok := types(a)
			if !ok {
				bad = append(bad, fmt.Sprintf("%s %q: unknown entity %q", kind, t, a))
				continue
			}
			if !g.dom.IsA(at, p.Params[i].Type) {
				bad = append(bad, fmt.Sprintf("%s %q: wrong type: %q is a %s, but argument %d of %s must be a %s", kind, t, a, at, i+1, p.Name, p.Params[i].Type))
			}
		}
	}
	for _, t := range u.Remove {
		check("remove", t)
	}
	for _, t := range u.Add {
		check("add", t)
	}
	if len(bad) > 0 {
		return &VerifyError{Violations: bad}
	}
	return nil
}

// Apply verifies u and, when it is valid, applies it: removes first, then
// adds (seed 003 Sec. III-A). Adding a property value replaces the other
// value of the same property, since a property holds one boolean. On a
// violation nothing changes and the *VerifyError is returned.
func (g *Graph) Apply(u Update, step int, source string) error {
	if err := g.Verify(u); err != nil {
		return err
	}
	for name, t := range u.Entities {
		g.types[name] = t
	}
	for _, t := range u.Remove {
		g.record(t, step, source, false)
	}
	for _, t := range u.Add {
		for _, a := range t.entities() {
			if _, ok := g.types[a]; !ok {
				g.types[a], _ = g.TypeOf(a)
			}
		}
		if t.IsProperty() {
			other := t
			other.Object = map[string]string{True: False, False: True}[t.Object]
			g.record(other, step, source, false)
		}
		g.record(t, step, source, true)
	}
	return nil
}

func (g *Graph) record(t Triplet, step int, source string, add bool) {
	if g.edges[t] == add {
		return // no change, no history
	}
	op := "remove"
	if add {
		op = "add"
		g.edges[t] = true
	} else {
		delete(g.edges, t)
	}
	g.history = append(g.history, Change{Seq: len(g.history), Step: step, Op: op, Triplet: t, Source: source})
}

// Retrieve returns the triplets within depth hops of the seed entities
// (seed 003 Sec. IV-A: "all triplets outgoing and incoming to each relevant
// entity at a certain maximum depth"). Depth 1 is the seeds' own triplets;
// depth 2 adds those of their neighbours. Property values are not entities
// and are never walked through.
func (g *Graph) Retrieve(seeds []string, depth int) []Triplet {
	adj := map[string][]Triplet{}
	for t := range g.edges {
		for _, e := range t.entities() {
			adj[e] = append(adj[e], t)
		}
	}
	seen := map[string]bool{}
	got := map[Triplet]bool{}
	frontier := []string{}
	for _, s := range seeds {
		if !seen[s] {
			seen[s] = true
			frontier = append(frontier, s)
		}
	}
	for d := 0; d < depth && len(frontier) > 0; d++ {
		var next []string
		for _, e := range frontier {
			for _, t := range adj[e] {
				got[t] = true
				for _, n := range t.entities() {
					if !seen[n] {
						seen[n] = true
						next = append(next, n)
					}
				}
			}
		}
		frontier = next
	}
	out := make([]Triplet, 0, len(got))
	for t := range got {
		out = append(out, t)
	}
	slices.SortFunc(out, compareTriplets)
	return out
}

// atomOf converts t to the PDDL atom it stands for; ok is false for a false
// property (absent under the closed-world assumption).
func atomOf(t Triplet) (a pddl.Atom, ok bool) {
	if t.Object == False {
		return pddl.Atom{}, false
	}
	if t.Object == True {
		return pddl.Atom{Pred: t.Relation, Args: []string{ToPDDL(t.Subject)}}, true
	}
	return pddl.Atom{Pred: t.Relation, Args: []string{ToPDDL(t.Subject), ToPDDL(t.Object)}}, true
}

// ToPDDL turns a game name into a PDDL name: "cabinet 4" -> "cabinet_4".
func ToPDDL(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "_")
}

// FromPDDL turns a PDDL name back into the game's: "cabinet_4" -> "cabinet 4".
func FromPDDL(name string) string { return strings.ReplaceAll(name, "_", " ") }

// Problem builds a PDDL problem whose :init is the given triplets (seed 003
// Sec. IV-C step 2) and whose objects are their entities plus extra.
func (g *Graph) Problem(name string, triplets []Triplet, extra []string, goal pddl.Condition) *pddl.Problem {
	p := &pddl.Problem{Name: name, Domain: g.dom.Name, Goal: goal}
	constants := map[string]bool{}
	for _, c := range g.dom.Constants {
		constants[c.Name] = true
	}
	seen := map[string]bool{}
	addObj := func(e string) {
		if seen[e] || constants[e] {
			return
		}
		seen[e] = true
		if t, ok := g.TypeOf(e); ok {
			p.Objects = append(p.Objects, pddl.Param{Name: ToPDDL(e), Type: t})
		}
	}
	for _, t := range triplets {
		if a, ok := atomOf(t); ok {
			p.Init = append(p.Init, a)
		}
		for _, e := range t.entities() {
			addObj(e)
		}
	}
	for _, e := range extra {
		addObj(e)
	}
	return p
}

// Knows reports whether name is a known entity of the graph.
func (g *Graph) Knows(name string) bool {
	_, ok := g.types[name]
	return ok
}

// Domain is the PDDL domain the graph's updates are verified against.
func (g *Graph) Domain() *pddl.Domain { return g.dom }

// kindOf splits an instance name into its class: "apple 3" -> apple; ok is
// false for a name without a positive instance number.
func kindOf(name string) (class string, ok bool) {
	i := strings.LastIndexByte(name, ' ')
	if i <= 0 {
		return "", false
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n <= 0 || name[i+1] == '+' {
		return "", false
	}
	return name[:i], true
}
