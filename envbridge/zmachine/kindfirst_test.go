package zmachine

import "testing"

// TestKindFirst: in Afflicted's refrigerator, where a search plays some
// 25 candidates, "open caldron" (the one closed container in view) comes
// right after the takes and drops, before the commands of the verbs that
// fit every thing; not where the search is not starved.
func TestKindFirst(t *testing.T) {
	env, _ := playTo(t, "afflicted.z8", 24)
	env.played = 0 // not starved
	cl := env.candidateList()
	open, examine := indexOf(cl, "open caldron"), indexOf(cl, "examine shelf")
	if open < 0 || examine < 0 || open < examine {
		t.Fatalf("not starved: open caldron is candidate %d, examine shelf %d", open, examine)
	}
	env.played = starvedPlayed - 1
	cl = env.candidateList()
	open, examine = indexOf(cl, "open caldron"), indexOf(cl, "examine shelf")
	drop := indexOf(cl, "drop all")
	if open < 0 || open < drop || examine >= 0 && open > examine {
		t.Errorf("starved: open caldron is candidate %d, drop all %d, examine shelf %d", open, drop, examine)
	}
	for _, c := range []string{"open shelf", "wear caldron", "eat shelf"} {
		if i := indexOf(cl, c); i >= 0 && i < examine {
			t.Errorf("%q (no thing of its verb's kind) is candidate %d, before examine shelf", c, i)
		}
	}
}
