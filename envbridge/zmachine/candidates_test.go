package zmachine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/internal/testenv"
)

// playTo opens a game of the Jericho suite and plays the first n commands
// of its walkthrough; it skips when the game or its walkthrough is absent.
func playTo(t *testing.T, file string, n int) (*Env, []string) {
	t.Helper()
	dir := filepath.Join(gamesDir(t), "jericho")
	games, ok, err := ReadJericho(filepath.Join(dir, JerichoFile))
	if err != nil {
		t.Fatal(err)
	}
	testenv.Need(t, ok, fmt.Sprintf("%s in %s (Jericho's walkthroughs)", JerichoFile, dir))
	jg, ok := games[file]
	testenv.Need(t, ok && len(jg.Walkthrough) > n, fmt.Sprintf("%s's walkthrough in %s", file, JerichoFile))
	_, env, _ := openFirst(t, filepath.Join(dir, file), 100000)
	for _, c := range jg.Walkthrough[:n] {
		if _, err := env.Step(ctxT(t), c); err != nil {
			t.Fatalf("%s %q: %v", file, c, err)
		}
	}
	return env, jg.Walkthrough
}

// TestCandidateKinds: in the state before a walkthrough step of each kind,
// the candidates hold the step's command as the search writes it, and that
// command changes the world (it is a candidate worth trying).
func TestCandidateKinds(t *testing.T) {
	for _, c := range []struct {
		name, file string
		step       int
		want       string
	}{
		{"all from", "905.z5", 10, "take all from table"},
		{"push in a direction", "inhumane.z5", 117, "push coffin north"},
		{"order", "karn.z5", 94, "k9, follow me"},
		{"topic", "anchor.z8", 180, "ask proprietor about amulet"},
		{"word verb", "balances.z5", 10, "learn bozbar"},
		{"open a container", "curses.z5", 256, "open coffin"},
		{"put in a fixture", "ludicorp.z5", 186, "put cartridge in slot"},
		{"unlock in the older attribute order", "library.z5", 26, "unlock door with key"},
		{"a hyphenated name as the dictionary cuts it", "ztuu.z5", 8, "put on fish-mouthed mask"},
		{"a single letter that tells two things apart", "gold.z5", 156, "push b switch"},
		{"the letter a after its noun, not read as the article", "gold.z5", 232, "push switch a"},
		{"a hyphenated word cut where the dictionary cuts it", "spirit.z5", 158, "open navy-blue box"},
		{"a device in the later Inform 7 order", "afflicted.z8", 34, "turn on light"},
		{"a fixed thing on a counter in the later Inform 7 order", "partyfoul.z8", 13, "take knife"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, walk := playTo(t, c.file, c.step)
			t.Logf("walkthrough step %d: %q", c.step, walk[c.step])
			wantChange(t, env, c.want)
		})
	}
}

// TestObjectNames: where a game keeps the words its parser knows an object
// by, the name valid actions give the object ends with one of them (so the
// parser understands it), and a short name's word the list lacks is not
// used ("tunnel to west" is "tunnel"); the property is found on an
// Infocom game (its own SYNONYM property) and on Inform games (property
// 1).
func TestObjectNames(t *testing.T) {
	for _, c := range []struct {
		file  string
		prop  int
		short string // an object's short name
		want  string // its name
	}{
		{"zork1.z5", 18, "small mailbox", "small mailbox"},
		{"lostpig.z8", 1, "tunnel to west", "tunnel"},
		{"anchor.z8", 1, "Rainwater_1", "rainwater"},
	} {
		t.Run(c.file, func(t *testing.T) {
			env, _ := playTo(t, c.file, 0)
			vg := env.vm
			if p := vg.nameFacts().prop; p != c.prop {
				t.Errorf("names property %d, want %d", p, c.prop)
			}
			w, err := env.World()
			if err != nil {
				t.Fatal(err)
			}
			d := vg.dictionary()
			found, checked := false, 0
			for _, o := range w.Objects {
				known := vg.objectWords(o.ID)
				ws := vg.nameWordsOf(o.ID, o.Name)
				if o.Name == c.short {
					found = true
					if got := strings.Join(ws, " "); got != c.want {
						t.Errorf("%q is named %q, want %q", o.Name, got, c.want)
					}
				}
				if len(known) == 0 || len(ws) == 0 {
					continue
				}
				checked++
				// the last word (an adjective may stand with it: "hq cube")
				f := strings.Fields(ws[len(ws)-1])
				last := d.key(f[len(f)-1])
				if !slices.ContainsFunc(known, func(k string) bool { return d.key(k) == last }) {
					t.Errorf("%d %q is named %q, which its words %q lack", o.ID, o.Name, ws, known)
				}
			}
			if !found {
				t.Errorf("no object %q", c.short)
			}
			if checked < 20 {
				t.Errorf("only %d objects with words", checked)
			}
		})
	}
}

