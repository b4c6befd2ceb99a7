package zmachine

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/testenv"
)

// jerichoReach is where each walkthrough of ../shared/games/jericho/suite.json
// ends: the score and the maximum the game itself reports (or, for a game
// without a score of its own, Jericho's 1 for the win). A walkthrough that
// ends below the maximum is Jericho's own: anchor, balances, curses,
// lostpig, theatre and yomomma leave points behind; inhumane says "out of a
// possible 300" where its nine traps give 90 (Jericho's maximum).
var jerichoReach = map[string][2]float64{
	"905": {1, 1}, "acorncourt": {30, 30}, "advent": {350, 350}, "adventureland": {100, 100},
	"afflicted": {75, 75}, "anchor": {99, 100}, "awaken": {50, 50}, "balances": {50, 51},
	"ballyhoo": {200, 200}, "curses": {450, 550}, "cutthroat": {250, 250}, "deephome": {300, 300},
	"detective": {360, 360}, "dragon": {25, 25}, "enchanter": {400, 400}, "enter": {20, 20},
	"gold": {100, 100}, "hhgg": {400, 400}, "hollywood": {150, 150}, "huntdark": {1, 1},
	"infidel": {400, 400}, "inhumane": {90, 300}, "jewel": {90, 90}, "karn": {170, 170},
	"library": {30, 30}, "loose": {50, 50}, "lostpig": {6, 7}, "ludicorp": {150, 150},
	"lurking": {100, 100}, "moonlit": {1, 1}, "murdac": {250, 250}, "night": {10, 10},
	"omniquest": {50, 50}, "partyfoul": {1, 1}, "pentari": {70, 70}, "planetfall": {80, 80},
	"plundered": {25, 25}, "reverb": {50, 50}, "seastalker": {100, 100}, "sherlock": {100, 100},
	"snacktime": {50, 50}, "sorcerer": {400, 400}, "spellbrkr": {600, 600}, "spirit": {250, 250},
	"temple": {35, 35}, "theatre": {47, 50}, "trinity": {100, 100}, "tryst205": {350, 350},
	"weapon": {1, 1}, "wishbringer": {100, 100}, "yomomma": {34, 35}, "zenon": {20, 20},
	"zork1": {350, 350}, "zork2": {400, 400}, "zork3": {7, 7}, "ztuu": {100, 100},
}

