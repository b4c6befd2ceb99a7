package zmachine

import (
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
)

// openGame opens a game of ../shared/games in-process and resets it.
func openGame(t *testing.T, rel string) *Env {
	t.Helper()
	_, env, _ := openFirst(t, filepath.Join(gamesDir(t), rel), 100)
	return env
}

// TestValidActionsConcurrentEqualsSequential: the candidates tried on
// several machines at once give the list the sequential search gives, in
// the same order, and leave the game as it was; run twice, so the second
// search runs on clones made by the first.
func TestValidActionsConcurrentEqualsSequential(t *testing.T) {
	for _, c := range []struct {
		game string
		want []string // actions the list must hold
	}{
		{"jericho/zork1.z5", []string{"north", "south", "west", "open mailbox"}},
		// hunt's Room A: the way west and the key; the locker is locked
		// and north is no exit ("You can't go that way."): neither is
		// listed, though each passes a turn.
		{"arigraph/hunt.z8", []string{"west", "take key 1"}},
		{"arigraph/cook_1_1_cut.z8", []string{"take cookbook", "take knife", "take yellow onion", "open oven"}},
	} {
		t.Run(filepath.Base(c.game), func(t *testing.T) {
			env := openGame(t, c.game)
			before := env.vm.m.WorldHash()
			seq, err := env.validActions(1)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !slices.Contains(seq, w) {
					t.Errorf("sequential list %q lacks %q", seq, w)
				}
			}
			for _, no := range []string{"north", "open golden locker", "drink fridge", "drink oven"} {
				if slices.Contains(seq, no) && !slices.Contains(c.want, no) {
					t.Errorf("sequential list %q holds %q, which changes nothing", seq, no)
				}
			}
			for round := 0; round < 2; round++ {
				for _, workers := range []int{2, 4, 8} {
					par, err := env.validActions(workers)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(par, seq) {
						t.Errorf("round %d, %d workers: %q, sequential %q", round, workers, par, seq)
					}
				}
			}
			// 8 workers asked: at most maxValidWorkers machines, one per
			// minPerWorker candidates
			want := min(maxValidWorkers, (len(env.candidates())+minPerWorker-1)/minPerWorker) - 1
			if len(env.vm.clones) != want {
				t.Errorf("%d clones kept, want %d", len(env.vm.clones), want)
			}
			if env.vm.m.WorldHash() != before {
				t.Error("valid actions changed the game")
			}
			// The game plays on from where it was.
			res, err := env.Step(ctxT(t), seq[0])
			if err != nil || res.Text == "" {
				t.Errorf("step %q after valid actions: %q, %v", seq[0], res.Text, err)
			}
		})
	}
}

// TestNounsIn: runs of dictionary nouns are one name; directions, the
// room's name and words that name nothing are left out.
func TestNounsIn(t *testing.T) {
	d := &dictionary{res: 9, inform: true, words: map[string]byte{
		"golden": 0x80, "locker": 0x80, "key": 0x80, "1": 0x80, "room": 0x80, "a": 0x80,
		"west": 0x80, "and": 0x80, "take": 0x01, "yellow": 0x80, "bell": 0x80, "pepper": 0x80,
	}}
	got := d.nounsIn("-= Room A =-\nYou notice a Golden locker. Go west. There is a Key 1 and a yellow bell pepper; take the key 1.", "Room A")
	want := []string{"golden locker", "key 1", "yellow bell pepper"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("nounsIn: %q, want %q", got, want)
	}
}

// FuzzNounsIn: any game text gives at most maxValidObjects names, each
// once, each of one to four words the dictionary marks as nouns, none a
// direction or a word of the room's name.
func FuzzNounsIn(f *testing.F) {
	d := &dictionary{res: 9, inform: true, words: map[string]byte{
		"golden": 0x80, "locker": 0x80, "key": 0x80, "1": 0x80, "room": 0x80, "west": 0x80,
		"and": 0x80, "take": 0x81, "pepper": 0x80, "a": 0x80, "abcdefghijkl": 0x80,
	}}
	f.Add("-= Room A =-\nA Golden locker, a key 1 and a pepper. West.", "Room A")
	f.Add("golden golden golden golden golden locker", "")
	f.Add("abcdefghijklmnop key\x00\xff", "key")
	f.Fuzz(func(t *testing.T, text, room string) {
		got := d.nounsIn(text, room)
		if len(got) > maxValidObjects {
			t.Fatalf("%d names", len(got))
		}
		seen := map[string]bool{}
		for _, name := range got {
			ws := strings.Fields(name)
			if seen[name] || len(ws) < 1 || len(ws) > 4 {
				t.Fatalf("name %q (seen %v)", name, seen[name])
			}
			seen[name] = true
			for _, w := range ws {
				if f, ok := d.words[d.key(w)]; !ok || f&0x80 == 0 || d.verb(w) || directionWords[w] {
					t.Fatalf("name %q holds %q", name, w)
				}
				for _, r := range strings.Fields(strings.ToLower(room)) {
					if w == r {
						t.Fatalf("name %q holds the room's word %q", name, w)
					}
				}
			}
		}
	})
}