// TestAttrLayout: the Inform library's attribute order is recognised by
// the player object (Anchorhead, Inform 7: the current order; Curses:
// the older one) and not assumed for an Infocom game; kindOK keeps a
// template to the things of the kind its verb needs.
func TestAttrLayout(t *testing.T) {
	for _, c := range []struct {
		file string
		want *attrLayout
	}{
		{"anchor.z8", &attrLayouts[0]},
		{"curses.z5", &attrLayouts[1]},
		{"deephome.z5", &attrLayouts[2*4]},                 // four attributes of its own first
		{"lostpig.z8", &attrLayouts[2*6]},                  // six
		{"theatre.z5", &attrLayouts[2*2+1]},                // the older order, two
		{"afflicted.z8", &attrLayouts[2*(maxAttrShift+1)]}, // the later Inform 7 order
		{"yomomma.z8", &attrLayouts[2*(maxAttrShift+1)]},
		{"zork1.z5", nil},
	} {
		env, _ := playTo(t, c.file, 0)
		w, err := env.World()
		if err != nil {
			t.Fatal(err)
		}
		if got := informAttrs(w); got != c.want {
			t.Errorf("%s: layout %v, want %v", c.file, got, c.want)
		}
	}
	l := &attrLayouts[0]
	for _, c := range []struct {
		verb   string
		attrs  []int
		second bool
		want   bool
	}{
		{"wear", []int{l.clothing}, false, true},
		{"wear", []int{l.clothing, l.worn}, false, false}, // worn already
		{"wear", nil, false, false},
		{"take off", []int{l.clothing, l.worn}, false, true},
		{"open", []int{l.openable}, false, true},
		{"open", []int{l.scenery}, false, false},
		{"eat", []int{l.edible}, false, true},
		{"in", []int{l.container}, true, true},
		{"in", []int{l.supporter}, true, false},
		{"on", []int{l.supporter}, true, true},
		{"examine", nil, false, true},
		{"push", nil, false, true},
		{"take", []int{l.static}, false, false},
		{"take", []int{l.clothing}, false, true},
		{"open", []int{l.openable, l.open}, false, false}, // open already
		{"open", []int{l.container, l.open}, false, true}, // a rule of its own may open it
		{"close", []int{l.openable}, false, false},        // closed already
		{"close", []int{l.openable, l.open}, false, true},
		{"unlock", []int{l.lockable}, false, false},
		{"unlock", []int{l.lockable, l.locked}, false, true},
		{"lock", []int{l.lockable, l.open}, false, false},
		{"lock", []int{l.lockable}, false, true},
		{"turn on", []int{l.switchable, l.on}, false, false},
		{"turn on", []int{l.switchable}, false, true},
		{"turn off", []int{l.switchable, l.on}, false, true},
		{"turn off", []int{l.switchable}, false, false},
		{"read", []int{l.animate}, false, false},
		{"drink", []int{l.door}, false, false},
		{"drink", nil, false, true},
		{"kill", []int{l.animate}, false, true},
		{"enter", []int{l.scenery}, false, true},   // a passage with a rule of its own
		{"get in", []int{l.scenery}, false, false}, // "enter" says it once
	} {
		if got := l.kindOK(c.verb, c.attrs, c.second); got != c.want {
			t.Errorf("kindOK(%q, %v, %v) = %v, want %v", c.verb, c.attrs, c.second, got, c.want)
		}
	}
}

