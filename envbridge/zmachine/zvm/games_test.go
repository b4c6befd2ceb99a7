package zvm

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// jerichoEnds is what each Jericho walkthrough must end with (the game's own
// words); zork1 has no banner and ends its process, reading its score.
var jerichoEnds = map[string]string{
	"905.z5":        "*** You have left Las Mesas ***",
	"acorncourt.z5": "In that game you scored 30 out of a possible 30, in 17 turns.",
	"balances.z5":   "In that game you scored 50 out of a possible 51, in 122 turns",
	"detective.z5":  "In that game you scored 360 out of a possible 360, in 51 turns.",
	"loose.z5":      "In that game you scored 50 out of a possible 50, in 49 turns",
	"pentari.z5":    "In that game you scored 70 out of a possible 70, in 49 turns.",
	"zork1.z5":      "Your score is 350 (total of 350 points), in 394 moves.",
}

// TestJerichoWalkthroughs replays each Jericho walkthrough at its seed
// through the machine alone and checks that the game reaches its end.
func TestJerichoWalkthroughs(t *testing.T) {
	dir, games := jerichoGames(t)
	if len(games) != len(jerichoEnds) {
		t.Fatalf("walkthroughs.json has %d games, the test knows %d", len(games), len(jerichoEnds))
	}
	for name, g := range games {
		t.Run(name, func(t *testing.T) {
			end, ok := jerichoEnds[name]
			if !ok {
				t.Fatalf("no expected ending for %s", name)
			}
			m, err := Load(readStory(t, filepath.Join(dir, name)), Options{Seed: g.Seed})
			if err != nil {
				t.Fatal(err)
			}
			out, w := play(t, m, append(keysBefore(name), g.Walkthrough...))
			if !strings.Contains(out, end) {
				t.Errorf("%s: the walkthrough does not reach %q; transcript ends:\n%s", name, end, tail(out))
			}
			if name != "zork1.z5" && !strings.Contains(out, "*** You have won ***") && name != "905.z5" {
				t.Errorf("%s: no win banner", name)
			}
			if name == "zork1.z5" && w != Halted {
				t.Errorf("zork1 after its last move: %v, want Halted (the game quits)", w)
			}
			if name != "zork1.z5" && w != WaitLine {
				t.Errorf("%s after its last move: %v, want WaitLine (its final question)", name, w)
			}
		})
	}
}

// keysBefore: loose waits for a key before its first command.
func keysBefore(name string) []string {
	if name == "loose.z5" {
		return []string{""}
	}
	return nil
}

var scoredRE = regexp.MustCompile(`You scored (\d+) out of a possible (\d+)`)

// TestCookingWalkthroughs replays the TextWorld cooking games' walkthroughs.
func TestCookingWalkthroughs(t *testing.T) {
	dir := filepath.Join(sharedDir(t, "games"), "arigraph")
	for _, name := range []string{"cook", "cook_1_1_cut", "cook_1_9"} {
		t.Run(name, func(t *testing.T) {
			cmds, max := cookingWalkthrough(t, filepath.Join(dir, name+".json"))
			m, err := Load(readStory(t, filepath.Join(dir, name+".z8")), Options{})
			if err != nil {
				t.Fatal(err)
			}
			out, w := play(t, m, cmds)
			if !strings.Contains(out, "*** The End ***") {
				t.Errorf("no ending banner; transcript ends:\n%s", tail(out))
			}
			sc := scoredRE.FindStringSubmatch(out)
			if sc == nil || sc[1] != sc[2] || sc[2] != strconv.Itoa(max) {
				t.Errorf("final score %v, want %d out of %d", sc, max, max)
			}
			if w != WaitLine {
				t.Errorf("after the last move: %v, want WaitLine (the final question)", w)
			}
		})
	}
}
