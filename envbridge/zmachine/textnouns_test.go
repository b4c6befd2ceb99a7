package zmachine

import (
	"slices"
	"strings"
	"testing"
)

// TestTextNounsInView: before Goldilocks presses the chair's button (step
// 175) the text speaks of "a pair of frozen fishcakes"; the only thing
// called frozen is a packet of chops not yet in play, so "frozen" is no
// thing to try ("examine frozen" is not made) while the spectacles are.
func TestTextNounsInView(t *testing.T) {
	env, wt := playTo(t, "gold.z5", 175)
	if !strings.Contains(env.lastText, "pair of frozen") {
		t.Fatalf("before %q the text does not speak of a pair: %q", wt[175], env.lastText)
	}
	cs := env.candidates()
	if slices.Contains(cs, "examine frozen") {
		t.Errorf("before %q: examine frozen made, though nothing frozen is in play", wt[175])
	}
	if !slices.Contains(cs, "drop spectacles") {
		t.Errorf("before %q: drop spectacles not made", wt[175])
	}
}
