package zmachine

import "testing"

// TestControlRetried: in Zork III's parapet, after "TURN DIAL TO 4" (the
// sundial, a thing of the room), "push button" refused in an earlier
// state is tried in its place, not put back at the end of the list (the
// dial's setting is no part of the object tree the refusal was kept
// with); after another command it is put back, and it changes the world.
func TestControlRetried(t *testing.T) {
	env, wt := playTo(t, "zork3.z5", 264)
	if wt[263] != "TURN DIAL TO 4" || wt[264] != "PRESS BUTTON" {
		t.Fatalf("zork3 walkthrough steps 263, 264 are %q, %q", wt[263], wt[264])
	}
	at := func() (int, candidate) {
		for i, c := range env.candidateList() {
			if c.text == "push button" {
				return i, c
			}
		}
		return -1, candidate{}
	}
	i, c := at()
	if i < 0 || c.key() == "" {
		t.Fatalf("push button: not a candidate with a refusal key (at %d)", i)
	}
	env.refused = map[string]bool{c.key(): true}
	if j, _ := at(); j != i {
		t.Errorf("push button refused before, after %q: candidate %d, want %d (tried in its place)", env.lastAction, j, i)
	}
	env.lastAction = "READ BOOK"
	if j, _ := at(); j <= i {
		t.Errorf("push button refused before, after %q: candidate %d, want it put back after %d", env.lastAction, j, i)
	}
	env.lastAction = wt[263]
	r, err := env.search(1, []string{"push button"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !r.extraOK[0] || r.extra[0] == r.base {
		t.Errorf("push button after %q changes nothing", wt[263])
	}
}
