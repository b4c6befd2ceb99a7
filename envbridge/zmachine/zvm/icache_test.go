package zvm

import (
	"path/filepath"
	"testing"
)

// TestCacheMatchesStep plays every walkthrough of ../shared/games and CZECH
// twice, through the instruction cache and with every instruction decoded
// by step, and requires the same transcript, the same number of
// instructions and the same final world.
func TestCacheMatchesStep(t *testing.T) {
	type game struct {
		name  string
		story []byte
		seed  int64
		lines []string
	}
	var games []game
	dir, jg := jerichoGames(t)
	for name, g := range jg {
		games = append(games, game{name, readStory(t, filepath.Join(dir, name)), g.Seed, append(keysBefore(name), g.Walkthrough...)})
	}
	tw := filepath.Join(sharedDir(t, "games"), "arigraph")
	for _, name := range []string{"cook", "cook_1_1_cut", "cook_1_9"} {
		cmds, _ := cookingWalkthrough(t, filepath.Join(tw, name+".json"))
		games = append(games, game{name, readStory(t, filepath.Join(tw, name+".z8")), 0, cmds})
	}
	czech := filepath.Join(sharedDir(t, "zmachine"), "czech.inf")
	for _, v := range []int{3, 5, 8} {
		games = append(games, game{"czech.z" + string(rune('0'+v)), inform6(t, czech, v, t.TempDir()), 0, nil})
	}
	for _, g := range games {
		t.Run(g.name, func(t *testing.T) {
			var outs [2]string
			var ex [2]uint64
			var world [2]uint64
			for i, noCache := range []bool{false, true} {
				m, err := Load(g.story, Options{Seed: g.seed})
				if err != nil {
					t.Fatal(err)
				}
				m.noCache = noCache
				outs[i], _ = play(t, m, g.lines)
				ex[i], world[i] = m.executed, m.WorldHash()
				if !noCache && len(m.insts) < 100 {
					t.Errorf("only %d instructions cached", len(m.insts))
				}
			}
			if len(outs[0]) < 100 {
				t.Errorf("transcript of %d bytes: the game did not run", len(outs[0]))
			}
			if outs[0] != outs[1] {
				t.Errorf("transcripts differ (cache %d bytes, step %d bytes)", len(outs[0]), len(outs[1]))
			}
			if ex[0] != ex[1] || ex[0] == 0 {
				t.Errorf("instructions executed: cache %d, step %d", ex[0], ex[1])
			}
			if world[0] != world[1] {
				t.Errorf("final worlds differ")
			}
		})
	}
}

// TestSelfModifyingCode runs code in dynamic memory that rewrites itself:
// it prints 'A', stores 'B' over its own print_char operand and loops, so
// the next passes must print 'B' (dynamic memory is never cached).
func TestSelfModifyingCode(t *testing.T) {
	story := make([]byte, 0x800)
	story[0] = 5
	put := func(a, v int) { story[a], story[a+1] = byte(v>>8), byte(v) }
	put(0x04, 0x400) // high memory
	put(0x06, 0x300) // initial PC: in dynamic memory
	put(0x08, 0x400) // dictionary: no separators, 7-byte entries, none
	put(0x0a, 0x220) // object table
	put(0x0c, 0x40)  // globals
	put(0x0e, 0x400) // static memory base
	put(0x18, 0x404) // abbreviations
	copy(story[0x400:], []byte{0, 7, 0, 0})
	copy(story[0x300:], []byte{
		0xe5, 0x7f, 'A', // print_char 'A'
		0xe2, 0x17, 0x03, 0x00, 0x02, 'B', // storeb 0x300 2 'B'
		0x05, 0x10, 0x02, 0xc5, // inc_chk g0 2 ?(to quit)
		0x8c, 0xff, 0xf2, // jump 0x300
		0xba, // quit
	})
	for _, noCache := range []bool{false, true} {
		m, err := Load(story, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m.noCache = noCache
		w, err := m.Run()
		if err != nil || w != Halted {
			t.Fatalf("noCache=%v: Run: %v %v", noCache, w, err)
		}
		if got := m.Output().Main; got != "ABB" {
			t.Errorf("noCache=%v: printed %q, want %q", noCache, got, "ABB")
		}
	}
}
