package zmachine

import (
	"strconv"
	"strings"
	"testing"
)

// maxDropped bounds the words of one turn that the in-process transcript
// may have and dfrotz's not: Debian's dfrotz 2.54 drops bold text in
// version 5 and 8 games (room headers "-= Kitchen =-", banners "*** You
// have won ***", Inform's "<< Chief's office >>"), which the in-process
// interpreter keeps.
const maxDropped = 16

// TestDifferentialDfrotz plays every walkthrough in-process and through
// dfrotz at the same seed, turn by turn: dfrotz's words must be the
// in-process words in order, with at most maxDropped words (its dropped
// bold text) missing per turn.
func TestDifferentialDfrotz(t *testing.T) {
	if testing.Short() {
		t.Skip("whole-suite game test: every walkthrough through dfrotz and zvm (runs without -short)")
	}
	needInterpreter(t)
	for _, c := range walkCases(t) {
		t.Run(c.name, func(t *testing.T) {
			noChildrenLeft(t)
			s, env, obs := openWalk(t, c)
			g := s.games[0]
			dir := t.TempDir()
			argv := []string{mustInterp(t), "-m", "-p", "-q", "-Z", "0", "-R", dir,
				"-s", strconv.FormatInt(s.seedOf(g, c.seed), 10), c.file}
			p, err := startProc(argv, dir, 1<<20, s.cfg.TurnTimeout, s.cfg.QuietTime)
			if err != nil {
				t.Fatal(err)
			}
			defer p.close()
			if c.name == "jericho/loose" {
				// loose waits for a key before it starts; the driver presses
				// one by itself, dfrotz reads it from its input.
				if err := p.send(""); err != nil {
					t.Fatal(err)
				}
			}
			opening, err := p.readTurn(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if g.textworld {
				_, opening = splitBanner(opening)
			}
			for _, cmd := range g.binding.Intro {
				if err := p.send(cmd); err != nil {
					t.Fatal(err)
				}
				if _, err := p.readTurn(ctxT(t)); err != nil {
					t.Fatal(err)
				}
			}
			compareTurn(t, 0, "(opening)", obs.Text, Clean(opening))
			for i := 0; i < len(c.walk); i++ {
				a := c.walk[i]
				res, err := env.Step(ctxT(t), a)
				if err != nil {
					t.Fatalf("step %d %q: %v", i+1, a, err)
				}
				if err := p.send(a); err != nil {
					t.Fatal(err)
				}
				out, err := p.readTurn(ctxT(t))
				if err != nil && !res.Done {
					t.Fatalf("dfrotz step %d %q: %v", i+1, a, err)
				}
				// The note on a key wait is the driver's, not the game's.
				compareTurn(t, i+1, a, strings.ReplaceAll(res.Text, menuNote, ""), Clean(out))
				if t.Failed() {
					return
				}
			}
			t.Logf("%d turns equal", len(c.walk)+1)
		})
	}
}

func mustInterp(t *testing.T) string {
	p, err := FindInterpreter("dfrotz")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// compareTurn checks that the words of oracle appear in got in order, with
// at most maxDropped words of got skipped. Words are runs of letters and
// digits: dfrotz breaks "north-to-south" at its hyphen at the end of a line,
// and drops the bold word of '"help"' leaving '""'.
func compareTurn(t *testing.T, step int, action, got, oracle string) {
	t.Helper()
	gw, ow := words(got), words(oracle)
	j, skipped := 0, 0
	for _, w := range ow {
		for j < len(gw) && gw[j] != w {
			j++
			skipped++
		}
		if j == len(gw) {
			t.Errorf("step %d %q: dfrotz's word %q is not in the in-process text\nin-process: %q\ndfrotz:     %q", step, action, w, tail(got), tail(oracle))
			return
		}
		j++
	}
	skipped += len(gw) - j
	if skipped > maxDropped {
		t.Errorf("step %d %q: %d in-process words missing from dfrotz's text (at most %d: bold text)\nin-process: %q\ndfrotz:     %q", step, action, skipped, maxDropped, tail(got), tail(oracle))
	}
}

func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127)
	})
}
