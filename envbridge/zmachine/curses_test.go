package zmachine

import (
	"slices"
	"strings"
	"testing"
)

// TestPluralCandidates: in Curses the rods, each named "rod", are taken
// from the rucksack and put into the arc's sockets by their plural
// ("get rods from sack", "put rods in socket"); the search makes both
// commands, and each changes the world.
func TestPluralCandidates(t *testing.T) {
	for _, c := range []struct {
		step       int
		walk, want string
	}{
		{743, "get rods from sack", "take rods from rucksack"},
		{744, "put rods in socket", "put rods in arc"},
	} {
		t.Run(c.want, func(t *testing.T) {
			env, walk := playTo(t, "curses.z5", c.step)
			if walk[c.step] != c.walk {
				t.Fatalf("curses step %d is %q, want %q", c.step, walk[c.step], c.walk)
			}
			wantChange(t, env, c.want)
		})
	}
}

// TestTieAfterOwnVerbs: with a full rucksack carried, tying one carried
// thing to another (or to a thing inside the rucksack) comes after the
// game's own verbs about what was just taken: Curses' "strike it" after
// "get rod of returning" is candidate "strike returning", which comes
// before every such tying command, and those are still made.
func TestTieAfterOwnVerbs(t *testing.T) {
	env, walk := playTo(t, "curses.z5", 274)
	if walk[274] != "strike it" {
		t.Fatalf("curses step 274 is %q", walk[274])
	}
	cands := env.candidates()
	strike := slices.Index(cands, "strike returning")
	if strike < 0 {
		t.Fatalf("no %q among %d candidates", "strike returning", len(cands))
	}
	carried := carriedNames(t, env)
	for i, c := range cands[:strike] {
		if f := strings.Fields(c); len(f) == 4 && f[0] == "tie" && f[2] == "to" && carried[f[3]] {
			t.Errorf("%q (candidate %d) before %q (%d)", c, i, "strike returning", strike)
		}
	}
	// Where the list has room, they are made, after the game's own verbs.
	env, _ = playTo(t, "curses.z5", 30)
	cands, carried = env.candidates(), carriedNames(t, env)
	lastOwn, firstTie := -1, -1
	for i, c := range cands {
		f := strings.Fields(c)
		if len(f) == 2 && f[0] == "strike" {
			lastOwn = i
		}
		if len(f) == 4 && f[0] == "tie" && f[2] == "to" && carried[f[3]] && firstTie < 0 {
			firstTie = i
		}
	}
	if firstTie < 0 || lastOwn < 0 || firstTie < lastOwn {
		t.Errorf("the first tying of carried things is candidate %d, the last %q %d, of %d: want both, the tying after",
			firstTie, "strike OBJ", lastOwn, len(cands))
	}
}

// carriedNames are the names of what env's player holds.
func carriedNames(t *testing.T, env *Env) map[string]bool {
	t.Helper()
	w, err := env.World()
	if err != nil {
		t.Fatal(err)
	}
	carried := map[string]bool{}
	_, held, _, _ := objectsInView(w, env.namer(env.vm.dictionary()), env.vm.localGlobals(w))
	for _, h := range held {
		carried[h] = true
	}
	return carried
}

// TestInformSynonymsOlderHeader: Curses' header names no Inform compiler,
// but its objects have the library's attributes: of the library's
// synonyms ("climb X", "climb up X", "climb over X") only the first is a
// candidate.
func TestInformSynonymsOlderHeader(t *testing.T) {
	env, _ := playTo(t, "curses.z5", 274)
	if env.vm.dictionary().inform {
		t.Fatal("curses' header names an Inform compiler; the test needs one that does not")
	}
	climb, other := 0, 0
	for _, c := range env.candidates() {
		switch {
		case strings.HasPrefix(c, "climb over "), strings.HasPrefix(c, "climb up "):
			other++
		case strings.HasPrefix(c, "climb "):
			climb++
		}
	}
	if climb == 0 || other > 0 {
		t.Errorf("%d %q and %d %q or %q candidates, want some and none", climb, "climb X", other, "climb over X", "climb up X")
	}
}

// TestStaticPushedFirst: a statue fixed in place is pushed in each
// direction before any thing is put into or onto it (Curses' Demeter,
// "push demeter northwest").
func TestStaticPushedFirst(t *testing.T) {
	env, walk := playTo(t, "curses.z5", 429)
	if walk[429] != "push demeter northwest" {
		t.Fatalf("curses step 429 is %q", walk[429])
	}
	cands := env.candidates()
	push := slices.Index(cands, "push demeter northwest")
	if push < 0 {
		t.Fatalf("no %q among %d candidates", "push demeter northwest", len(cands))
	}
	for i, c := range cands[:push] {
		if f := strings.Fields(c); len(f) == 4 && f[0] == "put" && f[3] == "demeter" {
			t.Errorf("%q (candidate %d) before %q (%d)", c, i, "push demeter northwest", push)
		}
	}
}