// TestParseGrammar: Jericho's verb grammar becomes templates written with
// the words players type: synonyms chosen, cut words written out, phrasal
// verbs kept only in their usual forms, meta commands and topics left out,
// and each template classed for the search's order.
func TestParseGrammar(t *testing.T) {
	g := "carry/catch/get/grab/hold/remove/take OBJ;drop/releas OBJ;climb/sit/carry/catch/get/grab/hold/remove/take in OBJ;" +
		"carry/catch/get/grab/hold/remove/take out OBJ;flip/set/shut/turn on OBJ;flip/set/shut/turn OBJ on;" +
		"hide/insert/place/put/stuff OBJ in OBJ;lock OBJ with OBJ;carry/catch/get/grab/hold/remove/take OBJ from OBJ;" +
		"descri/examin/what/whats OBJ;ask/tell OBJ about OBJ;donate/feed/give/offer/hand OBJ OBJ;" +
		"save;score;stand;frotz OBJ;gnusto OBJ;wait/z;diagno;q/quit;hop/skip"
	var got []string
	tiers := map[string]int{}
	for _, tp := range parseGrammar(g, 6) {
		got = append(got, tp.String())
		tiers[tp.String()] = tp.tier
	}
	want := []string{"take OBJ", "drop OBJ", "get in OBJ", "get out OBJ", "turn on OBJ", "put OBJ in OBJ", "lock OBJ with OBJ",
		"take OBJ from OBJ", "examine OBJ", "stand", "frotz OBJ", "gnusto OBJ", "wait", "hop"}
	if !slices.Equal(got, want) {
		t.Fatalf("templates %q, want %q", got, want)
	}
	for tpl, tier := range map[string]int{"take OBJ": tierTake, "drop OBJ": tierTake, "get in OBJ": tierCore,
		"put OBJ in OBJ": tierCore, "stand": tierAlone, "frotz OBJ": tierOwn, "examine OBJ": tierCore} {
		if tiers[tpl] != tier {
			t.Errorf("%s: tier %d, want %d", tpl, tiers[tpl], tier)
		}
	}
}

