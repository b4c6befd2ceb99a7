package zmachine

import (
	"slices"
	"testing"
)

// TestDropAllOfAKind: with cubes and other things carried, "drop all
// cubes" (the plural the cubes share) is a candidate and reaches a world
// "drop all" does not (the book and the zipper stay carried).
func TestDropAllOfAKind(t *testing.T) {
	env, walk := playTo(t, "spellbrkr.z3", 359)
	if walk[359] != "drop all cubes" {
		t.Fatalf("spellbrkr step 359 is %q", walk[359])
	}
	const want = "drop all cubes"
	cands := env.candidates()
	if !slices.Contains(cands, want) {
		t.Fatalf("%d candidates lack %q", len(cands), want)
	}
	sr, err := env.search(1, []string{want, "drop all"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !sr.extraOK[0] || !sr.extraOK[1] || sr.extra[0] == sr.base || sr.extra[0] == sr.extra[1] {
		t.Errorf("%q changes nothing or does what %q does", want, "drop all")
	}
}

// TestPluralsOf: a cube is known by "cube" and "cubes"; its plural is
// "cubes"; a thing with no plural among its words has none.
func TestPluralsOf(t *testing.T) {
	env, _ := playTo(t, "spellbrkr.z3", 0)
	vg := env.vm
	var cube, other int
	for id := 1; id <= vg.m.NumObjects(); id++ {
		ws := vg.objectWords(id)
		switch {
		case cube == 0 && slices.Contains(ws, "cube") && slices.Contains(ws, "cubes"):
			cube = id
		case other == 0 && slices.Contains(ws, "zipper"):
			other = id
		}
	}
	if cube == 0 || other == 0 {
		t.Fatalf("no cube (%d) or zipper (%d)", cube, other)
	}
	if got := vg.pluralsOf(cube); !slices.Equal(got, []string{"cubes"}) {
		t.Errorf("a cube's plurals are %q", got)
	}
	if got := vg.pluralsOf(other); len(got) != 0 {
		t.Errorf("the zipper's plurals are %q", got)
	}
}
