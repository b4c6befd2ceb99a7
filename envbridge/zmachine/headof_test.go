package zmachine

import (
	"slices"
	"strings"
	"testing"
)

// TestHeadOfName: in Trinity the bag of crumbs is named "bag" (its
// routine reads "drop crumbs" as scattering them: the bag stays), and
// dropping it by that name changes the world as the walkthrough's step 66 does.
func TestHeadOfName(t *testing.T) {
	env, wt := playTo(t, "trinity.z4", 66)
	if wt[66] != "drop bag" {
		t.Fatalf("trinity walkthrough step 66 is %q", wt[66])
	}
	// The bag is named by its head word, with an adjective where another
	// bag shares the noun ("drop old bag"), never by "crumbs".
	i := slices.IndexFunc(env.candidates(), func(c string) bool {
		return strings.HasPrefix(c, "drop ") && strings.HasSuffix(c, " bag")
	})
	if i < 0 {
		t.Fatalf("before %q: no drop of the bag made", wt[66])
	}
	drop := env.candidates()[i]
	if slices.Contains(env.candidates(), "drop crumbs") {
		t.Errorf("before %q: the bag also named by its crumbs", wt[66])
	}
	r, err := env.search(1, []string{drop, wt[66]}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !r.extraOK[0] || r.extra[0] == r.base || r.extra[0] != r.extra[1] {
		t.Errorf("%q does not lead where the walkthrough's %q does", drop, wt[66])
	}
}

// FuzzHeadOf: headOf reads a short name the story file holds: any name
// and word list give nil or words of the name before its " of ", and
// no panic.
func FuzzHeadOf(f *testing.F) {
	for _, s := range []string{"bag of crumbs", "piece of paper", " of ", "of of of", "bag of", "crumpled piece of paper", ""} {
		f.Add(s, "bag sack crumbs paper piece")
	}
	d := &dictionary{words: map[string]byte{}, res: 9}
	for _, w := range []string{"bag", "sack", "crumbs", "paper", "piece", "crumpled", "of"} {
		d.words[w] = 0x80
	}
	f.Fuzz(func(t *testing.T, short, known string) {
		got := headOf(d, short, strings.Fields(known))
		if got == nil {
			return
		}
		i := ofAt(short)
		if i < 0 || !strings.EqualFold(short[i:i+4], " of ") {
			t.Fatalf("%q: %q from a name without \" of \"", short, got)
		}
		head := d.nameWords(short[:i])
		if !slices.Equal(got, head) {
			t.Errorf("%q: %q, want nil or %q", short, got, head)
		}
	})
}
