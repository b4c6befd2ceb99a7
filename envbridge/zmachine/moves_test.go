package zmachine

import (
	"slices"
	"strings"
	"testing"
)

// indexOf is the position of the candidate c in cl, or -1.
func indexOf(cl []candidate, c string) int {
	return slices.IndexFunc(cl, func(x candidate) bool { return x.text == c })
}

// TestRefusedMovesAfterTakes: in Lost Pig's statue room, where a search
// plays some 25 candidates, the moves an earlier search found refused in
// the room as it is ("Grunk only see way to go back south from here.")
// come after the takes and drops; "south", never refused, stays first; and
// once a thing of the room that the key holds changes, "north" is back in
// its place.
func TestRefusedMovesAfterTakes(t *testing.T) {
	env, _ := playTo(t, "lostpig.z8", 26)
	env.played = starvedPlayed - 1 // an Inform 7 game: the last search starved
	cl := env.candidateList()
	north := cl[indexOf(cl, "north")]
	if !strings.HasPrefix(north.tail, "|move#") {
		t.Fatalf("north's refusal key %q: not the room's move state", north.tail)
	}
	if i := indexOf(cl, "north"); i != 0 {
		t.Fatalf("never refused, north is candidate %d, not the first", i)
	}
	env.refused = map[string]bool{north.key(): true}
	cl = env.candidateList()
	if i := indexOf(cl, "south"); i != 0 {
		t.Errorf("south is candidate %d, not the first", i)
	}
	n, take := indexOf(cl, "north"), indexOf(cl, "take hat")
	if take < 0 || n < take {
		t.Errorf("refused, north is candidate %d, before the take of the hat (%d)", n, take)
	}
	if s := indexOf(cl, "examine suit"); s >= 0 && n > s {
		t.Errorf("refused, north is candidate %d, after the things' commands (examine suit %d)", n, s)
	}
	// not starved: the moves come first, refused or not
	env.played = 0
	if cl = env.candidateList(); indexOf(cl, "north") != 0 {
		t.Errorf("not starved, north is candidate %d, not the first", indexOf(cl, "north"))
	}
}

// TestToolVerbRetried: in Anchorhead's library basement, with the key to
// the drawer carried, "unlock drawer" refused before any thing carried
// now was carried comes right after the takes and drops, before its own
// place among the drawer's commands; refused with everything carried now
// already carried once, it is among the refusals at the end.
func TestToolVerbRetried(t *testing.T) {
	env, wt := playTo(t, "anchor.z8", 370)
	if wt[370] != "Unlock drawer" {
		t.Fatalf("step 370 is %q, not \"Unlock drawer\"", wt[370])
	}
	cl := env.candidateList()
	i := indexOf(cl, "unlock drawer")
	if i < 0 {
		t.Fatal("\"unlock drawer\" is no candidate")
	}
	k := cl[i].key()
	if !strings.HasSuffix(k, heldMark) {
		t.Fatalf("unlock's refusal key %q does not end with %q", k, heldMark)
	}
	if len(env.everHeld) == 0 {
		t.Fatal("nothing carried in the episode")
	}
	env.refused = map[string]bool{k: true}
	env.refusedHeld = map[string][]int{k: nil} // refused before anything was carried
	cl = env.candidateList()
	retried := indexOf(cl, "unlock drawer")
	env.refusedHeld[k] = slices.Clone(env.everHeld) // nothing new since
	cl = env.candidateList()
	back := indexOf(cl, "unlock drawer")
	if retried < 0 || retried >= i || back <= i {
		t.Errorf("\"unlock drawer\" is candidate %d never refused, %d refused with less carried, %d refused with as much", i, retried, back)
	}
	if drop := indexOf(cl, "drop all"); drop < 0 || retried < drop {
		t.Errorf("retried, \"unlock drawer\" is candidate %d, before \"drop all\" (%d)", retried, drop)
	}
}
