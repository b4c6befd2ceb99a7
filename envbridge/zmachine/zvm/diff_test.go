package zvm

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDifferentialDfrotz replays every walkthrough through the machine and
// through dfrotz (same seed, same input) and compares the transcripts word
// by word. The machine runs with dropStyled, which leaves out bold and italic text
// as Debian's dfrotz 2.54 does in versions 5 and 8 (room names, banners);
// dfrotz's line wrapping, its ">" prompts and its warnings are normalised
// away (see words).
func TestDifferentialDfrotz(t *testing.T) {
	dfrotzPath(t)
	type game struct {
		path  string
		seed  int64
		key   bool
		lines []string
	}
	var games []game
	dir, jg := jerichoGames(t)
	for name, g := range jg {
		games = append(games, game{filepath.Join(dir, name), g.Seed, name == "loose.z5", g.Walkthrough})
	}
	adir := filepath.Join(sharedDir(t, "games"), "arigraph")
	for _, name := range []string{"cook", "cook_1_1_cut", "cook_1_9"} {
		cmds, _ := cookingWalkthrough(t, filepath.Join(adir, name+".json"))
		games = append(games, game{filepath.Join(adir, name+".z8"), 0, false, cmds})
	}
	for _, g := range games {
		t.Run(filepath.Base(g.path), func(t *testing.T) {
			m, err := Load(readStory(t, g.path), Options{Seed: g.seed})
			if err != nil {
				t.Fatal(err)
			}
			m.screen.dropStyled = true
			lines := g.lines
			if g.key {
				lines = append([]string{""}, lines...)
			}
			ours, _ := play(t, m, lines)
			input := strings.Join(lines, "\n") + "\n"
			theirs := dfrotz(t, g.path, g.seed, input)
			a, b := words(ours), words(theirs)
			for i := 0; i < len(a) || i < len(b); i++ {
				if i >= len(a) || i >= len(b) || a[i] != b[i] {
					lo := max(0, i-15)
					t.Fatalf("transcripts differ at word %d:\n ours: %s\n dfrotz: %s", i,
						strings.Join(a[lo:min(len(a), i+15)], " "), strings.Join(b[lo:min(len(b), i+15)], " "))
				}
			}
		})
	}
}
