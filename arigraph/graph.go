// Package arigraph is the AriGraph world model (seed 000 Sec. 2): a semantic
// graph of (subject, relation, object) triplets and episodic vertices (one per
// observation) joined by episodic edges, learned from observations; its
// retrieval (semantic BFS, Algorithm 2; episodic scoring, Eq. 1); exploration
// of unexplored exits (Algorithm 3) and routes on spatial relations; and its
// Parquet persistence.
//
// The Ariadne agent that uses it (working memory, planning, ReAct decision)
// is the agent.Method in arigraph/method.go (there is no separate package).
package arigraph

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Triplet is one semantic edge (v, rel, u) of the graph (seed 000 Sec. 2).
// Its parts are normalised by Norm when they enter a Graph.
type Triplet struct {
	Subject  string `json:"subject"`
	Relation string `json:"relation"`
	Object   string `json:"object"`
}

// String renders t as the prompts write it: "subject, relation, object".
func (t Triplet) String() string {
	return t.Subject + ", " + t.Relation + ", " + t.Object
}

// Norm returns t with every part lower-cased, trimmed, inner spaces collapsed
// and a leading article ("a", "an", "the", "some") dropped from subject and
// object, so that "The Key 1" and "key 1" are one vertex.
func (t Triplet) Norm() Triplet {
	return Triplet{Subject: NormEntity(t.Subject), Relation: normText(t.Relation), Object: NormEntity(t.Object)}
}

// Valid reports whether every part of t is non-empty and no entity is "none"
// (the extraction prompt forbids 'none' as an entity, seed 000 Appendix D).
func (t Triplet) Valid() bool {
	return t.Subject != "" && t.Relation != "" && t.Object != "" &&
		t.Subject != "none" && t.Object != "none"
}

func normText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.Trim(s, " \t\r\n\"'`.[]{}()"))), " ")
}

// NormEntity normalises an entity name the way Graph stores it: lower
// case, single spaces, and leading articles dropped. It is idempotent (a
// fuzz finding: "A A 0" once gave "a 0", which normalised again to "0"), so
// articles are dropped until none is left.
func NormEntity(s string) string {
	for {
		prev := s
		s = normText(s)
		for _, a := range []string{"a ", "an ", "the ", "some "} {
			if strings.HasPrefix(s, a) {
				s = s[len(a):]
				break
			}
		}
		if s == prev {
			return s
		}
	}
}

// Episode is an episodic vertex: one observation and the triplets extracted
// from it (its episodic edge, seed 000 Sec. 2).
type Episode struct {
	Step     int       `json:"step"` // the agent's step counter when observed
	Text     string    `json:"text"`
	Triplets []Triplet `json:"triplets"`
}

// Graph is an AriGraph world model G = (V_s, E_s, V_e, E_e). The zero value
// is not usable; make one with NewGraph. A Graph is not safe for concurrent
// use; its owner locks.
type Graph struct {
	edges    []Triplet       // E_s in insertion order
	index    map[Triplet]int // position of each edge in edges
	episodes []Episode       // V_e with their episodic edges
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{index: map[Triplet]int{}}
}

// Triplets returns a copy of the semantic edges in insertion order.
func (g *Graph) Triplets() []Triplet { return slices.Clone(g.edges) }

// Episodes returns a copy of the episodic vertices in insertion order.
func (g *Graph) Episodes() []Episode {
	out := make([]Episode, len(g.episodes))
	for i, e := range g.episodes {
		out[i] = Episode{Step: e.Step, Text: e.Text, Triplets: slices.Clone(e.Triplets)}
	}
	return out
}

// Len is the number of semantic edges.
func (g *Graph) Len() int { return len(g.edges) }

// Has reports whether t (normalised) is a semantic edge.
func (g *Graph) Has(t Triplet) bool {
	_, ok := g.index[t.Norm()]
	return ok
}

// Add inserts the valid triplets among ts that are not yet in the graph and
// returns how many it added.
func (g *Graph) Add(ts ...Triplet) int {
	n := 0
	for _, t := range ts {
		t = t.Norm()
		if !t.Valid() {
			continue
		}
		if _, ok := g.index[t]; ok {
			continue
		}
		g.index[t] = len(g.edges)
		g.edges = append(g.edges, t)
		n++
	}
	return n
}

