package zmachine

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNoteNumbers: the numbers a text quotes alone are kept, each once;
// numbers in words, in sentences or of five digits or more are not.
func TestNoteNumbers(t *testing.T) {
	got := noteNumbers([]int{3}, `The word "1" is now written on the cube. "12!" "3" "a1" "123456" "Six hundred, or I send you" 42 "0007"`)
	want := []int{3, 1, 12, 7}
	if !slices.Equal(got, want) {
		t.Errorf("noteNumbers: %v, want %v", got, want)
	}
	var many []string
	for i := 0; i < 2*maxNumbers; i++ {
		many = append(many, `"`+strconv.Itoa(i)+`"`)
	}
	if got := noteNumbers(nil, strings.Join(many, " ")); len(got) != maxNumbers {
		t.Errorf("%d numbers kept, want %d", len(got), maxNumbers)
	}
}

// FuzzNoteNumbers: any text leaves at most maxNumbers numbers, each once,
// none negative or of more than four digits.
func FuzzNoteNumbers(f *testing.F) {
	f.Add(`The word "1" is now written on the cube.`, `"2"`)
	f.Add("\"\"\"-1\"\xff\"9999\" \"10000\"", "")
	f.Fuzz(func(t *testing.T, text, old string) {
		got := noteNumbers(noteNumbers(nil, old), text)
		if len(got) > maxNumbers {
			t.Fatalf("%d numbers", len(got))
		}
		seen := map[int]bool{}
		for _, n := range got {
			if seen[n] || n < 0 || n > 9999 {
				t.Fatalf("number %d (seen %v) in %v", n, seen[n], got)
			}
			seen[n] = true
		}
	})
}

// TestNumberNotWrittenTwice: Spellbreaker refuses a number already written
// on a cube; the number tried is the least the episode has not quoted
// (the cube not yet written on is named by the adjective only it has).
func TestNumberNotWrittenTwice(t *testing.T) {
	env, walk := playTo(t, "spellbrkr.z3", 60)
	if walk[60] != "write 2 on cube" {
		t.Fatalf("spellbrkr's step 60 is %q, not the writing this test is about", walk[60])
	}
	want := "write 2 on hq cube"
	wantChange(t, env, want)
}
