package zmachine

import (
	"slices"
	"testing"
)

// TestNoteWorked: one-word actions are kept, the latest first, each once;
// moves, answers, meta commands and commands of more words are not; at
// most maxWorked are kept.
func TestNoteWorked(t *testing.T) {
	got := noteWorked([]string{"xyzzy", "pray"}, []string{"north", "plugh", "take lamp", "yes", "save", "n", "pray"})
	want := []string{"pray", "plugh", "xyzzy"}
	if !slices.Equal(got, want) {
		t.Errorf("noteWorked: %q, want %q", got, want)
	}
	var many []string
	for i := 0; i < 2*maxWorked; i++ {
		many = append(many, "word"+string(rune('a'+i)))
	}
	if got := noteWorked(nil, many); len(got) != maxWorked || got[0] != many[len(many)-1] {
		t.Errorf("noteWorked kept %q, want the latest %d", got, maxWorked)
	}
}

// TestWorkedWordsFirst: a one-word command found valid in one search is
// among the first candidates of the searches after (advent: "plugh"
// carries the player back to the building from anywhere it works).
func TestWorkedWordsFirst(t *testing.T) {
	env, _ := playTo(t, "advent.z5", 0)
	env.worked = noteWorked(env.worked, []string{"plugh"})
	cands := env.candidates()
	if i := slices.Index(cands, "plugh"); i < 0 || i > len(validMoves)+2 {
		t.Errorf("\"plugh\" is candidate %d of %d, want among the first after the moves", i, len(cands))
	}
}
