package zmachine

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseScore(t *testing.T) {
	tests := []struct {
		text string
		want Score
		ok   bool
	}{
		{"Your score is 0 (total of 350 points), in 1 move.", Score{0, 350}, true},
		{"\n\nYou have so far scored 10 out of a possible 360, in 2 turns.\n\n>", Score{10, 360}, true},
		{"You have so far scored 0 out of a possible 51, in 1 turn, earning you the rank\nof lost dreamer.", Score{0, 51}, true},
		{"You have so far scored 3 out of a\npossible 7, in 9 turns.", Score{3, 7}, true},
		{"In that game you scored 20 out of a possible 360, in 7 turns.", Score{20, 360}, true},
		{"You scored 4 out of a possible 4, in 9 turns.", Score{4, 4}, true},
		{"Your score is -5 (total of 100 points), in 3 moves.", Score{-5, 100}, true},
		{"[!: Verb error. (This generally means that the first word of your command was\nnot recognized.)]", Score{}, false},
		{"You have so far scored 0 out of a possible 7.\nIn that game you scored 5 out of a possible 7, in 3 turns.", Score{5, 7}, true},
		{"You have so far scored 99999999999999999999 out of a possible 7", Score{}, false},
		{"", Score{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseScore(tt.text)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseScore(%q) = %v, %v, want %v, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseEnding(t *testing.T) {
	tests := []struct {
		text string
		want Ending
	}{
		{"You eat the meal.\n\n                               *** The End ***\n\nYou scored 4 out of a possible 4, in 9 turns.", EndWon},
		{"*** You have won ***", EndWon},
		{"You fall.\n\n*** You lost! ***\n", EndLost},
		{"    *** You have died ***", EndLost},
		{"****  You have died  ****", EndLost},
		{"Your body was discovered.\n\nIn that game you scored 20 out of a possible 360, in 7 turns.", EndOther},
		{"Would you like to RESTART, RESTORE a saved game or QUIT?\n>", EndOther},
		{"You have so far scored 3 out of a possible 7, in 2 turns.", EndNone},
		{"The sign says *** DANGER *** in red.", EndNone},
		{"Taken.\n\n>", EndNone},
	}
	for _, tt := range tests {
		if got := ParseEnding(tt.text); got != tt.want {
			t.Errorf("ParseEnding(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\n\nTaken.\n\n[Your score has just gone up by ten points.]\n\n>", "Taken."},
		{"You slice it.\n\nYour score has just gone up by one point.\n\n>", "You slice it."},
		{"Dropped.\n[The score has just gone down by five points.]\n> ", "Dropped."},
		{"A.\n\n\n\nB.\n[The Court Yard]> ", "A.\n\nB."},
		{"grass.\nWarning: @get_child called with object 0 (PC = ad67) (will ignore further\noccurrences)\n\n>", "grass."},
		{"Are you sure you want to quit? ", "Are you sure you want to quit?"},
		{"a > b\nc", "a > b\nc"},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPromptEnd(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"text\n\n>", true},
		{"Would you like to QUIT?\n> ", true},
		{"[The Court Yard]> ", true},
		{"Are you sure you want to quit? ", true},
		{"Please enter a filename [tiny.qzl]: ", true},
		{"Is it?", false},
		{"text\n", false},
		{"a: b", false},
		{">  ", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := promptEnd([]byte(tt.in)); got != tt.want {
			t.Errorf("promptEnd(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestObjective(t *testing.T) {
	banner := "  ___\n | $$ \\$$\n  \\$$$$$$\n"
	tests := []struct{ in, want string }{
		{banner + "\n\n\nYou are hungry! Let's cook a delicious meal. Check the cookbook in the kitchen\nfor the recipe. Once done, enjoy your meal!\n\n\nYou've entered a kitchen.\n\n>",
			"You are hungry! Let's cook a delicious meal. Check the cookbook in the kitchen for the recipe. Once done, enjoy your meal!"},
		{banner + "\n\n\n\nYou find yourself in a Room A.\n\nThere is a Key 1 on the floor.\n\n>", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Objective(tt.in); got != tt.want {
			t.Errorf("Objective(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSanitize(t *testing.T) {
	long := strings.Repeat("é", 150)
	tests := []struct{ in, want string }{
		{"  take key\n", "take key"},
		{"go\nnorth\r\x00", "go north"},
		{long, long[:200]},
		{strings.Repeat("a", 199) + "é", strings.Repeat("a", 199)},
	}
	for _, tt := range tests {
		if got := sanitize(tt.in); got != tt.want {
			t.Errorf("sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParse feeds arbitrary game output to every parser: none may panic, the
// observation never grows, never keeps a score notice line, and stays valid
// UTF-8 when the input is.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"Your score is 0 (total of 350 points), in 1 move.",
		"You have so far scored 10 out of a possible 360, in 2 turns.\n\n>",
		"[Your score has just gone up by ten points.]\n\n>",
		"*** The End ***\n\nYou scored 4 out of a possible 4, in 9 turns.\n\nWould you like to RESTART, RESTORE a saved game, QUIT or UNDO the last command?\n> ",
		"****  You have died  ****",
		"  _\n | $$\n\n\nYou are hungry!\n\n\nKitchen.\n>",
		strings.Repeat("x", 5000) + "\n>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ParseScore(text)
		ParseEnding(text)
		Objective(text)
		promptEnd([]byte(text))
		c := Clean(text)
		if len(c) > len(text) {
			t.Fatalf("Clean grew %d -> %d bytes", len(text), len(c))
		}
		for _, l := range strings.Split(c, "\n") {
			if reNotice.MatchString(l) {
				t.Fatalf("notice %q kept", l)
			}
			if len(l) > maxLineBytes {
				t.Fatalf("line of %d bytes kept", len(l))
			}
		}
		if utf8.ValidString(text) && !utf8.ValidString(c) {
			t.Fatalf("Clean(%q) = %q: invalid UTF-8", text, c)
		}
	})
}

// BenchmarkParse is the driver's own work per turn: cleaning the action's
// output and parsing the score reply and the ending, for n bytes of output.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{500, 5000, 50000} {
		text := strings.Repeat("You see a table here. On the table is a key.\n", n/45) +
			"[Your score has just gone up by one point.]\n\n>"
		b.Run(fmt.Sprintf("bytes=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Clean(text)
				ParseEnding(text)
				ParseScore("You have so far scored 10 out of a possible 360, in 2 turns.\n\n>")
			}
		})
	}
}
