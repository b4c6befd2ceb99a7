package zmachine

import (
	"slices"
	"testing"
)

// TestVehicleMoves: in Sherlock's boat on the Thames (step 303, "PADDLE
// WEST") the boat verbs are tried with the directions, and "paddle west"
// changes the world where "west" changes nothing; in a street (step 51)
// none is made.
func TestVehicleMoves(t *testing.T) {
	env, wt := playTo(t, "sherlock.z5", 51)
	if slices.ContainsFunc(env.candidates(), func(c string) bool { return c == "paddle west" || c == "row west" }) {
		t.Errorf("before %q (in a street): boat moves made", wt[51])
	}
	env, wt = playTo(t, "sherlock.z5", 303)
	if wt[303] != "PADDLE WEST" {
		t.Fatalf("sherlock walkthrough step 303 is %q", wt[303])
	}
	cs := env.candidates()
	for _, c := range []string{"paddle west", "row west"} {
		if i := slices.Index(cs, c); i < 0 || i > 100 {
			t.Errorf("before %q: %q is candidate %d, want one of the first 100", wt[303], c, i)
		}
	}
	r, err := env.search(1, []string{"paddle west", "west"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !r.extraOK[0] || r.extra[0] == r.base {
		t.Errorf("paddle west aboard changes nothing")
	}
	if r.extraOK[1] && r.extra[1] != r.base {
		t.Errorf("west aboard changes the world: the test's premise is gone")
	}
}
