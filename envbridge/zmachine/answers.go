package zmachine

import (
	"slices"
	"strings"
)

// Answers: a question the game asks ("What object will you take with you
// on your journey?", "Who's been sayin' that?", "tell me the patron
// saint!") is answered with a word, and no template makes a bare word.
// Where every candidate of a search changed nothing, the search tries
// words as answers, bare and said ("say W"): the words the episode's
// observations quoted alone (a password), the names they gave
// (capitalised words, the latest first: a character, a saint), then the
// nouns of the last text, then the characters of the tree (first where
// the text asks "who"), then the names of the objects anywhere in the
// tree; each a word the dictionary holds that names no direction and no
// verb.

// demandsAnswer reports a text whose last paragraph asks for a word: a
// question, a prompt ending in a colon ("You reply:"), an order to tell
// or speak ("tell me the patron saint!").
func demandsAnswer(text string) bool {
	t := strings.TrimRight(text, " \n>")
	if i := strings.LastIndex(t, "\n\n"); i >= 0 {
		t = t[i+2:]
	}
	t = strings.TrimRight(t, "\" ")
	if strings.HasSuffix(t, "?") || strings.HasSuffix(t, ":") {
		return true
	}
	low := strings.ToLower(t)
	return strings.Contains(low, "tell me") || strings.Contains(low, "speak")
}

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
	return latestOnce(found, names, maxNames)
}

// latestOnce is the words found (in text order) put before those kept
// (the latest first already): the latest first, each once, at most max.
// Without anything found it is kept itself.
func latestOnce(found, kept []string, max int) []string {
	if len(found) == 0 {
		return kept
	}
	out := make([]string, 0, min(max, len(found)+len(kept)))
	seen := map[string]bool{}
	for i := len(found) - 1; i >= 0; i-- {
		if w := found[i]; !seen[w] && len(out) < max {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, w := range kept {
		if !seen[w] && len(out) < max {
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
	for _, n := range e.quoted {
		add(n)
	}
	// A question about someone ("Who's been sayin' that?") is answered
	// with a character first; any other after the names the text gave.
	chars := e.characterWords(w)
	if wordIndex(strings.ToLower(clip(e.lastText)), "who") >= 0 {
		for _, n := range chars {
			add(n)
		}
	}
	for _, n := range e.names {
		add(n)
	}
	for _, n := range dict.nounsIn(e.lastText, e.lastRoom) {
		for _, x := range strings.Fields(n) {
			add(x)
		}
	}
	for _, n := range chars {
		add(n)
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

// characterWords are the first words the parser knows each character of
// the tree by (its name property: the proper name first, "norbert nerd
// geek man"), in the tree's order, the player left out: "Who's been
// sayin' that?" is answered with a character, who need not be in view
// nor named by any text yet. A character is a thing with the animate
// attribute: the layout's where the player shows it, else the lowest
// attribute of the things the last text names by a capitalised word
// (Inform declares animate first, after Inform 7's absent), the
// speaker asking. Nil where the game keeps no name property or the
// text names no thing.
func (e *Env) characterWords(w World) []string {
	vg := e.vm
	animate := -1
	if l := informAttrs(w); l != nil {
		animate = l.animate
	} else {
		for _, n := range noteNames(nil, e.lastText) {
			for _, id := range vg.objectsNamed(w, n) {
				if o, ok := w.Object(id); ok && len(o.Attrs) > 0 && (animate < 0 || o.Attrs[0] < animate) {
					animate = o.Attrs[0]
				}
			}
		}
	}
	if animate < 0 || animate > maxAnimateAttr {
		return nil
	}
	var out []string
	for _, o := range w.Objects {
		if o.ID == w.Player || !slices.Contains(o.Attrs, animate) {
			continue
		}
		if ws := vg.objectWords(o.ID); len(ws) > 0 {
			out = append(out, ws[0])
		}
	}
	return out
}

// maxAnimateAttr is the highest attribute taken for animate: the
// library's first attribute shifted by the most a game declares before it.
const maxAnimateAttr = 1 + maxAttrShift

// Quoted words: a word the game's text quotes alone ('A hollow voice says
// "PLUGH".', 'The word "MINIRVA" is painted on one side.') is a word to
// say: a password, a magic word, a name to remember. Each search tries
// those of the observations since entering the room the dictionary
// holds, bare where it is a verb ("plugh"), else said ("say minirva");
// the episode keeps the latest maxQuoted of them, tried first as answers.

// maxQuoted bounds the quoted words an episode remembers;
// maxQuotedEverywhere are said in every search, the latest.
const (
	maxQuoted           = 32
	maxQuotedEverywhere = 3
)

// quotedRuns are the runs of text between double quotes, in order,
// trailing punctuation dropped.
func quotedRuns(text string) []string {
	var out []string
	for {
		i := strings.IndexByte(text, '"')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(text[i+1:], '"')
		if j < 0 {
			return out
		}
		out = append(out, strings.TrimRight(text[i+1:i+1+j], ".,!?;:"))
		text = text[i+1+j+1:]
	}
}

// noteQuoted adds the words text quotes alone (between double quotes, a
// run of three letters or more, trailing punctuation dropped), lowercased,
// to quoted: the latest first, each once, at most maxQuoted.
func noteQuoted(quoted []string, text string) []string {
	text = clip(text)
	var found []string
	for _, q := range quotedRuns(text) {
		if len(q) >= 3 && isLetters(strings.ToLower(q)) {
			found = append(found, strings.ToLower(q))
		}
	}
	found = append(found, capitalWords(text)...)
	return latestOnce(found, quoted, maxQuoted)
}

// capitalWords are the words of four letters or more text writes alone in
// capitals within a line of lower case ('traces a word on a passing
// cloud: KALUZE.'): not a heading, not a run of capitals ("TELL GNOME
// ABOUT PIG"), lowercased.
func capitalWords(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.IndexFunc(line, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0 {
			continue // a heading, or no text
		}
		ws := strings.FieldsFunc(line, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '\'')
		})
		caps := func(i int) bool {
			return i >= 0 && i < len(ws) && len(ws[i]) >= 2 && strings.ToUpper(ws[i]) == ws[i] && strings.ToLower(ws[i]) != ws[i]
		}
		for i, w := range ws {
			if len(w) >= 4 && caps(i) && !caps(i-1) && !caps(i+1) && isLetters(strings.ToLower(w)) {
				out = append(out, strings.ToLower(w))
			}
		}
	}
	return out
}

// quotedCandidates adds each word the observations since entering the
// room quote that the dictionary holds: bare where it is a verb, else
// said.
func (e *Env) quotedCandidates(dict *dictionary, addAbout func(obj, c string)) {
	var here []string
	for _, t := range e.roomTexts {
		here = noteQuoted(here, t)
	}
	k := 0 // the episode's latest, everywhere
	for _, q := range e.quoted {
		if k < maxQuotedEverywhere && dict.has(q) && !metaVerbs[q] && !directionWords[q] && !slices.Contains(here, q) {
			here = append(here, q)
			k++
		}
	}
	say := dict.verb("say")
	for _, q := range here {
		switch {
		case !dict.has(q) || metaVerbs[q] || directionWords[q]:
		case dict.verb(q):
			addAbout("", q)
		case say:
			addAbout("", "say "+q)
		}
	}
}
