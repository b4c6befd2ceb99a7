package zmachine

import (
	"testing"
)

// TestAskForCandidates: a thing a character holds is asked for from him
// (sherlock: Sherman's pigeon), and asking changes the world.
func TestAskForCandidates(t *testing.T) {
	env, walk := playTo(t, "sherlock.z5", 108)
	t.Logf("walkthrough step 108: %q", walk[108])
	want := "ask sherman for pigeon"
	wantChange(t, env, want)
}
