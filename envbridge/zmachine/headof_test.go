package zmachine

import (
	"slices"
	"testing"
)

// TestHeadOfName: in Trinity the bag of crumbs is named "bag" (its
// routine reads "drop crumbs" as scattering them: the bag stays), and
// "drop bag" changes the world as the walkthrough's step 66 does.
func TestHeadOfName(t *testing.T) {
	env, wt := playTo(t, "trinity.z4", 66)
	if wt[66] != "drop bag" {
		t.Fatalf("trinity walkthrough step 66 is %q", wt[66])
	}
	if !slices.Contains(env.candidates(), "drop bag") {
		t.Fatalf("before %q: drop bag not made", wt[66])
	}
	r, err := env.search(1, []string{"drop bag", wt[66]}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !r.extraOK[0] || r.extra[0] == r.base || r.extra[0] != r.extra[1] {
		t.Errorf("drop bag does not lead where the walkthrough's %q does", wt[66])
	}
}