// TestWhereAThingIs: nothing the player carries is entered, climbed or
// got off (anchor, the trenchcoat carried), while it is still worn; the
// things the last action named come first after the moves (curses,
// after "get rod of returning").
func TestWhereAThingIs(t *testing.T) {
	env, _ := playTo(t, "anchor.z8", 48)
	cands := env.candidates()
	if !slices.Contains(cands, "put on trenchcoat") {
		t.Fatalf("no \"put on trenchcoat\" among %q", cands)
	}
	for _, c := range []string{"enter trenchcoat", "get in trenchcoat", "climb trenchcoat", "exit trenchcoat", "get off trenchcoat"} {
		if slices.Contains(cands, c) {
			t.Errorf("%q is a candidate: the trenchcoat is carried", c)
		}
	}
	env, walk := playTo(t, "curses.z5", 274)
	if walk[273] != "get rod of returning" {
		t.Fatalf("curses step 273 is %q", walk[273])
	}
	for _, c := range env.candidateList() {
		if validMovesHas(c.text) || c.text == walk[273] {
			continue // the moves, and the command played last again
		}
		if c.obj != "returning" {
			t.Errorf("first candidate after the moves %q, want one about the rod just taken", c.text)
		}
		break
	}
}

// TestWhereInfocom: where the attribute layout is unknown (Infocom games),
// a carried thing is not entered or climbed, and only what holds the
// player is got out of; a thing in the room is still entered.
func TestWhereInfocom(t *testing.T) {
	env, _ := playTo(t, "planetfall.z3", 238)
	w, _ := env.World()
	if informAttrs(w) != nil {
		t.Fatal("planetfall read as an Inform game")
	}
	cands := env.candidates()
	if !slices.Contains(cands, "drop box") {
		t.Fatalf("the box is not carried: %q", cands)
	}
	for _, c := range []string{"enter box", "get in box", "climb in box", "climb on box", "exit box", "exit slot", "get out slot"} {
		if slices.Contains(cands, c) {
			t.Errorf("%q is a candidate", c)
		}
	}
	env, walk := playTo(t, "zork2.z5", 142)
	if walk[142] != "GET IN BASKET" {
		t.Fatalf("zork2 step 142 is %q", walk[142])
	}
	wantChange(t, env, "get in wicker basket") // another basket shares the noun
}

func validMovesHas(c string) bool {
	return slices.Contains(validMoves, c) || slices.Contains(moveAbbrevs, c)
}

// TestCarries: carries follows the chain of parents, and ends on a cycle.
func TestCarries(t *testing.T) {
	w := World{Objects: []WorldObject{{ID: 1}, {ID: 2, Parent: 1}, {ID: 3, Parent: 2}, {ID: 4, Parent: 5}, {ID: 5, Parent: 4}}}
	for _, c := range []struct {
		holder, id int
		want       bool
	}{{1, 3, true}, {2, 3, true}, {3, 1, false}, {1, 4, false}, {0, 3, false}} {
		if got := w.carries(c.holder, c.id); got != c.want {
			t.Errorf("carries(%d, %d) = %v, want %v", c.holder, c.id, got, c.want)
		}
	}
}

// TestOneWordCommandsPutBackEverywhere: an uncommon command without an
// object that changed nothing in one room is tried after the others in
// the next room too.
func TestOneWordCommandsPutBackEverywhere(t *testing.T) {
	env, _ := playTo(t, "zork1.z5", 0)
	if _, err := env.validActions(1); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Step(ctxT(t), "north"); err != nil {
		t.Fatal(err)
	}
	var back []string
	for _, c := range env.candidateList() {
		if strings.HasSuffix(c.key(), "|anywhere") && env.refused[c.key()] {
			back = append(back, c.text)
		}
	}
	if len(back) == 0 {
		t.Fatal("no one-word command refused at West of House is put back at North of House")
	}
	t.Logf("put back: %q", back)
}

