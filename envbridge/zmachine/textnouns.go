package zmachine

// namesNothingNew reports a word of the text whose objects (named, the
// objects it names) are each in view under another name already (ids) or
// nowhere (no parent: out of play): the "frozen" of "a pair of frozen
// fishcakes" where the only thing called frozen is a packet of chops not
// yet in the game. Tried as a thing of its own, it would repeat what the
// candidates of the things in view try, or name what the parser cannot
// reach; false where it names nothing.
func namesNothingNew(w World, named []int, ids map[string]int) bool {
	if len(named) == 0 {
		return false
	}
	in := make(map[int]bool, len(ids))
	for _, id := range ids {
		in[id] = true
	}
	for _, id := range named {
		if o, ok := w.Object(id); !in[id] && ok && o.Parent != 0 {
			return false
		}
	}
	return true
}
