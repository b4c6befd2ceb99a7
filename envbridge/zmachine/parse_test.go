package zmachine

import (
	"fmt"
	"slices"
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

// TestParseAnswer: the answers the Jericho suite's games give to the score
// command, with their maximum and moves.
func TestParseAnswer(t *testing.T) {
	tests := []struct {
		text string
		want Report
		ok   bool
	}{
		{"Your score is 0 (total of 350 points), in 0 moves.\nThis gives you the rank of Beginner.", Report{0, 350, 0, true}, true},
		{"Your score would be 0 (total of 400 points), in 0 moves.", Report{0, 400, 0, true}, true},
		{"Your score would be 0 (out of 80 points). It is Day 1 of your adventure.", Report{0, 80, 0, false}, true},
		{"You have so far scored 36 out of a possible 350, in 0 turns, earning you the\nrank of Adventurer.", Report{36, 350, 0, true}, true},
		{"I have so far scored 0 out of a possible 100, in 0 turns.", Report{0, 100, 0, true}, true},
		{"Your score is 0 of a possible 200, in 0 turns.", Report{0, 200, 0, true}, true},
		{"Your potential is 0 of a possible 7, in 0 moves.", Report{0, 7, 0, true}, true},
		{"Your score is 12 points out of 150, in 40 moves.", Report{12, 150, 40, true}, true},
		{"In 196 turns, you have achieved a score of 25 out of 25 points.", Report{25, 25, 196, true}, true},
		{"> If you quit now you will have scored 10 points out of\na maximum of 250.", Report{10, 250, 0, false}, true},
		{"[You have 0 out of 100 points, which earns you a ranking of Chief Superintendent]", Report{0, 100, 0, false}, true},
		{"Grunk have 0 out of 7 so far.", Report{0, 7, 0, false}, true},
		{"Your score is 0 out of a possible 250.\nThis score gives you the rank of a chicken of the sea.", Report{0, 250, 0, false}, true},
		{"[Your score is 100 points out of 100, in 608 moves. This gives you the rank of\nTOURIST.]", Report{100, 100, 608, true}, true},
		{"This game does not use a point-scoring system, so the only score is the one you\ngive yourself.", Report{}, false},
		{"There is no scoring in this game, only winning and losing.", Report{}, false},
		{"You have 3 keys.", Report{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseAnswer(tt.text)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseAnswer(%q) = %+v, %v, want %+v, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
	// In a turn's text, "have" opens no report.
	if s, ok := ParseScore("You have 2 out of 3 keys."); ok {
		t.Errorf("ParseScore read %+v in a sentence that is no report", s)
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
		// The final question in the wordings of the suite's games.
		{"Your score is 100 points out of 100, in 168 moves.\n\nDo you want to restart the story, restore a saved position, or quit?\n\n(Type RESTART, RESTORE or QUIT.)\n>", EndOther},
		{"I have so far scored 100 out of a possible 100, in 780 turns.\n\nWould I like to RESTART, RESTORE a saved game, give the FULL score for that game or QUIT?\n>", EndOther},
		{"Grunk have 6 out of 7 that time.\n\nTime for Grunk to RESTART or RESTORE a saved story or UNDO what Grunk just do or tell FULL score or just QUIT?\n>", EndOther},
		{"   You may start over, restore a saved position, or end this session of the game. (Type RESTART, RESTORE, or QUIT):\n>", EndOther},
		// A hint that names RESTART in the middle of a turn ends nothing.
		{"You can RESTART or RESTORE at any time.\n\nThe hall is quiet.\nA door leads north.\nThere is a lamp here.\nIt is dark outside.\n>", EndNone},
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
		"In 196 turns, you have achieved a score of 25 out of 25 points.",
		"[Press RETURN or ENTER to begin.]",
		"(Type RESTART, RESTORE, or QUIT)\n>",
		"  _\n | $$\n\n\nYou are hungry!\n\n\nKitchen.\n>",
		strings.Repeat("x", 5000) + "\n>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ParseScore(text)
		ParseAnswer(text)
		ParseEnding(text)
		asksReturn(text)
		NormalizeCommand(text)
		typedKeys(text)
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

// TestAsksReturn: a line that asks only for RETURN is a key wait in
// disguise (version 3 games read a line for it).
func TestAsksReturn(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"kiss...\n\n[Press RETURN or ENTER to begin.]\n", true},
		{"We are about to give you your score. Put on your peril-sensitive sunglasses now.\n(Hit RETURN or ENTER when ready.) >", true},
		{"Press the RETURN key to continue.", true},
		{"Press RETURN to begin.\n\nWest of House\nYou are standing in a field.\n>", false},
		{"Type your first name.\n>", false},
	} {
		if got := asksReturn(c.text); got != c.want {
			t.Errorf("asksReturn(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestTypedKeys: an action at a key wait is its keys: a key name's, or its
// characters as typed.
func TestTypedKeys(t *testing.T) {
	for _, c := range []struct {
		action string
		want   []uint16
	}{
		{"", []uint16{13}},
		{"Return", []uint16{13}},
		{" space ", []uint16{' '}},
		{"down", []uint16{130}},
		{"esc", []uint16{27}},
		{"No", []uint16{'N', 'o'}},
		{"2", []uint16{'2'}},
		{"é", []uint16{13}},
	} {
		if got := typedKeys(c.action); !slices.Equal(got, c.want) {
			t.Errorf("typedKeys(%q) = %v, want %v", c.action, got, c.want)
		}
	}
}

// TestNormalizeCommand: the form the valid-action recall compares commands
// in.
func TestNormalizeCommand(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"N", "north"},
		{"go north", "north"},
		{"GET THE LAMP", "take lamp"},
		{"x a small mailbox", "examine small mailbox"},
		{"put  egg in  an  case", "put egg in case"},
		{"l", "look"},
		{"", ""},
	} {
		if got := NormalizeCommand(c.in); got != c.want {
			t.Errorf("NormalizeCommand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDfrotzLine: a line for dfrotz repeats the last action for "again",
// doubles backslashes and stays within dfrotz's input buffer.
func TestDfrotzLine(t *testing.T) {
	long := strings.Repeat("x", 189) + `\`
	for _, c := range []struct{ action, last, want string }{
		{"again", "open door", "open door"},
		{"G", "open door", "open door"},
		{"g", "", "g"},
		{`say \q`, "", `say \\q`},
		{strings.Repeat("a", 300), "", strings.Repeat("a", maxDfrotzBytes)},
		{long, "", strings.Repeat("x", 189)},
	} {
		got := dfrotzLine(c.action, c.last)
		if got != c.want || len(got) > maxDfrotzBytes {
			t.Errorf("dfrotzLine(%q, %q) = %q, want %q", c.action, c.last, got, c.want)
		}
	}
}
