package zmachine

import (
	"slices"
	"strings"
	"testing"
)

// TestCapitalRuns: the runs of two or more words in capitals, cut by
// lower case and by punctuation after a word; a word alone in capitals is
// no run.
func TestCapitalRuns(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"[Grunk can try ASK GNOME ABOUT LIGHTNING or SHOW HAT TO GNOME. And probably lots of other thing too.]",
			[]string{"ask gnome about lightning", "show hat to gnome"}},
		{"You could (TALK TO GUARD) or \"GIVE COIN\".", []string{"talk to guard", "give coin"}},
		{"A word on the cloud: KALUZE.", nil},
		{"WEST OF HOUSE\nYou are standing in an open field.", []string{"west of house"}},
		{"TAKE LAMP, OPEN DOOR", []string{"take lamp", "open door"}},
		{"", nil},
	} {
		if got := capitalRuns(c.text); !slices.Equal(got, c.want) {
			t.Errorf("capitalRuns(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func FuzzCapitalRuns(f *testing.F) {
	f.Add("[Grunk can try ASK GNOME ABOUT LIGHTNING or SHOW HAT TO GNOME.]")
	f.Add("X Y. Z")
	f.Fuzz(func(t *testing.T, text string) {
		for _, r := range capitalRuns(text) {
			ws := strings.Fields(r)
			if len(ws) < 2 {
				t.Fatalf("run %q of fewer than two words from %q", r, text)
			}
			if strings.ToLower(r) != r {
				t.Fatalf("run %q not lowercased", r)
			}
		}
	})
}

// TestSuggestedCommands: Lost Pig before "ASK GNOME ABOUT FIRE": the text
// suggests "ASK GNOME ABOUT MAKING FIRE" among others; each the dictionary
// reads is a candidate right after the moves, and "ask gnome about making
// fire" leads to the walkthrough's world, which the search lists. Without
// the rule the command comes 33rd, past the budget.
func TestSuggestedCommands(t *testing.T) {
	env, walk := playTo(t, "lostpig.z8", 66)
	if walk[66] != "ASK GNOME ABOUT FIRE" {
		t.Fatalf("lostpig's step 66 is %q, not the one this test is about", walk[66])
	}
	sug := suggestedCommands(env.vm.dictionary(), env.lastText)
	if !slices.Contains(sug, "ask gnome about making fire") || !slices.Contains(sug, "show hat to gnome") {
		t.Fatalf("suggested %q", sug)
	}
	cands := env.candidates()
	if i := slices.Index(cands, "ask gnome about making fire"); i < 0 || i > len(validMoves)+len(sug) {
		t.Errorf("\"ask gnome about making fire\" is candidate %d: %q", i, cands[:min(len(cands), 40)])
	}
	r, err := env.search(1, []string{walk[66]}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !r.extraOK[0] || !slices.Contains(r.keys, r.extra[0]) {
		t.Errorf("the walkthrough's world is not listed: %q", r.actions)
	}
}
