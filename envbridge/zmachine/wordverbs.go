package zmachine

import (
	"slices"
	"strings"
)

// Word verbs: a game's own verbs that take a word rather than a thing in
// view ("learn frotz", "memorise bozbar": a spell the text just named).
// Jericho's grammar leaves these verbs out (their grammar lines read a
// word with a routine of the game's own), so no template makes them; the
// dictionary still marks them as verbs. Each such verb (one word per
// verb number, the shortest: "learn" for learn/memorise/memorize) is
// tried, before the core templates, with the words of the last text the
// dictionary holds as nouns (those that name no object first: a spell
// written in a book is no thing), at most maxWordObjects of them. Verbs
// of talk (say, tell, ask ...) have templates or topics of their own and
// are left out.

// maxWordObjects bounds the words a word verb is tried with per search.
const maxWordObjects = 6

// talkVerbs are verbs of conversation and questions, never word verbs.
var talkVerbs = map[string]bool{"say": true, "tell": true, "ask": true, "answer": true, "speak": true,
	"shout": true, "yell": true, "scream": true, "talk": true, "consult": true, "how": true, "what": true,
	"who": true, "why": true, "where": true, "when": true, "which": true, "whisper": true, "reply": true}

// wordVerbs are the verbs of the game's dictionary that no line of its
// Jericho grammar begins with, one word per verb number (a verb's second
// data byte; the shortest word), read once per game; none for a game
// without a grammar.
func (g *vmGame) wordVerbs(grammar string) []string {
	if g.wverbs != nil {
		return g.wverbs
	}
	g.wverbs = []string{}
	if grammar == "" {
		return g.wverbs
	}
	d := g.dictionary()
	inGrammar := map[string]bool{}
	for _, line := range strings.Split(grammar, ";") {
		if f := strings.Fields(line); len(f) > 0 {
			for _, a := range strings.Split(strings.ToLower(f[0]), "/") {
				inGrammar[d.key(a)] = true
			}
		}
	}
	have := map[byte]bool{}   // verb numbers the grammar has
	best := map[byte]string{} // verb number -> its word
	num := map[string]byte{}
	for _, w := range g.m.Dictionary() {
		if len(w.Data) > 1 && d.verb(w.Word) {
			num[w.Word] = w.Data[1]
			if inGrammar[w.Word] {
				have[w.Data[1]] = true
			}
		}
	}
	for w, n := range num {
		if inGrammar[w] || talkVerbs[w] || metaVerbs[w] || len(w) < 3 || !isLetters(w) {
			continue
		}
		if b, ok := best[n]; !ok || len(w) < len(b) || len(w) == len(b) && w < b {
			best[n] = w
		}
	}
	for n, w := range best {
		if !have[n] {
			g.wverbs = append(g.wverbs, w)
		}
	}
	slices.Sort(g.wverbs)
	return g.wverbs
}

func isLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// wordCandidates adds each word verb with the words of the last text
// ("learn frotz"), those naming no object first.
func (e *Env) wordCandidates(dict *dictionary, w World, addAbout func(obj, c string)) {
	if e.g == nil || e.g.jericho == nil {
		return
	}
	verbs := e.vm.wordVerbs(e.g.jericho.Grammar)
	if len(verbs) == 0 {
		return
	}
	var free, named []string
	seen := map[string]bool{}
	for _, x := range strings.FieldsFunc(strings.ToLower(clip(e.lastText)), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '-')
	}) {
		k := dict.key(x)
		f, ok := dict.words[k]
		if !ok || seen[k] || f&0x80 == 0 || len(x) < 3 || dict.verb(x) || notObject[x] || directionWords[x] || prepositions[x] {
			continue
		}
		seen[k] = true
		if len(e.vm.objectsNamed(w, x)) == 0 {
			free = append(free, x)
		} else {
			named = append(named, x)
		}
	}
	words := append(free, named...)
	words = words[:min(len(words), maxWordObjects)]
	for _, v := range verbs {
		for _, x := range words {
			addAbout("", v+" "+x)
		}
	}
}