// Remove deletes the given triplets from the semantic memory and returns how
// many were present. Episodic edges keep them: an observation still
// happened with what was extracted from it, and Eq. 1 counts N_i over the
// episodic edge as it was built.
func (g *Graph) Remove(ts ...Triplet) int {
	drop := map[Triplet]bool{}
	for _, t := range ts {
		t = t.Norm()
		if _, ok := g.index[t]; ok {
			drop[t] = true
		}
	}
	if len(drop) == 0 {
		return 0
	}
	kept := g.edges[:0]
	for _, e := range g.edges {
		if !drop[e] {
			kept = append(kept, e)
		}
	}
	g.edges = kept
	clear(g.index)
	for i, e := range g.edges {
		g.index[e] = i
	}
	return len(drop)
}

// AddEpisode appends an episodic vertex whose episodic edge links the given
// triplets (normalised, invalid ones and duplicates dropped).
func (g *Graph) AddEpisode(step int, text string, ts []Triplet) {
	seen := map[Triplet]bool{}
	var links []Triplet
	for _, t := range ts {
		t = t.Norm()
		if t.Valid() && !seen[t] {
			seen[t] = true
			links = append(links, t)
		}
	}
	g.episodes = append(g.episodes, Episode{Step: step, Text: text, Triplets: links})
}

// Incident returns the semantic edges incident to any of the given entities
// (E_s^rel in seed 000 Sec. 2, "Learning AriGraph").
func (g *Graph) Incident(entities []string) []Triplet {
	want := map[string]bool{}
	for _, e := range entities {
		want[NormEntity(e)] = true
	}
	var out []Triplet
	for _, e := range g.edges {
		if want[e.Subject] || want[e.Object] {
			out = append(out, e)
		}
	}
	return out
}

// Outgoing returns the edges whose subject is v; Incoming those whose object is v.
func (g *Graph) Outgoing(v string) []Triplet {
	v = NormEntity(v)
	var out []Triplet
	for _, e := range g.edges {
		if e.Subject == v {
			out = append(out, e)
		}
	}
	return out
}

// Incoming returns the edges whose object is v.
func (g *Graph) Incoming(v string) []Triplet {
	v = NormEntity(v)
	var out []Triplet
	for _, e := range g.edges {
		if e.Object == v {
			out = append(out, e)
		}
	}
	return out
}

// tripletEntities returns the subjects and objects of ts, each once, in order.
func tripletEntities(ts []Triplet) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		for _, v := range []string{t.Subject, t.Object} {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// Clone returns a deep copy of g.
func (g *Graph) Clone() *Graph {
	c := NewGraph()
	c.Add(g.edges...)
	c.episodes = g.Episodes()
	return c
}

// Equal reports whether g and h hold the same edges and episodes in the same order.
func (g *Graph) Equal(h *Graph) bool {
	if !slices.Equal(g.edges, h.edges) || len(g.episodes) != len(h.episodes) {
		return false
	}
	for i := range g.episodes {
		a, b := g.episodes[i], h.episodes[i]
		if a.Step != b.Step || a.Text != b.Text || !slices.Equal(a.Triplets, b.Triplets) {
			return false
		}
	}
	return true
}

// Named returns the vertices a text names, in the graph's order: those whose
// name, or whose kind (the name without an instance number: "apple" of
// "apple 1"), appears in the text as whole words. The model path uses it to
// turn a task's goal, in any world's words, into retrieval queries.
func (g *Graph) Named(text string) []string {
	words := " " + strings.Join(strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\''
	}), " ") + " "
	var out []string
	for _, v := range tripletEntities(g.edges) {
		if strings.Contains(words, " "+v+" ") || strings.Contains(words, " "+kindOf(v)+" ") {
			out = append(out, v)
		}
	}
	return out
}

// kindOf is the kind of an instance name: the name without a trailing
// instance number ("apple 1" -> "apple"), else the name.
func kindOf(name string) string {
	i := strings.LastIndexByte(name, ' ')
	if i <= 0 {
		return name
	}
	if n, err := strconv.Atoi(name[i+1:]); err != nil || n <= 0 || name[i+1] == '+' {
		return name
	}
	return name[:i]
}
