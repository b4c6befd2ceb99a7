package zmachine

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNoteNames: the capitalised words of a text come first, the latest
// first, each once; headings in capitals and short words are left out;
// at most maxNames are kept.
func TestNoteNames(t *testing.T) {
	got := noteNames([]string{"vincent", "old"}, "WEST HALL\nNorbert met Vincent. Then Gus left. An ox.")
	want := []string{"gus", "then", "vincent", "norbert", "old"}
	if !slices.Equal(got, want) {
		t.Errorf("noteNames: %q, want %q", got, want)
	}
	var many []string
	for i := 0; i < 2*maxNames; i++ {
		many = append(many, "Name"+strings.Repeat("x", i%26)+string(rune('a'+i%26)))
	}
	if got := noteNames(nil, strings.Join(many, " ")); len(got) > maxNames {
		t.Errorf("%d names kept, at most %d", len(got), maxNames)
	}
}

// FuzzNoteNames: any text leaves at most maxNames names, each once, each
// lower case letters and hyphens of three bytes or more, and keeps the
// names it was given after the new ones.
func FuzzNoteNames(f *testing.F) {
	f.Add("Norbert met Vincent.", "gus")
	f.Add("ÉCOLE Ünder \x00\xff Abc-Def", "")
	f.Fuzz(func(t *testing.T, text, old string) {
		prev := noteNames(nil, old)
		got := noteNames(prev, text)
		if len(got) > maxNames {
			t.Fatalf("%d names", len(got))
		}
		seen := map[string]bool{}
		for _, n := range got {
			if seen[n] || len(n) < 3 || !utf8.ValidString(n) || strings.ToLower(n) != n ||
				strings.IndexFunc(n, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '-') }) >= 0 {
				t.Fatalf("name %q (seen %v) in %q", n, seen[n], got)
			}
			seen[n] = true
		}
		if len(got) < maxNames {
			for _, p := range prev {
				if !seen[p] {
					t.Fatalf("old name %q lost: %q", p, got)
				}
			}
		}
	})
}

// TestAnswersWhereNothingElse: murdac's keeper asks what the player will
// take on the journey; no template changes the world there, and the
// search answers with the names of things ("sword" among them), so the
// list is not empty.
func TestAnswersWhereNothingElse(t *testing.T) {
	env, walk := playTo(t, "murdac.z5", 302)
	if walk[302] != "sword" {
		t.Fatalf("murdac's step 302 is %q, not the answer this test is about", walk[302])
	}
	w, err := env.World()
	if err != nil {
		t.Fatal(err)
	}
	if a := env.answers(env.vm.dictionary(), w); !slices.Contains(a, "sword") {
		t.Errorf("answers lack %q: %q", "sword", a)
	}
	acts, err := env.validActions(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) == 0 {
		t.Fatal("no valid action where the game asks a question")
	}
	for _, a := range acts {
		if f := strings.Fields(a); len(f) > 2 || len(f) == 2 && f[0] != "say" {
			t.Errorf("%q is no answer", a)
		}
	}
}

// TestPrepositionSynonymsOnce: a grammar that has "put OBJ in OBJ" and
// "put OBJ into OBJ" gives one template; "into" stays where no "in" form
// is there.
func TestPrepositionSynonymsOnce(t *testing.T) {
	var got []string
	for _, tp := range parseGrammar("put OBJ in OBJ;put OBJ into OBJ;put OBJ onto OBJ;put OBJ on OBJ;empty OBJ into OBJ;hang OBJ upon OBJ", 9) {
		got = append(got, tp.String())
	}
	want := []string{"put OBJ in OBJ", "put OBJ on OBJ", "empty OBJ into OBJ", "hang OBJ upon OBJ"}
	if !slices.Equal(got, want) {
		t.Errorf("templates %q, want %q", got, want)
	}
}

// TestNoteQuoted: the words a text quotes alone or writes alone in
// capitals are kept, the latest first, each once, punctuation dropped;
// quoted sentences, short or non-letter quotes and runs of capitals are
// not; at most maxQuoted are kept.
func TestNoteQuoted(t *testing.T) {
	got := noteQuoted([]string{"plover", "xyzzy"},
		`The word "MINIRVA" is painted on one side. "Hello there," he says. A voice says "PLUGH." "42" "ab" "Plover!"`+"\nWEST HALL\nType TELL GNOME ABOUT PIG.")
	// the latest first: the words quoted, then those in capitals
	want := []string{"plugh", "minirva", "plover", "xyzzy"}
	if !slices.Equal(got, want) {
		t.Errorf("noteQuoted: %q, want %q", got, want)
	}
	var many []string
	for i := 0; i < 2*maxQuoted; i++ {
		many = append(many, `"word`+string(rune('a'+i%26))+string(rune('a'+i/26))+`"`)
	}
	if got := noteQuoted(nil, strings.Join(many, " ")); len(got) != maxQuoted {
		t.Errorf("%d quoted words kept, want %d", len(got), maxQuoted)
	}
}