// TestJerichoSuite replays, in parallel, the walkthrough of every game of
// ../shared/games/jericho that suite.json has, as cmd/play -walkthrough
// does: each ends done and won, at the score and maximum of jerichoReach,
// and after every step the score, maximum and moves the driver reported
// equal the game's own answer to the score command (asked on the machine
// and undone; a game that answers none, or "out of a possible 0", is
// checked at its ending only). Every game plays at the seed suite.json
// gives (the bindings hold it). A story file without a walkthrough (lgop)
// starts and takes a few commands.
func TestJerichoSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("whole suite: replays every Jericho walkthrough, tens of thousands of checked steps (runs without -short; TestWalkthroughs keeps walkthrough replays in the short tier)")
	}
	dir := filepath.Join(gamesDir(t), "jericho")
	games, ok, err := ReadJericho(filepath.Join(dir, JerichoFile))
	if err != nil {
		t.Fatal(err)
	}
	testenv.Need(t, ok, fmt.Sprintf("%s in %s (Jericho's walkthroughs)", JerichoFile, dir))
	s, err := NewSuite(ctxT(t), Config{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := s.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	played := 0
	for _, task := range tasks {
		g := s.byID[task.ID]
		jg, has := games[filepath.Base(g.file)]
		if has {
			played++
		}
		t.Run(task.Type, func(t *testing.T) {
			t.Parallel()
			env, err := s.OpenEnv(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			if !has {
				res, err := Replay(t.Context(), env, task, []string{"look", "inventory", "north", "take all"}, ReplayOptions{Check: true})
				if err != nil || res.Played != 4 {
					t.Fatalf("no walkthrough; four commands: played %d, %v", res.Played, err)
				}
				return
			}
			if task.Seed != jg.Seed {
				t.Errorf("plays at seed %d, suite.json says %d", task.Seed, jg.Seed)
			}
			if task.OracleSteps != len(jg.Walkthrough) {
				t.Errorf("OracleSteps %d, the walkthrough has %d commands", task.OracleSteps, len(jg.Walkthrough))
			}
			// No wall-clock deadline: spirit's 1,264 steps under -race
			// on a busy machine take minutes; go test's -timeout bounds
			// a hang.
			res, err := Replay(t.Context(), env, task, jg.Walkthrough, ReplayOptions{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range res.Mismatches {
				t.Errorf("%s", m)
			}
			r := res.Last
			if !r.Done || !r.Won || r.Lost || r.Truncated {
				t.Fatalf("after %d of %d commands: done %v won %v lost %v truncated %v: %q",
					res.Played, res.Planned, r.Done, r.Won, r.Lost, r.Truncated, tail(r.Text))
			}
			if left := res.Planned - res.Played; left > 0 && strings.TrimSpace(strings.Join(jg.Walkthrough[res.Played:], "")) != "" {
				t.Errorf("won with %d commands left: %q", left, jg.Walkthrough[res.Played:])
			}
			want, ok := jerichoReach[task.Type]
			if !ok {
				t.Fatalf("jerichoReach has no entry for %s (won at %v of %v)", task.Type, r.Score, r.MaxScore)
			}
			if r.Score != want[0] || r.MaxScore != want[1] {
				t.Errorf("won at %v of %v, want %v of %v", r.Score, r.MaxScore, want[0], want[1])
			}
			t.Logf("%d commands, won at %v of %v, %d steps checked against the game's answer (score from %s)",
				res.Played, r.Score, r.MaxScore, res.Checked, s.ScoreSource(task.ID))
		})
	}
	if played != len(games) {
		t.Errorf("%d of suite.json's %d games have a story file here", played, len(games))
	}
}

// TestQuestionMark: in the Infocom games whose interpreters dropped a
// typed "?" (the bindings' question_mark), "look?" is "look" and "?" alone
// is an empty command, as under Frotz.
func TestQuestionMark(t *testing.T) {
	_, env, _ := openFirst(t, filepath.Join(gamesDir(t), "jericho", "zork1.z5"), 100)
	for _, c := range []struct{ action, want string }{
		{"look?", "West of House"},
		{"?", "I beg your pardon?"},
	} {
		res, err := env.Step(ctxT(t), c.action)
		if err != nil || !strings.Contains(res.Text, c.want) {
			t.Errorf("%q: %q, %v; want %q", c.action, res.Text, err, c.want)
		}
	}
}

// TestParseJericho: the suite file's entries are read and checked; names
// that are no file name and negative word lengths are refused, naming the
// entry.
func TestParseJericho(t *testing.T) {
	g, err := ParseJericho([]byte(`{"zork1.z5": {"seed": 12, "walkthrough": ["N", "", "get egg"], "max_word_length": 6, "grammar": "take OBJ"}}`))
	if err != nil || g["zork1.z5"].Seed != 12 || len(g["zork1.z5"].Walkthrough) != 3 {
		t.Fatalf("ParseJericho = %+v, %v", g, err)
	}
	for _, bad := range []string{`[]`, `{"../x.z5": {}}`, `{"": {}}`, `{"a.z5": {"max_word_length": -1}}`, `{"a.z5": {"seed": "x"}}`} {
		if _, err := ParseJericho([]byte(bad)); err == nil {
			t.Errorf("ParseJericho(%s): no error", bad)
		}
	}
}

// FuzzParseJericho: no input makes the suite file's parser panic, and
// what it accepts has plain file names.
func FuzzParseJericho(f *testing.F) {
	f.Add(`{"zork1.z5": {"seed": 12, "walkthrough": ["N"], "max_word_length": 6, "grammar": "take OBJ;drop OBJ"}}`)
	f.Add(`{"a.z5": {"grammar": "put OBJ in OBJ;;x/y"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseJericho([]byte(s))
		if err != nil {
			return
		}
		for name, e := range g {
			if filepath.Base(name) != name || name == "" || e.MaxWordLength < 0 {
				t.Fatalf("accepted %q: %+v", name, e)
			}
			parseGrammar(e.Grammar, 9)
		}
	})
}
