package zmachine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/testenv"
)

// behaveGame compiles testdata/behave.inf (version 5) into a temporary
// directory.
func behaveGame(t *testing.T) string {
	t.Helper()
	inform, err := exec.LookPath("inform6")
	testenv.Need(t, err == nil, "inform6 (apt-get install inform6-compiler inform6-library)")
	lib := "/usr/share/inform6/library"
	_, err = os.Stat(filepath.Join(lib, "parser.h"))
	testenv.Need(t, err == nil, "the Inform 6 library at "+lib+" (apt-get install inform6-library)")
	src, err := filepath.Abs("testdata/behave.inf")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "behave.z5")
	if b, err := exec.Command(inform, "-v5", "+"+lib, src, out).CombinedOutput(); err != nil {
		t.Fatalf("inform6: %v\n%s", err, b)
	}
	return out
}

// behaveBinding is the binding a user would write for behave.z5: its score
// in its own words, and its own ending banner as a win.
func behaveBinding(t *testing.T, file string) []*Binding {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	key := storyKey(int(b[2])<<8|int(b[3]), string(b[0x12:0x18]), uint16(b[0x1c])<<8|uint16(b[0x1d]))
	bs, err := ParseBindings([]byte(fmt.Sprintf(`{"games": [{"name": "behave", "key": %q, "intro": ["verbose"],
		"score": {"source": "wording", "pattern": "You have (?P<score>\\d+) gold marks"},
		"max_score": 7, "win": ["The treasure is yours"]}]}`, key)))
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// TestBehaviours plays each behaviour of behave.inf in-process; none may
// cost a timeout (there is none: a key the game ignores is answered at once).
func TestBehaviours(t *testing.T) {
	file := behaveGame(t)
	type step struct {
		action string
		want   []string // substrings of the observation
		score  float64
		done   bool
		won    bool
	}
	cases := []struct {
		name     string
		bindings bool
		steps    []step
	}{
		{"menu", false, []step{
			{"help", []string{"HELP MENU", "1: About this game", menuNote}, 0, false, false},
			{"x", []string{"did not answer that key", menuNote}, 0, false, false},
			{"1", []string{"This game tests the driver.", menuNote}, 0, false, false},
			{"q", []string{"You leave the menu."}, 0, false, false},
			{"take coin", []string{"Taken."}, 5, false, false},
		}},
		// A pause after the opening is the agent's: its next action is
		// typed as keys, the first answers it and the rest is dropped when
		// the game reads a line again (as Jericho's and dfrotz's terminals).
		{"mid-game key wait", false, []step{
			{"rest", []string{"You sit down to rest. [Press a key]", menuNote}, 0, false, false},
			{"take coin", []string{"You feel rested."}, 0, false, false},
			{"take coin", []string{"Taken."}, 5, false, false},
		}},
		{"yes/no question", false, []step{
			{"leap", []string{"Do you really want to jump?"}, 0, false, false},
			{"no", []string{"You stay put."}, 0, false, false},
			{"leap", []string{"Do you really want to jump?"}, 0, false, false},
			{"yes", []string{"You jump on the spot."}, 0, false, false},
		}},
		{"brief re-entry", false, []step{
			{"north", []string{"Garden", "A green garden with a heavy bench."}, 0, false, false},
			{"south", []string{"Hall", "A plain hall with a stone floor."}, 0, false, false},
			{"north", []string{"Garden", "A green garden with a heavy bench."}, 0, false, false},
		}},
		// A banner of the game's own words is no verdict, but the game
		// ends with every point it has to give (20 of 20): won.
		{"status-line score, an ending at the maximum", false, []step{
			{"take coin", []string{"Taken. You have 7 gold marks."}, 5, false, false},
			{"north", []string{"Garden"}, 5, false, false},
			{"push bench", []string{"The bench slides away", "*** The treasure is yours ***", "RESTART"}, 20, true, true},
		}},
		{"custom score wording and ending banner", true, []step{
			{"take coin", []string{"Taken. You have 7 gold marks."}, 7, false, false},
			{"north", []string{"Garden"}, 7, false, false},
			{"push bench", []string{"*** The treasure is yours ***"}, 7, true, true},
		}},
		{"quit after the last move", false, []step{
			{"take coin", []string{"Taken."}, 5, false, false},
			{"finish", []string{"Farewell."}, 5, true, false},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{}
			if c.bindings {
				cfg.Bindings = behaveBinding(t, file)
			}
			s, err := NewSuite(ctxT(t), cfg, file)
			if err != nil {
				t.Fatal(err)
			}
			ts, _ := s.Tasks(envbridge.SplitTrain)
			env, obs := openReset(t, s, ts[0])
			// The opening waits for a key: the driver presses it.
			if !strings.Contains(obs.Text, "Press any key to begin.") || !strings.Contains(obs.Text, "You want the treasure.") ||
				!strings.Contains(obs.Text, "A plain hall with a stone floor.") || strings.Contains(obs.Text, menuNote) {
				t.Fatalf("opening %q", obs.Text)
			}
			for i, st := range c.steps {
				res, err := env.Step(ctxT(t), st.action)
				if err != nil {
					t.Fatalf("step %d %q: %v", i+1, st.action, err)
				}
				for _, w := range st.want {
					if !strings.Contains(res.Text, w) {
						t.Errorf("step %d %q: %q lacks %q", i+1, st.action, res.Text, w)
					}
				}
				if res.Score != st.score || res.Done != st.done || res.Won != st.won || res.Lost {
					t.Errorf("step %d %q: score %v done %v won %v lost %v; want %v %v %v false",
						i+1, st.action, res.Score, res.Done, res.Won, res.Lost, st.score, st.done, st.won)
				}
			}
		})
	}
}

// TestRunaway: a game that loops without asking for input is stopped by the
// instruction budget, not a clock: the step fails with ErrRunaway, the
// episode is over, and the next Reset starts clean.
func TestRunaway(t *testing.T) {
	s, err := NewSuite(ctxT(t), Config{Budget: 200_000}, behaveGame(t))
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := s.Tasks(envbridge.SplitTrain)
	env, first := openReset(t, s, ts[0])
	if _, err := env.Step(ctxT(t), "spin"); !errors.Is(err, ErrRunaway) {
		t.Fatalf("Step(spin) = %v, want ErrRunaway", err)
	}
	if _, err := env.Step(ctxT(t), "look"); !errors.Is(err, envbridge.ErrEpisodeOver) {
		t.Fatalf("Step after a runaway = %v, want ErrEpisodeOver", err)
	}
	again, err := env.Reset(ctxT(t), ts[0])
	if err != nil || again.Text != first.Text {
		t.Fatalf("Reset after a runaway = %q, %v", again.Text, err)
	}
	if res, err := env.Step(ctxT(t), "take coin"); err != nil || res.Score != 5 {
		t.Fatalf("take coin = %+v, %v", res, err)
	}
}