// FuzzNoteQuoted: any text leaves at most maxQuoted words, each once, each
// of lower case letters, three or more.
func FuzzNoteQuoted(f *testing.F) {
	f.Add(`The word "MINIRVA" is painted.`, "plugh")
	f.Add("\"\"\"a\"\xff\"ÉCOLE\" \"abc", "")
	f.Fuzz(func(t *testing.T, text, old string) {
		got := noteQuoted(noteQuoted(nil, old), text)
		if len(got) > maxQuoted {
			t.Fatalf("%d words", len(got))
		}
		seen := map[string]bool{}
		for _, w := range got {
			if seen[w] || len(w) < 3 || !isLetters(w) {
				t.Fatalf("word %q (seen %v) in %q", w, seen[w], got)
			}
			seen[w] = true
		}
	})
}

// TestDemandsAnswer: a question, a prompt ending in a colon and an order
// to tell or speak ask for a word; a plain text does not.
func TestDemandsAnswer(t *testing.T) {
	for text, want := range map[string]bool{
		"Vincent grabs you.\n\nYou reply:\n\n>":                            true,
		"\"Who's been sayin' that?\"\n>":                                   true,
		"\"So tell me the patron saint, lad, if ye wish to stay dry!\"\n>": true,
		"What do you want to do?":                                          true,
		"The door is locked.\n\n>":                                         false,
		"\"Who are you?\" he asks.\n\nYou are in a hall.\n>":               false,
		"": false,
	} {
		if got := demandsAnswer(text); got != want {
			t.Errorf("demandsAnswer(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestQuotedWordSaid: where the game demands a word (the captain's patron
// saint), a word an observation quoted hundreds of moves before ("The word
// "MINIRVA" is painted on one side") is said, and it changes the world.
func TestQuotedWordSaid(t *testing.T) {
	env, walk := playTo(t, "spirit.z5", 1130)
	if walk[1130] != "say minirva" {
		t.Fatalf("spirit's step 1130 is %q, not the answer this test is about", walk[1130])
	}
	if !slices.Contains(env.quoted, "minirva") {
		t.Fatalf("quoted words lack %q: %q", "minirva", env.quoted)
	}
	acts, err := env.validActions(1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(acts, "say minirva") {
		t.Errorf("valid actions lack %q: %q", "say minirva", acts)
	}
}

// TestCharacterAnswers: yomomma after "insult vincent" ("Who's been
// sayin' that? ... You reply:"): the answers hold the characters of the
// tree by their names' first word, though the text never named Norbert
// and the objects have no short names; the search, where no candidate
// changes the world, plays them past one budget, so that "norbert" and
// "sleaze" (each about 300,000 instructions a play) are listed. Without
// the characters the list is empty.
func TestCharacterAnswers(t *testing.T) {
	env, walk := playTo(t, "yomomma.z8", 10)
	if walk[10] != "norbert" {
		t.Fatalf("yomomma's step 10 is %q, not the answer this test is about", walk[10])
	}
	w, err := env.World()
	if err != nil {
		t.Fatal(err)
	}
	chars := env.characterWords(w)
	for _, c := range []string{"norbert", "sleaze", "vincent"} {
		if !slices.Contains(chars, c) {
			t.Errorf("characters lack %q: %q", c, chars)
		}
	}
	for _, c := range []string{"table", "jukebox", "cola"} {
		if slices.Contains(chars, c) {
			t.Errorf("%q is no character: %q", c, chars)
		}
	}
	a := env.answers(env.vm.dictionary(), w)
	if i, j := slices.Index(a, "norbert"), slices.Index(a, "arcade"); i < 0 || j >= 0 && j < i {
		t.Errorf("a question of who: the characters come first, norbert at %d, arcade at %d: %q", i, j, a)
	}
	acts, err := env.validActions(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"norbert", "sleaze"} {
		if !slices.Contains(acts, want) {
			t.Errorf("valid actions %q lack %q", acts, want)
		}
	}
}
