package envbridge

import (
	"slices"
	"testing"
)

// Fill instantiates the templates of at most one object with each object,
// keeps those of none, leaves out two-object templates and the skipped
// forms, and stops at the bound.
func TestFill(t *testing.T) {
	tpl := []string{"look around", "open OBJ", "move OBJ to OBJ", "focus on OBJ", "go LOC", "wait1"}
	got := Fill(tpl, []string{"door", "pot"}, []string{"focus on", "wait"}, 0)
	want := []string{"look around", "open door", "open pot", "go door", "go pot"}
	if !slices.Equal(got, want) {
		t.Errorf("Fill = %q, want %q", got, want)
	}
	if got := Fill(tpl, nil, nil, 0); !slices.Equal(got, []string{"look around", "wait1"}) {
		t.Errorf("Fill without objects = %q, want the templates of no object", got)
	}
	if got := Fill(tpl, []string{"door", "pot"}, nil, 2); len(got) != 2 {
		t.Errorf("Fill bounded by 2 = %q", got)
	}
	if Templates(StyleScience) == nil || Templates(StyleHousehold) != nil || Templates(StyleFiction) != nil {
		t.Errorf("Templates: only the science style has its own")
	}
}
