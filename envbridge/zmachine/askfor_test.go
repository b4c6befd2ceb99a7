package zmachine

import (
	"slices"
	"testing"
)

// TestAskForCandidates: a thing a character holds is asked for from him
// (sherlock: Sherman's pigeon), and asking changes the world.
func TestAskForCandidates(t *testing.T) {
	env, walk := playTo(t, "sherlock.z5", 108)
	t.Logf("walkthrough step 108: %q", walk[108])
	want := "ask sherman for pigeon"
	cands := env.candidates()
	if !slices.Contains(cands, want) {
		t.Fatalf("%d candidates lack %q", len(cands), want)
	}
	sr, err := env.search(1, []string{want}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !sr.extraOK[0] || sr.extra[0] == sr.base {
		t.Errorf("%q changes nothing", want)
	}
}
