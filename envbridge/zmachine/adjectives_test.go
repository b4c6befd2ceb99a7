package zmachine

import (
	"slices"
	"testing"
)

// TestAdjectiveProperty: the property an Infocom game keeps its objects'
// adjectives in is found (version 3: adjective numbers; version 4 and
// after: dictionary addresses), and an Inform game has none.
func TestAdjectiveProperty(t *testing.T) {
	for _, c := range []struct {
		file  string
		prop  int
		bytes bool
	}{
		{"zork1.z5", 16, true},
		{"spellbrkr.z3", 30, true},
		{"trinity.z4", 49, false},
		{"anchor.z8", 0, false},
	} {
		t.Run(c.file, func(t *testing.T) {
			env, _ := playTo(t, c.file, 0)
			af := env.vm.adjFacts()
			if af.prop != c.prop || af.prop != 0 && af.bytes != c.bytes {
				t.Fatalf("adjective property %d (bytes %v), want %d (bytes %v)", af.prop, af.bytes, c.prop, c.bytes)
			}
		})
	}
}

// TestSingledOutByAdjective: Spellbreaker's cubes are all "cube"; the
// blorple spell reaches cubes out of view, so "blorple cube" is
// ambiguous even with one cube at hand. The cube carried is named by the
// adjective only it has ("hq cube"), and blorpling it leads where the
// walkthrough's "blorple 2" (the label written on it) does.
func TestSingledOutByAdjective(t *testing.T) {
	env, walk := playTo(t, "spellbrkr.z3", 62)
	if walk[62] != "blorple 2" {
		t.Fatalf("spellbrkr step 62 is %q", walk[62])
	}
	const want = "blorple hq cube"
	cands := env.candidates()
	if !slices.Contains(cands, want) {
		t.Fatalf("%d candidates lack %q: %q", len(cands), want, cands)
	}
	if slices.Contains(cands, "blorple cube") {
		t.Errorf("the ambiguous %q is a candidate", "blorple cube")
	}
	sr, err := env.search(1, []string{walk[62], want}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !sr.extraOK[0] || !sr.extraOK[1] || sr.extra[0] == sr.base || sr.extra[1] != sr.extra[0] {
		t.Errorf("%q does not lead where %q does", want, walk[62])
	}
}
