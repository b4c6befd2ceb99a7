package zmachine

import "strings"

// workedHolders is the set of things (by number) that hold what the last
// action named (a word after its verb), where that holder is neither the
// player nor carried (a book of spells, a bag), nor the room unless the
// last action worked a mechanism itself: a machine whose dial was
// just turned, a console one of whose levers was just pulled, a room
// whose sundial was just set. A mechanism command about any thing such a
// holder holds ("push button" after "turn dial to 4") is tried in its
// place again even where it was refused before: the controls of one
// device answer by each other's settings, which the object tree does not
// show (a dial's number is a property or a global), so the refusal
// remembered with the tree as it was says nothing now.
func (g *vmGame) workedHolders(w World, last string, ids map[string]int) map[int]bool {
	if last == "" {
		return nil
	}
	low := strings.ToLower(last)
	worked := mechanism(low)
	inView := make(map[int]bool, len(ids))
	for _, id := range ids {
		inView[id] = true
	}
	var out map[int]bool
	words := strings.Fields(low)
	for i, word := range words {
		if i == 0 || len(word) < 3 || prepositions[word] {
			continue
		}
		for _, id := range g.objectsNamed(w, word) {
			o, ok := w.Object(id)
			if !ok || !inView[id] || o.Parent == 0 || o.Parent == w.Player || w.carries(w.Player, o.Parent) ||
				o.Parent == w.Location && !worked {
				continue
			}
			if out == nil {
				out = map[int]bool{}
			}
			out[o.Parent] = true
		}
	}
	return out
}

// controlRetry is the test of a refused candidate tried again now (see
// workedHolders), or nil when there is none.
func (g *vmGame) controlRetry(w World, last string, ids map[string]int) func(obj, c string) bool {
	held := g.workedHolders(w, last, ids)
	if held == nil {
		return nil
	}
	return func(obj, c string) bool {
		id, ok := ids[obj]
		if !ok || !mechanism(c) {
			return false
		}
		o, _ := w.Object(id)
		return held[o.Parent]
	}
}