// TestValidBudgetConcurrentEqualsSequential: with a budget that cuts the
// search short, and objects the game says are not here, the list and the
// candidates tried are the same on any number of machines.
func TestValidBudgetConcurrentEqualsSequential(t *testing.T) {
	path := filepath.Join(gamesDir(t), "jericho", "curses.z5")
	for _, budget := range []int{400_000, 1_000_000} {
		s, err := NewSuite(ctxT(t), Config{MaxSteps: 100, ValidBudget: budget}, path)
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := s.Tasks("train")
		env, err := s.OpenEnv(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		if _, err := env.Reset(ctxT(t), ts[0]); err != nil {
			t.Fatal(err)
		}
		seq, err := env.search(1, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if seq.tried >= seq.candidates {
			t.Fatalf("budget %d: all %d candidates tried; the test wants a cut", budget, seq.candidates)
		}
		for _, workers := range []int{2, 4} {
			par, err := env.search(workers, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(par.actions, seq.actions) || par.tried != seq.tried {
				t.Errorf("budget %d, %d workers: %q (%d tried), sequential %q (%d tried)", budget, workers, par.actions, par.tried, seq.actions, seq.tried)
			}
		}
		t.Logf("budget %d: %d of %d candidates tried, %d actions", budget, seq.tried, seq.candidates, len(seq.actions))
	}
}

// TestGrammarMetaWords: a command without an object whose words say a meta
// command ("take inventory", "script off") is no template.
func TestGrammarMetaWords(t *testing.T) {
	for _, tp := range parseGrammar("carry/hold/take inventory;script off;get up;take OBJ", 9) {
		if s := tp.String(); s == "take inventory" || s == "script off" {
			t.Errorf("template %q", s)
		}
	}
}

// TestRefusedCandidatesLast: a candidate a search played to no change is
// tried after the others once the episode moves on, and only then (two
// searches of one state make one list); a new episode forgets it.
func TestRefusedCandidatesLast(t *testing.T) {
	s, env, _ := openFirst(t, filepath.Join(gamesDir(t), "jericho/zork1.z5"), 100)
	texts := func() []string {
		var out []string
		for _, c := range env.candidateList() {
			out = append(out, c.text)
		}
		return out
	}
	first := texts()
	if _, err := env.validActions(1); err != nil {
		t.Fatal(err)
	}
	refused := len(env.pending)
	if refused == 0 {
		t.Fatal("no candidate at West of House changed nothing")
	}
	a, _ := env.validActions(1)
	b, _ := env.validActions(1)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(texts(), first) {
		t.Errorf("a second search of one state changed the list or the order: %q, %q", a, b)
	}
	// "wait" changes no object: the player stays at West of House, and
	// what was refused there comes after what was not.
	if _, err := env.Step(ctxT(t), "wait"); err != nil {
		t.Fatal(err)
	}
	after := env.candidateList()
	seenRefused := false
	for _, c := range after {
		isRefused := c.key() != "" && env.refused[c.key()]
		if isRefused {
			seenRefused = true
		} else if seenRefused {
			t.Fatalf("%q (not refused) comes after a refused candidate: %v", c.text, after)
		}
	}
	if !seenRefused {
		t.Errorf("no candidate put back after a wait; refused before: %d", refused)
	}
	ts, _ := s.Tasks(envbridge.SplitTrain)
	if _, err := env.Reset(ctxT(t), ts[0]); err != nil {
		t.Fatal(err)
	}
	if len(env.refused) != 0 || !reflect.DeepEqual(texts(), first) {
		t.Errorf("a new episode keeps %d refusals", len(env.refused))
	}
}

// reNotHereRef is the phrases of notHere as a regular expression, the
// reference FuzzNotHere checks notHere against.
var reNotHereRef = regexp.MustCompile(`(?i)\b(?:can't|cannot|can not|don't|do not) see (?:any|that|such|no)\b|\bno such thing\b|\bdon't know the word\b|\b(?:isn't|is not|aren't|are not) here\b`)

// FuzzNotHere: on ASCII text under 400 bytes notHere answers as the
// regular expression does (beyond ASCII the expression's case folding
// also maps the long s and the Kelvin sign to letters; notHere does not).
func FuzzNotHere(f *testing.F) {
	f.Add("You can't see any such thing.\n\n>")
	f.Add("You can't see any lamp here!")
	f.Add("I don't know the word \"xyzzy\".")
	f.Add("The troll isn't here.")
	f.Add("Taken. There is nothing here.")
	f.Add("YOU CANNOT SEE THAT")
	f.Add("scan't see any")
	f.Add("don't see anyone")
	f.Fuzz(func(t *testing.T, text string) {
		ascii := len(text) < 400
		for i := 0; i < len(text); i++ {
			ascii = ascii && text[i] < 0x80
		}
		if !ascii {
			notHere(text) // must not panic
			return
		}
		if got, want := notHere(text), reNotHereRef.MatchString(text); got != want {
			t.Fatalf("notHere(%q) = %v, the expression says %v", text, got, want)
		}
	})
}

// TestUncommonTwoObjectFormsLast checks that a common verb's two-object
// forms other than the usual ones ("drop OBJ in OBJ", the Inform library's
// Insert again; "take OBJ from OBJ", where "take OBJ" leads) are tried
// after every one-object command, and the usual ones ("put OBJ in OBJ",
// "unlock OBJ with OBJ") with the core verbs.
func TestUncommonTwoObjectFormsLast(t *testing.T) {
	want := map[string]int{
		"put OBJ in OBJ":      tierCore,
		"unlock OBJ with OBJ": tierCore,
		"give OBJ to OBJ":     tierCore,
		"drop OBJ in OBJ":     tierRest,
		"throw OBJ on OBJ":    tierRest,
		"put OBJ behind OBJ":  tierRest,
		"take OBJ from OBJ":   tierRest,
		"push OBJ to OBJ":     tierRest,
		"read OBJ":            tierCore,
	}
	got := map[string]int{}
	for _, tp := range parseGrammar("put OBJ in OBJ;unlock OBJ with OBJ;give OBJ to OBJ;discard/drop/throw OBJ in OBJ;"+
		"throw OBJ on OBJ;put OBJ behind OBJ;carry/get/take OBJ from OBJ;push OBJ to OBJ;read OBJ", 9) {
		got[tp.String()] = tp.tier
	}
	for k, tier := range want {
		if g, ok := got[k]; !ok || g != tier {
			t.Errorf("%q: tier %d (made %v), want %d", k, g, ok, tier)
		}
	}
}