// TestLastTextFirst: the things the last text names are tried with the
// core verbs before anything is taken or dropped. In anchor before
// "Read wall" (the wall's writing just described), "read wall" comes
// before every take and drop, and it changes the world.
func TestLastTextFirst(t *testing.T) {
	env, walk := playTo(t, "anchor.z8", 176)
	want := strings.ToLower(walk[176])
	if want != "read wall" {
		t.Fatalf("anchor's walkthrough step 176 is %q, not \"read wall\"", walk[176])
	}
	cands := env.candidates()
	at := slices.Index(cands, want)
	if at < 0 {
		t.Fatalf("%d candidates lack %q: %q", len(cands), want, cands)
	}
	for _, c := range cands[:at] {
		if strings.HasPrefix(c, "take ") || strings.HasPrefix(c, "drop ") {
			t.Fatalf("%q (candidate %d) comes after %q: %q", want, at, c, cands[:at+1])
		}
	}
	sr, err := env.search(1, []string{want}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !sr.extraOK[0] || sr.extra[0] == sr.base {
		t.Errorf("%q changes nothing", want)
	}
}

// TestWordVerbs: the verbs a game's dictionary has and its Jericho
// grammar lacks, one per verb number, talk left out ("learn" for
// spirit's learn/memorise/memorize/prepare; its say, tell and consult
// are not word verbs), and none in a game whose grammar has every verb.
func TestWordVerbs(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"spirit.z5", []string{"learn"}},
		{"balances.z5", []string{"copy", "learn", "write"}},
		{"zork1.z5", []string{}},
	} {
		env, _ := playTo(t, c.file, 0)
		if got := env.vm.wordVerbs(env.g.jericho.Grammar); !slices.Equal(got, c.want) {
			t.Errorf("%s: word verbs %q, want %q", c.file, got, c.want)
		}
	}
}

// TestRemoveOnlyWhatIsWorn: where the Inform library's attributes are
// known, "remove X" is tried on what the player wears (anchor: the ring,
// before "Remove ring") and on nothing else, whose removal is a take.
func TestRemoveOnlyWhatIsWorn(t *testing.T) {
	env, walk := playTo(t, "anchor.z8", 214)
	t.Logf("walkthrough step 214: %q", walk[214])
	cands := env.candidates()
	if !slices.Contains(cands, "remove ring") {
		t.Fatalf("%d candidates lack %q", len(cands), "remove ring")
	}
	w, err := env.World()
	if err != nil {
		t.Fatal(err)
	}
	layout := informAttrs(w)
	if layout == nil {
		t.Fatal("anchor's attribute layout not recognised")
	}
	worn := 0
	for _, o := range w.Objects {
		if o.Parent == w.Player && slices.Contains(o.Attrs, layout.worn) {
			worn++
		}
	}
	n := 0
	for _, c := range cands {
		if strings.HasPrefix(c, "remove ") && !strings.Contains(c, " from ") {
			n++
		}
	}
	if n == 0 || n > worn {
		t.Errorf("%d remove candidates for %d things worn", n, worn)
	}
}

