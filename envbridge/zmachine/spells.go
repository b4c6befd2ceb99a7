package zmachine

import (
	"slices"
	"strings"
)

// Spells: in the games of magic (Enchanter, Sorcerer, Spellbreaker and
// those written after them) each spell is an object of the tree the
// parser knows by its own word and "spell" ("frotz spell", Inform's
// "(frotz_spell)" named frotz/spell/spells). A spell is not a thing in
// view: it lives in a scroll, in the spell book (often out of the tree,
// parent 0), or in the player's mind (an object out of the tree the
// parser has no word for). Three kinds of command use them, each made
// from the tree alone:
//   - a memorised spell cast at what is in view, at the player, or at
//     nothing ("espnis thug", "taclor me", "gnusto espnis" for a spell on
//     a scroll in view);
//   - a word verb with a spell of the book or of a scroll in view
//     ("learn frotz", "memorise bozbar");
//   - where the spell's word is a verb of the grammar (Infocom), the
//     spell cast at the player ("frotz me"): "me" is no object in view.

// spellObject is one spell: its object and its word.
type spellObject struct {
	id   int
	word string
}

// Bounds per search: the spells a word verb is tried with, the things a
// memorised spell is cast at.
const (
	maxSpellsLearnt = 12
	maxSpellTargets = 12
)

// spellWords are the words every spell shares.
var spellWords = map[string]bool{"spell": true, "spells": true, "chant": true, "chants": true,
	"incantation": true, "incantations": true}

// spellObjects finds, once per game, the objects whose words are "spell"
// (or "chant") and exactly one word of their own, the spell's, which the
// dictionary holds ("spell book", with two words of its own, is none).
func (g *vmGame) spellObjects(w World) []spellObject {
	if g.spellsKnown {
		return g.spells
	}
	g.spellsKnown = true
	d := g.dictionary()
	own := func(words []string) (string, bool) {
		isSpell := false
		var own []string
		for _, x := range words {
			if spellWords[x] {
				isSpell = true
			} else if !containsStr(own, x) {
				own = append(own, x)
			}
		}
		if isSpell && len(own) == 1 && len(own[0]) >= 3 && isLetters(own[0]) && d.has(own[0]) {
			return fullWord(own[0], d.res), true
		}
		return "", isSpell && len(own) == 0
	}
	for _, o := range w.Objects {
		// the parser's words ("frotz", "spell"), else the short name's
		// ("frotz spell": Infocom keeps "frotz" among the adjectives)
		word, ok := own(g.objectWords(o.ID))
		if word == "" && (ok || g.nameFacts().prop == 0) {
			word, _ = own(d.nameWords(o.Name))
		}
		if word != "" {
			g.spells = append(g.spells, spellObject{id: o.ID, word: word})
		}
	}
	return g.spells
}

// spellCandidates adds the commands of spells (see above): inView are the
// names of the things in view and ids their objects.
func (e *Env) spellCandidates(dict *dictionary, w World, inView []string, ids map[string]int, addAbout func(obj, c string)) {
	if e.g == nil || e.g.jericho == nil {
		return
	}
	spells := e.vm.spellObjects(w)
	if len(spells) == 0 {
		return
	}
	here := map[int]bool{} // the objects in view
	for _, id := range ids {
		here[id] = true
	}
	// The mind: out of the tree, holding spells, no word of the parser names
	// it (a scroll out of the tree has its words).
	mind := func(p int) bool {
		if p == 0 {
			return false
		}
		o, ok := w.Object(p)
		return ok && o.Parent == 0 && len(e.vm.objectWords(p)) == 0
	}
	// The book: spells out of the tree, then those on a scroll out of
	// the tree (copied into the book, or not yet found).
	// The spell book in view: what holds the most spells in view.
	count := map[int]int{}
	book := 0
	for _, s := range spells {
		if o, ok := w.Object(s.id); ok && here[o.Parent] {
			if count[o.Parent]++; count[o.Parent] > count[book] {
				book = o.Parent
			}
		}
	}
	if count[book] < 2 {
		book = 0
	}
	var memorised, onScroll, inBook, offScroll, verbs []string
	for _, s := range spells {
		o, ok := w.Object(s.id)
		if !ok {
			continue
		}
		p, _ := w.Object(o.Parent)
		switch {
		case mind(o.Parent):
			memorised = append(memorised, s.word)
		case o.Parent == book && book != 0:
			inBook = append(inBook, s.word)
			if dict.verb(s.word) {
				verbs = append(verbs, s.word) // Infocom: a spell of the book
			}
		case here[o.Parent]:
			onScroll = append(onScroll, s.word)
		case o.Parent == 0:
			inBook = append(inBook, s.word)
		case p.Parent == 0:
			offScroll = append(offScroll, s.word)
		}
	}
	inBook = append(inBook, offScroll...)
	isSpell := map[string]bool{}
	for _, s := range spells {
		isSpell[s.word] = true
	}
	var targets []string
	for _, t := range inView {
		if !isSpell[t] && len(targets) < maxSpellTargets {
			targets = append(targets, t)
		}
	}
	// Infocom: the spell's word is a verb; cast at the player when its
	// spell is in view (in the spell book held), and at each thing in
	// view when the last text names it ("you learn the blorple spell").
	low := strings.ToLower(clip(e.lastText))
	for _, s := range spells {
		if here[s.id] && dict.verb(s.word) && wordIndex(low, s.word) >= 0 {
			for _, t := range targets {
				addAbout(t, s.word+" "+t)
			}
		}
	}
	if dict.has("me") {
		for _, s := range spells {
			if here[s.id] && dict.verb(s.word) {
				addAbout("", s.word+" me")
			}
		}
	}
	if len(memorised) == 0 && len(onScroll) == 0 && len(inBook) == 0 {
		return
	}
	// A memorised spell (Infocom: a spell of the book) at a spell of a
	// scroll in view ("gnusto espnis").
	for _, m := range append(slices.Clone(memorised), verbs...) {
		for _, s := range onScroll {
			addAbout("", m+" "+s)
		}
	}
	// The word verbs ("learn") with the spells of scrolls and the book.
	learnable := append(slices.Clone(onScroll), inBook...)
	learnable = learnable[:min(len(learnable), maxSpellsLearnt)]
	for _, v := range e.vm.wordVerbs(e.g.jericho.Grammar) {
		for _, s := range learnable {
			addAbout("", v+" "+s)
		}
	}
	// A memorised spell cast at the player, at each thing in view, alone.
	for _, m := range memorised {
		if dict.has("me") {
			addAbout("", m+" me")
		}
		for _, t := range targets {
			addAbout(t, m+" "+t)
		}
		addAbout("", m)
	}
}

// spellWords are the words of the game's spells as the dictionary keeps
// them ("blorpl" in a version 3 game), nil where it has none.
func (g *vmGame) spellWords(w World) map[string]bool {
	spells := g.spellObjects(w)
	if len(spells) == 0 {
		return nil
	}
	out := make(map[string]bool, len(spells))
	for _, s := range spells {
		out[g.dictionary().key(s.word)] = true
	}
	return out
}

// castHere reports a spell cast at a thing (c's verb is one of the
// spells' words): what a spell does depends on where it is cast (blorple
// does nothing in the room its cube leads to), so a refusal of it is
// remembered with the room, not with the thing alone (a cube carried
// keeps its parent and attributes from room to room).
func castHere(casts map[string]bool, d *dictionary, c string) bool {
	if len(casts) == 0 {
		return false
	}
	v, _, ok := strings.Cut(c, " ")
	return ok && casts[d.key(v)]
}
