package zmachine

import (
	"slices"
	"strings"
)

// Answers: a question the game asks ("What object will you take with you
// on your journey?", "Who's been sayin' that?", "tell me the patron
// saint!") is answered with a word, and no template makes a bare word.
// Where every candidate of a search changed nothing, the search tries
// words as answers, bare and said ("say W"): the names the episode's
// observations gave (capitalised words, the latest first: a character,
// a saint), then the nouns of the last text, then the names of the
// objects anywhere in the tree; each a word the dictionary holds that
// names no direction and no verb.

// maxNames bounds the names an episode remembers.
const maxNames = 64

// maxAnswers bounds the words a search tries as answers.
const maxAnswers = 48

// noteNames adds the capitalised words of text to names (the latest
// first, each once, at most maxNames), lowercased; words of one letter
// and those of every sentence ("The", "You") stay, to be sifted by the
// dictionary where they are used.
func noteNames(names []string, text string) []string {
	var found []string
	for _, w := range strings.FieldsFunc(clip(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-')
	}) {
		if len(w) < 3 || w[0] < 'A' || w[0] > 'Z' || strings.ToUpper(w) == w {
			continue // short, lower case, or a heading in capitals
		}
		found = append(found, strings.ToLower(w))
	}
	if len(found) == 0 {
		return names
	}
	out := make([]string, 0, min(maxNames, len(found)+len(names)))
	seen := map[string]bool{}
	for i := len(found) - 1; i >= 0; i-- { // the latest first
		if w := found[i]; !seen[w] && len(out) < maxNames {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, w := range names {
		if !seen[w] && len(out) < maxNames {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// answers are the words a search that found nothing tries, bare and
// said, in order (at most maxAnswers words).
func (e *Env) answers(dict *dictionary, w World) []string {
	var words []string
	seen := map[string]bool{}
	add := func(x string) {
		x = strings.ToLower(x)
		k := dict.key(x)
		if seen[k] || len(words) >= maxAnswers || len(x) < 3 || !dict.has(x) || dict.verb(x) ||
			notObject[x] || directionWords[x] || metaVerbs[x] {
			return
		}
		seen[k] = true
		words = append(words, x)
	}
	for _, n := range e.names {
		add(n)
	}
	for _, n := range dict.nounsIn(e.lastText, e.lastRoom) {
		for _, x := range strings.Fields(n) {
			add(x)
		}
	}
	for _, o := range w.Objects {
		for _, x := range dict.nameWords(o.Name) {
			add(x)
		}
	}
	out := slices.Clone(words)
	if dict.verb("say") {
		for _, x := range words {
			out = append(out, "say "+x)
		}
	}
	return out
}
