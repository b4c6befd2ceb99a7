package zmachine

// boatVerbs are the verbs that move a vessel the player is in a direction
// ("row west", "paddle upstream"): aboard, the plain direction is often
// refused ("You can't walk on water.").
var boatVerbs = []string{"row", "paddle", "sail", "steer"}

// aboard reports the player in world w inside a thing that is not a room:
// the player's parent is not the location, or the location hangs two
// levels below a root (Infocom's rooms are children of one object, so a
// boat the player's location was taken to be is a room's child).
func aboard(w World) bool {
	p, ok := w.Object(w.Player)
	if !ok || w.Location == 0 {
		return false
	}
	if p.Parent != w.Location {
		return true
	}
	l, _ := w.Object(w.Location)
	if l.Parent == 0 {
		return false
	}
	r, _ := w.Object(l.Parent)
	return r.Parent != 0
}

// vehicleCandidates adds, where the player is aboard a thing, each boat
// verb the dictionary holds as a verb with each of the ten directions it
// holds ("row west").
func vehicleCandidates(dict *dictionary, w World, add func(c string)) {
	if !aboard(w) {
		return
	}
	for _, v := range boatVerbs {
		if !dict.verb(v) {
			continue
		}
		for i, d := range validMoves[:10] {
			if !dict.has(d) {
				if d = moveAbbrevs[i]; !dict.has(d) {
					continue
				}
			}
			add(v + " " + d)
		}
	}
}
