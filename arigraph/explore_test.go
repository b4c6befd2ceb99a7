package arigraph

import (
	"maps"
	"slices"
	"testing"
)

// house is a hand-built map:
//
//	room b
//	  |              (room b is north of room a)
//	room a -- hall   (hall is east of room a)
//
// room a has exits north, east, west; room b exits south and east; the hall
// exit west only. spatialEdge edges are written in both forms extractors use.
func house() *Graph {
	g := NewGraph()
	g.Add(
		tr("room a", "has exit", "north"),
		tr("room a", "has exit", "east"),
		tr("room a", "has exit", "west"),
		tr("room b", "has exit", "south"),
		tr("room b", "has unexplored exit", "east"),
		tr("hall", "has exit", "west"),
		tr("room b", "is north of", "room a"), // incoming to room a: explores room a's north
		tr("room a", "west of", "hall"),       // outgoing from room a: explores room a's east
		tr("key 1", "is in", "room a"),
	)
	return g
}

func TestUnexploredExits(t *testing.T) {
	g := house()
	tests := []struct {
		loc  string
		want []string
	}{
		{"room a", []string{"west"}},
		{"Room B", []string{"east"}}, // south leads to room a
		{"hall", nil},                // west leads to room a
		{"nowhere", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, e := range g.UnexploredExits(tc.loc) {
			got = append(got, e.Object)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("UnexploredExits(%q) = %v, want %v", tc.loc, got, tc.want)
		}
	}
	all := g.AllUnexploredExits()
	want := map[string][]string{"room a": {"west"}, "room b": {"east"}}
	if !maps.EqualFunc(all, want, slices.Equal) {
		t.Errorf("AllUnexploredExits = %v, want %v", all, want)
	}
}

func TestRoute(t *testing.T) {
	g := house()
	g.Add(tr("cellar", "is down of", "hall")) // cellar lies below the hall
	tests := []struct {
		from, to string
		want     []string
		ok       bool
	}{
		{"room a", "room a", []string{}, true},
		{"room a", "room b", []string{"north"}, true},
		{"room b", "hall", []string{"south", "east"}, true},
		{"hall", "room b", []string{"west", "north"}, true},
		{"room b", "cellar", []string{"south", "east", "down"}, true},
		{"cellar", "room a", []string{"up", "west"}, true},
		{"room a", "attic", nil, false},
	}
	for _, tc := range tests {
		got, ok := g.Route(tc.from, tc.to)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("Route(%q, %q) = %v, %v; want %v, %v", tc.from, tc.to, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRouteShortestOfTwo(t *testing.T) {
	// a square a-b-c-d-a plus a diagonal a-c: the route a->c takes the diagonal.
	g := NewGraph()
	g.Add(
		tr("b", "is east of", "a"), tr("c", "is north of", "b"),
		tr("d", "is west of", "c"), tr("a", "is south of", "d"),
		tr("c", "is northeast of", "a"),
	)
	if got, ok := g.Route("a", "c"); !ok || !slices.Equal(got, []string{"northeast"}) {
		t.Errorf("Route(a, c) = %v, %v; want [northeast]", got, ok)
	}
	if got, _ := g.Route("b", "d"); len(got) != 2 {
		t.Errorf("Route(b, d) = %v; want 2 steps", got)
	}
}

func TestUnsearchedReceptacles(t *testing.T) {
	g := NewGraph()
	g.Add(
		tr("room", "has receptacle", "cabinet 1"),
		tr("room", "has receptacle", "fridge 1"),
		tr("room", "has receptacle", "countertop 1"),
		tr("fridge 1", "is", "searched"),
		tr("apple 1", "is on", "countertop 1"),
	)
	if got, want := g.UnsearchedReceptacles(), []string{"cabinet 1", "countertop 1"}; !slices.Equal(got, want) {
		t.Errorf("UnsearchedReceptacles = %v, want %v", got, want)
	}
}

func TestDirection(t *testing.T) {
	for in, want := range map[string]string{"North": "north", "go e": "east", "to the west": "west", "up": "up", "kitchen": ""} {
		if got, _ := direction(in); got != want {
			t.Errorf("direction(%q) = %q, want %q", in, got, want)
		}
	}
}
