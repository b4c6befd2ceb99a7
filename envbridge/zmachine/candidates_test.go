package zmachine

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/samem/trainer/internal/testenv"
)

// playTo opens a game of the Jericho suite and plays the first n commands
// of its walkthrough; it skips when the game or its walkthrough is absent.
func playTo(t *testing.T, file string, n int) (*Env, []string) {
	t.Helper()
	dir := filepath.Join(gamesDir(t), "jericho")
	games, ok, err := ReadJericho(filepath.Join(dir, JerichoFile))
	if err != nil {
		t.Fatal(err)
	}
	testenv.Need(t, ok, fmt.Sprintf("%s in %s (Jericho's walkthroughs)", JerichoFile, dir))
	jg, ok := games[file]
	testenv.Need(t, ok && len(jg.Walkthrough) > n, fmt.Sprintf("%s's walkthrough in %s", file, JerichoFile))
	_, env, _ := openFirst(t, filepath.Join(dir, file), 100000)
	for _, c := range jg.Walkthrough[:n] {
		if _, err := env.Step(ctxT(t), c); err != nil {
			t.Fatalf("%s %q: %v", file, c, err)
		}
	}
	return env, jg.Walkthrough
}

// TestCandidateKinds: in the state before a walkthrough step of each kind,
// the candidates hold the step's command as the search writes it, and that
// command changes the world (it is a candidate worth trying).
func TestCandidateKinds(t *testing.T) {
	for _, c := range []struct {
		name, file string
		step       int
		want       string
	}{
		{"all from", "905.z5", 10, "take all from table"},
		{"push in a direction", "inhumane.z5", 117, "push coffin north"},
		{"order", "karn.z5", 94, "k9, follow me"},
		{"topic", "anchor.z8", 180, "ask proprietor about amulet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, walk := playTo(t, c.file, c.step)
			t.Logf("walkthrough step %d: %q", c.step, walk[c.step])
			cands := env.candidates()
			if !slices.Contains(cands, c.want) {
				t.Fatalf("%d candidates lack %q: %q", len(cands), c.want, cands)
			}
			sr, err := env.search(1, []string{c.want}, true)
			if err != nil {
				t.Fatal(err)
			}
			if !sr.extraOK[0] || sr.extra[0] == sr.base {
				t.Errorf("%q changes nothing", c.want)
			}
		})
	}
}
