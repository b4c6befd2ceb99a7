package reply

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		changed  bool
	}{
		{"The drawer is open.", "The drawer is open.", false},
		{"```\nThe drawer is open.\n```", "The drawer is open.", true},
		{"```json\n{\"a\": 1}\n```", "{\"a\": 1}", true},
		{"Sure! Here is my answer.\nThe drawer is open.", "The drawer is open.", true},
		{"Here is the summary:\n\n```text\nThe drawer is open.\n```\nLet me know if you need anything else!", "The drawer is open.", true},
		{"The drawer is open.\nI hope this helps.", "The drawer is open.", true},
		// A lone opener stays (nothing else to keep): the role then says it
		// is unusable.
		{"Sure!", "Sure!", false},
		{"Based on the observation, the agent holds the key.", "Based on the observation, the agent holds the key.", false},
		{"```\nunclosed fence\n", "unclosed fence", true},
		// Quotes around a whole list belong to no line; a quoted line or
		// quotes inside the text stay for the roles' own parsers.
		{"\"first insight (because of 1)\nsecond insight (because of 2)\"", "first insight (because of 1)\nsecond insight (because of 2)", true},
		{"\"go to drawer 1\"", "\"go to drawer 1\"", false},
		{"\"a\" is a letter\nand \"b\"", "\"a\" is a letter\nand \"b\"", false},
	} {
		got, changed := Clean(tc.in)
		if got != tc.want || changed != tc.changed {
			t.Errorf("Clean(%q) = %q, %v; want %q, %v", tc.in, got, changed, tc.want, tc.changed)
		}
	}
}

func TestLabelUnquoteBoolJunk(t *testing.T) {
	for in, want := range map[string]string{
		"**Action:** go to drawer 1": "go to drawer 1",
		"**Action**: go to drawer 1": "go to drawer 1",
		"*action*: go to drawer 1":   "go to drawer 1",
		"ACTION: go to drawer 1":     "go to drawer 1",
		"> __Action:__ open it":      "open it",
	} {
		if got, ok := Label(in, "action"); !ok || got != want {
			t.Errorf("Label(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := Label("Actions speak louder", "action"); ok {
		t.Error("Label matched a word that merely begins with the label")
	}
	for in, want := range map[string]string{`"go to drawer 1."`: "go to drawer 1", "`open fridge 1`": "open fridge 1", "**take apple**!": "take apple", "look": "look"} {
		if got, _ := Unquote(in); got != want {
			t.Errorf("Unquote(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"True": true, "```\nTrue\n```": true, "Sure! Here is my answer.\nFalse.": false, "**YES**": true, "The answer is: no": false} {
		if v, ok, _ := Bool(in); !ok || v != want {
			t.Errorf("Bool(%q) = %v, %v; want %v", in, v, ok, want)
		}
	}
	if _, ok, _ := Bool("perhaps"); ok {
		t.Error("Bool(perhaps) ok")
	}
	for in, want := range map[string]bool{"```": true, "```json": true, "Sure! Here are my insights:": true, "Let me know if you need more.": true, "---": true, "": true,
		"The key opens the golden locker.": false, "Here the drawer holds a key.": false} {
		if got := Junk(in); got != want {
			t.Errorf("Junk(%q) = %v, want %v", in, got, want)
		}
	}
	if v, ok := JSONString(`Sure: {"Action": "go to drawer 1"}`, "action"); !ok || v != "go to drawer 1" {
		t.Errorf("JSONString = %q, %v", v, ok)
	}
}

// FuzzClean: the normaliser never panics, keeps valid UTF-8 valid, and
// never leaves a fence line or grows the reply.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"```json\n{}\n```", "Sure!\nx", "**Action:** go", "\"a.\"", "~~~\n", "```\n```\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _ := Clean(s)
		if len(out) > len(s) {
			t.Fatalf("Clean grew %q to %q", s, out)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) is not valid UTF-8", s)
		}
		for _, l := range strings.Split(out, "\n") {
			if isFence(l) {
				t.Fatalf("Clean(%q) kept the fence line %q", s, l)
			}
		}
		Label(s, "action")
		if u, _ := Unquote(s); len(u) > len(s) {
			t.Fatalf("Unquote grew %q to %q", s, u)
		}
		Bool(s)
		Junk(s)
		JSONString(s, "action")
	})
}
