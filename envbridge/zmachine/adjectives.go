package zmachine

import "strings"

// The adjectives an Infocom parser knows an object by. ZIL keeps them in
// a property of their own (ADJECTIVE) beside the nouns (SYNONYM): in
// version 3 a list of adjective numbers, one byte each, that the
// dictionary gives its adjective words; after version 3 a list of the
// words' dictionary addresses. Where several objects share a noun and
// the short name says nothing more ("cube" for each of Spellbreaker's
// cubes), the parser asks which one is meant (a spell reaching cubes out
// of view asks even when one is in view); an adjective that only this
// object has among them names it alone ("hq cube": the word the game's
// parser turns the label the player wrote on the cube into).

// adjFacts are where an Infocom game keeps its objects' adjectives.
type adjFacts struct {
	prop  int            // the property, 0 for none
	bytes bool           // adjective numbers (version 3), else dictionary addresses
	byNum map[int]string // version 3: adjective number -> word
	at    map[int]string // dictionary address -> adjective word
	// nouns: dictionary key of a noun -> the objects whose name property
	// lists it, read once (the nouns of an object do not change).
	nouns map[string][]int
}

// adjectiveFlag marks an adjective in an Infocom dictionary entry's
// flags byte; the flags' low two bits say which part of speech the
// first value byte is for (2: the adjective).
const adjectiveFlag = 0x20

// adjFacts finds, once per Infocom game, the property that holds the
// objects' adjectives: the one, besides the names' property, that reads
// as adjectives (every entry an adjective of the dictionary) on the most
// objects whose short name holds one of the entries, at least
// minNameObjects of them. Inform games have none (their parser reads
// adjectives from the same "name" property as nouns).
func (g *vmGame) adjFacts() *adjFacts {
	if g.adjs != nil {
		return g.adjs
	}
	af := &adjFacts{byNum: map[int]string{}, at: map[int]string{}, nouns: map[string][]int{}}
	g.adjs = af
	d := g.dictionary()
	nf := g.nameFacts()
	if d.inform || nf.prop == 0 {
		return af
	}
	m := g.m
	af.bytes = m.Version() <= 3
	for _, w := range m.Dictionary() {
		if len(w.Data) < 3 || w.Data[0]&adjectiveFlag == 0 {
			continue
		}
		af.at[w.Addr] = w.Word
		n := int(w.Data[2])
		if w.Data[0]&3 == 2 {
			n = int(w.Data[1])
		}
		if _, ok := af.byNum[n]; !ok {
			af.byNum[n] = w.Word
		}
	}
	n := m.NumObjects()
	maxProp := 63
	if af.bytes {
		maxProp = 31
	}
	best := minNameObjects - 1
	for p := 1; p <= maxProp; p++ {
		if p == nf.prop {
			continue
		}
		k := 0
		for id := 1; id <= n; id++ {
			ws, ok := af.read(m.Property(id, p))
			if !ok || len(ws) == 0 {
				continue
			}
			short := map[string]bool{}
			for _, w := range d.nameWords(m.Object(id).Name) {
				short[d.key(w)] = true
			}
			for _, w := range ws {
				if short[d.key(w)] {
					k++
					break
				}
			}
		}
		if k > best {
			af.prop, best = p, k
		}
	}
	if af.prop == 0 {
		return af
	}
	for id := 1; id <= n; id++ {
		for _, w := range g.objectWords(id) {
			k := d.key(w)
			af.nouns[k] = append(af.nouns[k], id)
		}
	}
	return af
}

// read decodes a property's value as adjectives: numbers (bytes) or
// dictionary addresses (words); ok false when an entry is no adjective.
func (af *adjFacts) read(b []byte) (ws []string, ok bool) {
	if af.bytes {
		for _, c := range b {
			w, ok := af.byNum[int(c)]
			if !ok {
				return nil, false
			}
			ws = append(ws, w)
		}
		return ws, true
	}
	if len(b)%2 != 0 {
		return nil, false
	}
	for i := 0; i+1 < len(b); i += 2 {
		w, ok := af.at[int(b[i])<<8|int(b[i+1])]
		if !ok {
			return nil, false
		}
		ws = append(ws, w)
	}
	return ws, true
}

// objectAdjectives are the adjectives the parser knows object id by, in
// the game's order; nil where the game keeps none.
func (g *vmGame) objectAdjectives(id int) []string {
	af := g.adjFacts()
	if af.prop == 0 {
		return nil
	}
	ws, _ := af.read(g.m.Property(id, af.prop))
	return ws
}

// singledOut names object id, short name short, whose words are ws (a
// noun alone), with
// an adjective no other object known by that noun has, before the noun
// ("hq cube"), as one name; ws as it is when no other object shares the
// noun or none of the object's adjectives is its own.
func (g *vmGame) singledOut(id int, short string, ws []string) []string {
	if len(ws) != 1 {
		return ws
	}
	af := g.adjFacts()
	if af.prop == 0 {
		return ws
	}
	d := g.dictionary()
	others := af.nouns[d.key(ws[0])]
	if len(others) < 2 {
		return ws
	}
	taken := map[string]bool{}
	for _, o := range others {
		if o == id {
			continue
		}
		for _, a := range g.objectAdjectives(o) {
			taken[d.key(a)] = true
		}
	}
	noun := d.key(ws[0])
	inShort := map[string]bool{}
	for _, w := range d.nameWords(short) {
		inShort[d.key(w)] = true
	}
	pick, rank := "", 0
	for _, a := range g.objectAdjectives(id) {
		if taken[d.key(a)] || d.key(a) == noun || len(a) < 2 || notObject[a] || prepositions[a] || directionWords[a] ||
			strings.Trim(a, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			continue
		}
		// the short name's own word first ("third planet"), then a
		// whole word (not one the dictionary cut short), then any
		r := 1
		if inShort[d.key(a)] {
			r = 3
		} else if len(a) < d.res {
			r = 2
		}
		if r > rank {
			pick, rank = a, r
		}
	}
	if pick == "" {
		return ws
	}
	return []string{pick + " " + ws[0]}
}
