package zmachine

import (
	"slices"
	"strings"
	"testing"
)

// TestRepeatLast: after Sherlock's first "BLOW WHISTLE" (step 51), the
// command is tried again among the first candidates (the list is full
// of core commands before "blow" is made), and it changes the world
// again (the second blast calls the cab); a meta command played last
// ("again") is not repeated.
func TestRepeatLast(t *testing.T) {
	env, wt := playTo(t, "sherlock.z5", 52)
	if wt[51] != "BLOW WHISTLE" || wt[52] != "BLOW WHISTLE" {
		t.Fatalf("sherlock walkthrough steps 51, 52 are %q, %q", wt[51], wt[52])
	}
	cs := env.candidates()
	if i := slices.Index(cs, "blow whistle"); i < 0 || i > 30 {
		t.Errorf("after %q: blow whistle is candidate %d, want one of the first 30", wt[51], i)
	}
	r, err := env.search(1, []string{"blow whistle"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !r.extraOK[0] || r.extra[0] == r.base {
		t.Errorf("blow whistle again changes nothing")
	}
	env.lastAction = "AGAIN"
	if slices.Contains(env.candidates(), "again") {
		t.Errorf("the meta command again made a candidate")
	}
}

// FuzzRepeatCandidate: the command played last, which an agent writes,
// gives at most one candidate: lower case, single-spaced, never a meta
// command, and no panic.
func FuzzRepeatCandidate(f *testing.F) {
	for _, s := range []string{"BLOW WHISTLE", "  again ", "", "save", "Take  the LAMP", "\t", "ü ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, last string) {
		e := &Env{lastAction: last}
		var got []string
		e.repeatCandidate(func(c string) { got = append(got, c) })
		if len(got) > 1 {
			t.Fatalf("%d candidates from %q", len(got), last)
		}
		for _, c := range got {
			if c == "" || c != strings.ToLower(c) || c != strings.Join(strings.Fields(c), " ") || metaVerbs[strings.Fields(c)[0]] {
				t.Errorf("candidate %q from %q", c, last)
			}
		}
	})
}
