package zmachine

import "strings"

// The words the parser knows an object by. An object's short name is what
// the game prints ("trenchcoat", "Pandora's box"); the parser reads other
// words: Inform 6 keeps them in property 1, "name" (the dictionary
// addresses of the words), Infocom in a property of its own (SYNONYM) of
// the same shape. A candidate named with a word of that list is one the
// parser understands; a short-name word outside it ("trenchcoat" where
// the list says "coat", "trench") may be one it refuses.

// nameFacts are where a game keeps its objects' words.
type nameFacts struct {
	prop  int            // the property, 0 for none
	words map[int]string // dictionary address -> word
}

// minNameObjects is the fewest objects whose property must read as
// dictionary words for the property to be taken as the objects' names.
const minNameObjects = 8

// nameFacts finds, once per game, the property that holds the objects'
// words: Inform's property 1 when it reads so on enough objects, else the
// property that reads as dictionary words (every value a word-sized
// dictionary address) on the most objects, at least minNameObjects.
// Inform 7 games keep these properties empty (parse_name routines read
// the words): they have none.
func (g *vmGame) nameFacts() *nameFacts {
	if g.names != nil {
		return g.names
	}
	m := g.m
	nf := &nameFacts{words: map[int]string{}}
	g.names = nf
	for _, w := range m.Dictionary() {
		nf.words[w.Addr] = w.Word
	}
	n := m.NumObjects()
	maxProp := 63
	if m.Version() <= 3 {
		maxProp = 31
	}
	count := func(p int) int {
		k := 0
		for id := 1; id <= n; id++ {
			b := m.Property(id, p)
			if len(b) == 0 || len(b)%2 != 0 {
				continue
			}
			good := true
			for i := 0; i+1 < len(b); i += 2 {
				if _, ok := nf.words[int(b[i])<<8|int(b[i+1])]; !ok {
					good = false
					break
				}
			}
			if good {
				k++
			}
		}
		return k
	}
	if g.dictionary().inform {
		if count(1) >= minNameObjects {
			nf.prop = 1
		}
		return nf
	}
	best := minNameObjects - 1
	for p := 1; p <= maxProp; p++ {
		if k := count(p); k > best {
			nf.prop, best = p, k
		}
	}
	return nf
}

