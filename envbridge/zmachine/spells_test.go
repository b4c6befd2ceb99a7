package zmachine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSpellCandidates: in the state before a walkthrough step that uses a
// spell or writes a number, the candidates hold a command of that kind
// (the step's own or one to the same effect), and it changes the world.
func TestSpellCandidates(t *testing.T) {
	for _, c := range []struct {
		name, file string
		step       int
		want       string
	}{
		{"learn a spell of the book", "spirit.z5", 18, "learn frotz"},
		{"copy a scroll's spell", "spirit.z5", 94, "gnusto swanko"},
		{"cast a memorised spell", "spirit.z5", 200, "espnis thug"},
		{"cast at a thing carried", "balances.z5", 32, "frotz coin"},
		{"cast at the player (Infocom)", "sorcerer.z3", 204, "frotz me"},
		{"copy a scroll's spell (Infocom)", "spellbrkr.z3", 24, "gnusto caskly"},
		{"cast the spell just learnt (Infocom)", "spellbrkr.z3", 12, "blorple aq cube"},
		{"write a number", "spellbrkr.z3", 10, "write 1 on aq cube"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, walk := playTo(t, c.file, c.step)
			t.Logf("walkthrough step %d: %q", c.step, walk[c.step])
			wantChange(t, env, c.want)
		})
	}
}

// TestSpellObjects: the spells are found by their words: Inform's
// "(frotz_spell)" (named frotz/spell/spells) and Infocom's "frotz spell";
// "spell book" is none.
func TestSpellObjects(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"balances.z5", []string{"frotz", "gnusto", "rezrov", "yomin"}},
		{"spirit.z5", []string{"espnis", "frotz", "gnusto", "swanko"}},
		{"sorcerer.z3", []string{"frotz", "gnusto", "vardik", "yomin"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			env, _ := playTo(t, c.file, 0)
			w, err := env.World()
			if err != nil {
				t.Fatal(err)
			}
			var words []string
			for _, s := range env.vm.spellObjects(w) {
				words = append(words, s.word)
				if s.word == "book" || s.word == "spellbook" {
					t.Errorf("object %d taken for a spell %q", s.id, s.word)
				}
			}
			for _, x := range c.want {
				if !slices.Contains(words, x) {
					t.Errorf("spells %q lack %q", words, x)
				}
			}
		})
	}
}

// TestSpellRefusalKeyedByRoom: a spell cast at a thing carried is
// remembered as refused with the room it was cast in (Spellbreaker's
// blorple does nothing in the room its cube leads to, and works
// elsewhere with the cube unchanged); other commands about the thing are
// remembered with the thing alone.
func TestSpellRefusalKeyedByRoom(t *testing.T) {
	env, walk := playTo(t, "spellbrkr.z3", 127)
	if walk[127] != "blorple 3" {
		t.Fatalf("spellbrkr step 127 is %q", walk[127])
	}
	w, err := env.World()
	if err != nil {
		t.Fatal(err)
	}
	room := fmt.Sprintf("|@%d", w.Location)
	var cast, drop bool
	for _, c := range env.candidateList() {
		switch {
		case c.obj == "bq cube" && strings.HasPrefix(c.text, "blorpl"):
			cast = true
			if !strings.HasSuffix(c.tail, room) {
				t.Errorf("%q is remembered as %q, without the room %q", c.text, c.key(), room)
			}
		case c.text == "drop bq cube":
			drop = true
			if strings.Contains(c.tail, "|@") {
				t.Errorf("%q is remembered with the room: %q", c.text, c.key())
			}
		}
	}
	if !cast || !drop {
		t.Fatalf("no blorple at the bq cube (%v) or no drop of it (%v)", cast, drop)
	}
}