// TestStarvedNoFocus: in afflicted (Inform 7, kinds unknown), a search
// plays some 30 candidates in its budget; once one has, the next state's
// list has no block of core verbs on the things the last text names
// before the takes and drops, and "take all", which the walkthrough plays
// next, comes earlier than with that block.
func TestStarvedNoFocus(t *testing.T) {
	env, walk := playTo(t, "afflicted.z8", 61)
	if strings.ToLower(walk[62]) != "take all" {
		t.Fatalf("afflicted's walkthrough step 62 is %q, not \"take all\"", walk[62])
	}
	if env.starved() {
		t.Fatal("starved before any search")
	}
	sr, err := env.search(1, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if sr.tried >= starvedPlayed {
		t.Fatalf("the search played %d candidates, not fewer than %d", sr.tried, starvedPlayed)
	}
	if _, err := env.Step(ctxT(t), walk[61]); err != nil {
		t.Fatal(err)
	}
	if !env.starved() {
		t.Fatalf("not starved after a search that played %d candidates", sr.tried)
	}
	cands := env.candidates()
	first := slices.IndexFunc(cands, func(c string) bool {
		return !slices.Contains(validMoves, c) && c != strings.ToLower(walk[61]) // nor the command played last again
	})
	if first < 0 || !strings.HasPrefix(cands[first], "take ") && !strings.HasPrefix(cands[first], "drop ") {
		t.Fatalf("the first candidate after the moves is not a take or drop: %q", cands[:min(len(cands), first+5)])
	}
	at := slices.Index(cands, "take all")
	played := env.played
	env.played = 0 // as if not starved
	full := env.candidates()
	env.played = played
	if was := slices.Index(full, "take all"); at < 0 || was >= 0 && at >= was {
		t.Errorf("\"take all\" is candidate %d starved, %d not", at, was)
	}
}

// TestFocusVerbs: in anchor before "Read wall", the candidates before the
// first take or drop are moves, answers and the focus verbs on what the
// last text names, and "read wall" is among them.
func TestFocusVerbs(t *testing.T) {
	env, _ := playTo(t, "anchor.z8", 176)
	cands := env.candidates()
	end := slices.IndexFunc(cands, func(c string) bool {
		return strings.HasPrefix(c, "take ") || strings.HasPrefix(c, "drop ")
	})
	if end < 0 {
		t.Fatalf("no take or drop among %d candidates", len(cands))
	}
	focus := 0
	for _, c := range cands[:end] {
		if slices.Contains(validMoves, c) || c == "yes" || c == "no" {
			continue
		}
		ok := false
		for v := range focusVerbs {
			if strings.HasPrefix(c, v+" ") {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%q before the takes is no focus verb's", c)
		}
		focus++
	}
	if focus == 0 || !slices.Contains(cands[:end], "read wall") {
		t.Errorf("the focus block %q lacks \"read wall\"", cands[:end])
	}
}

// TestPlayerNotAFloatingDoor: the player is learnt by watching what moves
// when the player does; in gold's sitting room the front door (found in
// several rooms, moved into each) moves too, and only the object with the
// self object's attributes is the player.
func TestPlayerNotAFloatingDoor(t *testing.T) {
	env, wt := playTo(t, "gold.z5", 174)
	if wt[174] != "sit in large chair" {
		t.Fatalf("gold's step 174 is %q, not the sitting room's chair", wt[174])
	}
	w, err := env.World()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := w.Object(w.Player)
	if !ok || p.Name != "Goldilocks" {
		t.Fatalf("player %d %q, want Goldilocks", w.Player, p.Name)
	}
	if w.Location != p.Parent || w.Location == 0 {
		t.Errorf("location %d, want the player's room %d", w.Location, p.Parent)
	}
}

// wantChange fails t unless want is among env's candidates and changes
// the world when played from the present state.
func wantChange(t *testing.T, env *Env, want string) {
	t.Helper()
	cands := env.candidates()
	if !slices.Contains(cands, want) {
		t.Fatalf("%d candidates lack %q: %q", len(cands), want, cands)
	}
	sr, err := env.search(1, []string{want}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !sr.extraOK[0] || sr.extra[0] == sr.base {
		t.Errorf("%q changes nothing", want)
	}
}

// TestMechanismRetried: in an Infocom game a command that works a thing
// in place, refused once, is tried in its place again once the room
// changes: infidel's Selkis statue turns only after the Neith statue.
func TestMechanismRetried(t *testing.T) {
	env, walk := playTo(t, "infidel.z3", 232)
	if walk[245] != "turn neith" || walk[246] != "turn selkis" {
		t.Fatalf("infidel steps 245, 246 are %q, %q", walk[245], walk[246])
	}
	const c = "turn selkis statues"
	sr, err := env.search(1, []string{c}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !sr.extraOK[0] || sr.extra[0] != sr.base {
		t.Fatalf("%q changes the world when the statues' room is entered", c)
	}
	for _, x := range walk[232:246] {
		if _, err := env.Step(ctxT(t), x); err != nil {
			t.Fatal(err)
		}
	}
	at := -1
	for i, x := range env.candidateList() {
		if x.text == c {
			at = i
			if env.refused[x.key()] {
				t.Errorf("%q is remembered as refused", c)
			}
		}
	}
	if at < 0 || at > 1000 {
		t.Errorf("%q is candidate %d", c, at)
	}
	wantChange(t, env, c)
}

// TestDictionaryKey: a word is cut where the Z-machine's encoding cuts
// it, after 6 or 9 Z-characters, a letter taking one and a digit or
// hyphen two.
func TestDictionaryKey(t *testing.T) {
	for _, c := range []struct {
		res        int
		word, want string
	}{
		{9, "navy-blue", "navy-blu"},
		{9, "Examine", "examine"},
		{9, "enchantment", "enchantme"},
		{6, "x-ray", "x-ray"},
		{6, "x-rays", "x-ray"},
		{6, "examine", "examin"},
		{9, "ticket5802", "ticket5"},
		{6, "1st", "1st"},
		{6, "12345", "123"},
	} {
		d := &dictionary{res: c.res}
		if got := d.key(c.word); got != c.want {
			t.Errorf("key(%q) with %d Z-characters = %q, want %q", c.word, c.res, got, c.want)
		}
	}
}

// TestInertLeftOut: in gold's sitting room (Inform 6, the library's
// properties), a command whose library action only prints is left out
// for a thing no before rule catches ("push carpet", "read carpet"), kept
// for one with a before rule of its own ("push button", the walkthrough's
// "press button"), and "examine" is kept for both.
func TestInertLeftOut(t *testing.T) {
	env, walk := playTo(t, "gold.z5", 175)
	t.Logf("walkthrough step 175: %q", walk[175])
	if !env.vm.informProps() {
		t.Fatal("gold's properties not read as the Inform library's")
	}
	var cs []string
	for _, c := range env.candidateList() {
		cs = append(cs, c.text)
	}
	for _, c := range []string{"push carpet", "read carpet", "pull carpet", "search carpet"} {
		if slices.Contains(cs, c) {
			t.Errorf("%q is a candidate; the carpet has no before rule", c)
		}
	}
	for _, c := range []string{"examine carpet", "examine button"} {
		if !slices.Contains(cs, c) {
			t.Errorf("%q is no candidate", c)
		}
	}
	wantChange(t, env, "push button")
}

// TestInertKeptForRoomBefore: in Deephome's vault (Inform 6) the room's
// before routine compares the noun with the valuables ("search
// valuables" finds the gold coin), so "search wealth" stays a candidate
// and changes the world, while a thing the routine does not name is left
// out as in any room ("search key", the key carried).
func TestInertKeptForRoomBefore(t *testing.T) {
	env, walk := playTo(t, "deephome.z5", 206)
	t.Logf("walkthrough step 206: %q", walk[206])
	w, _ := env.World()
	caught, ok := env.vm.roomBeforeNames(w.Location)
	if !ok || len(caught) == 0 {
		t.Fatalf("the vault's before routine not read: names %v, ok %v", caught, ok)
	}
	cs := env.candidates()
	if slices.Contains(cs, "search key") {
		t.Error("\"search key\" is a candidate; neither the key nor the room's before catches it")
	}
	wantChange(t, env, "search wealth")
}

// TestSynonymsOnce: in an Inform game, of two templates the library's
// grammar sends to one action only the one tried first is made (Yo Momma,
// before "wear sweater": "put on shirt", no "wear shirt", no "climb up
// shirt"); an Infocom game keeps both ("climb up" is an action of its own
// there).
func TestSynonymsOnce(t *testing.T) {
	env, walk := playTo(t, "yomomma.z8", 20)
	t.Logf("walkthrough step 20: %q", walk[20])
	cs := env.candidates()
	for _, c := range []string{"wear shirt", "climb up shirt"} {
		if slices.Contains(cs, c) {
			t.Errorf("%q is a candidate beside its synonym", c)
		}
	}
	wantChange(t, env, "put on shirt")
	var ts []string
	for _, tp := range dropSynonyms(parseGrammar("climb/scale OBJ;climb/scale up OBJ;wear OBJ;put on OBJ;get in OBJ", 9)) {
		ts = append(ts, tp.String())
	}
	if want := []string{"climb OBJ", "wear OBJ", "get in OBJ"}; !slices.Equal(ts, want) { // the first of each pair
		t.Errorf("templates %q, want %q", ts, want)
	}
	z, _ := playTo(t, "zork1.z5", 0)
	if !slices.ContainsFunc(z.vm.templates(z.g), func(tp template) bool { return tp.String() == "climb up OBJ" }) {
		t.Error("zork1 lost \"climb up OBJ\"")
	}
}
