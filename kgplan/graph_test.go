package kgplan

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge/household"
)

func newGraph(t testing.TB) *Graph {
	t.Helper()
	d, err := Household()
	if err != nil {
		t.Fatal(err)
	}
	return NewGraph(d)
}

func TestDomainParses(t *testing.T) {
	d, err := Household()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"goto", "open", "close", "take", "put", "clean", "heat", "cool", "use"} {
		if _, ok := d.Action(a); !ok {
			t.Errorf("household.pddl has no action %s", a)
		}
	}
	for _, p := range []string{"at", "in", "holding", "handempty", "openable", "opened", "clean", "hot", "cool", "toggled"} {
		if _, ok := d.Predicate(p); !ok {
			t.Errorf("household.pddl has no predicate %s", p)
		}
	}
	// Every class the household world uses is a type.
	for _, class := range []string{"apple", "mug", "cabinet", "sinkbasin", "desklamp", "floorlamp", "countertop"} {
		if !d.HasType(class) {
			t.Errorf("household.pddl has no type %s", class)
		}
	}
}

func TestVerify(t *testing.T) {
	g := newGraph(t)
	if err := g.Apply(Update{Entities: map[string]string{"box 1": "receptacle"}, Add: []Triplet{{"box 1", "opened", True}}}, -1, "test"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		u    Update
		want string // substring of the violation; "" means valid
	}{
		{"valid relation", Update{Add: []Triplet{{"apple 1", "in", "countertop 1"}}}, ""},
		{"valid property", Update{Add: []Triplet{{"fridge 1", "opened", False}}}, ""},
		{"valid agent", Update{Add: []Triplet{{"you", "at", "cabinet 2"}}}, ""},
		{"registered generic type", Update{Add: []Triplet{{"apple 1", "in", "box 1"}}}, ""},
		{"unknown predicate", Update{Add: []Triplet{{"apple 1", "on", "countertop 1"}}}, `unknown predicate "on"`},
		{"property of binary", Update{Add: []Triplet{{"apple 1", "in", True}}}, "wrong arity"},
		{"relation of unary", Update{Add: []Triplet{{"fridge 1", "opened", "apple 1"}}}, "wrong arity"},
		{"wrong type object", Update{Add: []Triplet{{"apple 1", "in", "tomato 2"}}}, "wrong type"},
		{"wrong type subject", Update{Add: []Triplet{{"cabinet 1", "clean", True}}}, "wrong type"},
		{"unknown entity", Update{Add: []Triplet{{"spaceship 1", "in", "cabinet 1"}}}, `unknown entity "spaceship 1"`},
		{"bad remove", Update{Remove: []Triplet{{"you", "standing", "cabinet 1"}}}, "unknown predicate"},
		{"empty", Update{Add: []Triplet{{"", "in", "cabinet 1"}}}, "empty part"},
		{"bad entity type", Update{Entities: map[string]string{"x 1": "spaceship"}}, "unknown type"},
		{"conflicting type", Update{Entities: map[string]string{"box 1": "portable"}}, "conflicts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := g.Verify(tt.u)
			if tt.want == "" {
				if err != nil {
					t.Errorf("Verify = %v, want nil", err)
				}
				return
			}
			var ve *VerifyError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidUpdate) {
				t.Fatalf("Verify = %v, want a *VerifyError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Verify = %v, want it to mention %q", err, tt.want)
			}
			before := g.Triplets()
			if err := g.Apply(tt.u, 0, "test"); err == nil {
				t.Errorf("Apply of an invalid update succeeded")
			}
			if !reflect.DeepEqual(before, g.Triplets()) {
				t.Errorf("Apply of an invalid update changed the graph")
			}
		})
	}
}

func TestApplyAndRetrieve(t *testing.T) {
	g := newGraph(t)
	steps := []Update{
		{Add: []Triplet{{"you", "at", "middle-of-room"}, {"cabinet 1", "opened", False}, {"countertop 1", "opened", True}}},
		{Add: []Triplet{{"apple 1", "in", "countertop 1"}, {"mug 1", "in", "cabinet 1"}, {"pen 1", "in", "cabinet 1"}}},
		{Add: []Triplet{{"cabinet 1", "opened", True}}}, // replaces the false value
		{Remove: []Triplet{{"you", "at", "middle-of-room"}}, Add: []Triplet{{"you", "at", "cabinet 1"}}},
	}
	for i, u := range steps {
		if err := g.Apply(u, i, "test"); err != nil {
			t.Fatalf("Apply %d: %v", i, err)
		}
	}
	if g.Has(Triplet{"cabinet 1", "opened", False}) || !g.Has(Triplet{"cabinet 1", "opened", True}) {
		t.Errorf("property value not replaced: %v", g.Triplets())
	}
	if n := len(g.History()); n != 10 {
		t.Errorf("history has %d changes, want 10: %v", n, g.History())
	}
	tests := []struct {
		seeds []string
		depth int
		want  []string
	}{
		{[]string{"mug 1"}, 1, []string{"mug 1 -> in -> cabinet 1"}},
		{[]string{"mug 1"}, 2, []string{"cabinet 1 -> opened -> true", "mug 1 -> in -> cabinet 1", "pen 1 -> in -> cabinet 1", "you -> at -> cabinet 1"}},
		{[]string{"apple 1"}, 2, []string{"apple 1 -> in -> countertop 1", "countertop 1 -> opened -> true"}},
		{[]string{"nobody"}, 3, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, tr := range g.Retrieve(tt.seeds, tt.depth) {
			got = append(got, tr.String())
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Retrieve(%v, %d) = %q, want %q", tt.seeds, tt.depth, got, tt.want)
		}
	}
}

var _ = household.CanHold