// objectWords are the words the parser knows object id by, in the order
// the game lists them, each once; nil when the game keeps none.
func (g *vmGame) objectWords(id int) []string {
	nf := g.nameFacts()
	if nf.prop == 0 {
		return nil
	}
	b := g.m.Property(id, nf.prop)
	if len(b)%2 != 0 {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(b); i += 2 {
		w, ok := nf.words[int(b[i])<<8|int(b[i+1])]
		if !ok {
			return nil // not a list of words after all
		}
		if len(w) > 1 && !notObject[w] && !directionWords[w] && !prepositions[w] && !containsStr(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// nameWordsOf are the words to name object id with: those of its short
// name the dictionary holds (nameWords), made to end with a word the
// parser knows it by (objectWords) when the game keeps such words: the
// short name's last such word, else its known words as they are, else
// the last of the known words alone ("coat" for a "trenchcoat" the
// parser knows as "coat"; a word for an object whose short name has none
// in the dictionary).
func (g *vmGame) nameWordsOf(id int, short string) []string {
	ws := g.dictionary().nameWords(short)
	known := g.objectWords(id)
	if len(known) == 0 {
		return ws
	}
	d := g.dictionary()
	// Inform keeps the words in property 1, "name" (the older compilers
	// that write no version in the header too: Curses, Spirit)
	if d.inform || g.nameFacts().prop == 1 {
		if kw := g.knownNameWords(id, short); len(kw) > 0 {
			return kw
		}
	}
	isKnown := func(w string) bool {
		k := d.key(w)
		for _, x := range known {
			if d.key(x) == k {
				return true
			}
		}
		return false
	}
	for i := len(ws) - 1; i >= 0; i-- {
		if isKnown(ws[i]) {
			if hw := headOf(d, short, known); len(hw) > 0 {
				return g.singledOut(id, short, hw)
			}
			return g.singledOut(id, short, ws[:i+1])
		}
	}
	// No word of the short name is one the parser knows the object by:
	// the last of its words (Inform lists adjectives before nouns;
	// Infocom's list is nouns, the first the usual one).
	w := known[len(known)-1]
	if !d.inform {
		w = known[0]
	}
	return g.singledOut(id, short, []string{fullWord(w, d.res)})
}

// headOf is, for a short name "A of B" ("bag of crumbs", "pair of
// binoculars") whose last words of A and of B both name the thing, A's
// words where the game lists A's last word before B's (Infocom's list
// begins with the usual nouns: "bag, sack, crumbs" for the bag, whose
// routine reads "drop crumbs" as scattering them), else nil.
func headOf(d *dictionary, short string, known []string) []string {
	i := ofAt(short)
	if i < 0 {
		return nil
	}
	head, tail := d.nameWords(short[:i]), d.nameWords(short[i+4:])
	if len(head) == 0 || len(tail) == 0 {
		return nil
	}
	rank := func(w string) int {
		k := d.key(w)
		for j, x := range known {
			if d.key(x) == k {
				return j
			}
		}
		return len(known)
	}
	if h := rank(head[len(head)-1]); h < len(known) && h < rank(tail[len(tail)-1]) {
		return head
	}
	return nil
}

// ofAt is the byte index of the first " of " in name, in any case, or
// -1 (read byte by byte: lowering the whole name may change its length).
func ofAt(name string) int {
	for i := 0; i+4 <= len(name); i++ {
		if name[i] == ' ' && name[i+1]|0x20 == 'o' && name[i+2]|0x20 == 'f' && name[i+3] == ' ' {
			return i
		}
	}
	return -1
}

// prepositions are words an object's list may hold ("tunnel to cave")
// that name nothing alone.
var prepositions = map[string]bool{"to": true, "in": true, "into": true, "with": true, "at": true,
	"from": true, "over": true, "under": true, "by": true, "for": true, "near": true, "onto": true,
	"behind": true, "through": true, "not": true, "it": true}

// objectsNamed are the objects the word w names (a word of their short
// name the dictionary holds, or one the parser knows them by), read once
// per game: for the names valid actions take from the text, the things
// they may stand for.
func (g *vmGame) objectsNamed(w World, word string) []int {
	if g.byWord == nil {
		g.byWord = map[string][]int{}
		d := g.dictionary()
		for _, o := range w.Objects {
			seen := map[string]bool{}
			for _, x := range append(d.nameWords(o.Name), g.objectWords(o.ID)...) {
				if prepositions[x] {
					continue // "with" of "bowl with a lid" names nothing
				}
				k := d.key(x)
				if !seen[k] {
					seen[k] = true
					g.byWord[k] = append(g.byWord[k], o.ID)
				}
			}
		}
	}
	return g.byWord[g.dictionary().key(word)]
}

// knownNameWords are the words of short name short that Inform's parser
// knows object id by (its "name" property), in order: a word of the
// short name the property lacks is left out (the parser refuses a name
// with a word the thing's property lacks), a hyphenated word the
// property lacks as a whole (where it holds "fish" and "mouthed" but not
// "fish-mouthed") is read as its parts,
// and a single letter is kept when the property holds it ("switch b",
// written "b switch").
// Inform's parser takes a thing's words in any order, so any of them
// may stand before the last.
func (g *vmGame) knownNameWords(id int, short string) []string {
	nf := g.nameFacts()
	b := g.m.Property(id, nf.prop)
	if nf.prop == 0 || len(b)%2 != 0 {
		return nil
	}
	d := g.dictionary()
	prop := map[string]bool{}
	for i := 0; i+1 < len(b); i += 2 {
		if w, ok := nf.words[int(b[i])<<8|int(b[i+1])]; ok {
			prop[d.key(w)] = true
		}
	}
	var out []string
	keep := func(w string) {
		// the letter "a" after a word ("switch A") names, it is no article
		if prop[d.key(w)] && (!notObject[w] || w == "a" && len(out) > 0) && !prepositions[w] && !directionWords[w] &&
			(len(w) > 1 || len(out) > 0) && !containsStr(out, w) {
			out = append(out, w)
		}
	}
	for _, tok := range strings.FieldsFunc(strings.ToLower(short), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		if !prop[d.key(tok)] && strings.Contains(tok, "-") {
			for _, p := range strings.Split(tok, "-") {
				keep(p)
			}
			continue
		}
		keep(tok)
	}
	// a single letter or digit goes before the last word ("b switch"):
	// a name ends with a word of more letters; but "a" stays after
	// ("switch a": "a switch" is any switch), one name with the word
	// before it
	if n := len(out); n > 1 && out[n-1] == "a" {
		return append(out[:n-2:n-2], out[n-2]+" a")
	}
	j := len(out) - 1
	for j >= 0 && len(out[j]) == 1 {
		j--
	}
	if j < 0 {
		return nil
	}
	if j < len(out)-1 {
		out = append(append(out[:j:j], out[j+1:]...), out[j])
	}
	return out
}
