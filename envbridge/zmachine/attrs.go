package zmachine

import "slices"

// Inform's standard library declares its attributes in one order (Inform 6
// and the template layer of Inform 7 alike): animate 0, clothing 2,
// container 4, door 5, edible 6, enterable 7, lockable 10, openable 15,
// scenery 17, supporter 20, switchable 21, worn 26. A game whose player
// object has the self object's attributes (informAttrs) is taken to use
// that order; then a template whose
// verb needs a kind of thing ("wear" clothing, "open" something openable,
// "put in" a container) is not filled with things that are not of that
// kind: the parser or the library would refuse them, and each refusal
// costs a turn of the instruction budget.
const (
	attrAnimate    = 0
	attrClothing   = 2
	attrContainer  = 4
	attrDoor       = 5
	attrEdible     = 6
	attrEnterable  = 7
	attrLockable   = 10
	attrOpenable   = 15
	attrScenery    = 17
	attrSupporter  = 20
	attrSwitchable = 21
	attrWorn       = 26
)

// informAttrs reports a world whose attributes follow the Inform library's
// order: its player object is animate (0), concealed (3), proper (16) and
// transparent (23), as the library's self object is.
func informAttrs(w World) bool {
	p, ok := w.Object(w.Player)
	if !ok {
		return false
	}
	for _, a := range []int{attrAnimate, 3, 16, 23} {
		if !slices.Contains(p.Attrs, a) {
			return false
		}
	}
	return true
}

// kindOK reports whether a thing with attributes attrs may fill the object
// of a one-object template whose words before the object are verb ("wear",
// "turn on"), or, with second, the second object of a two-object
// template whose words between the objects are verb's last word ("put in").
func kindOK(verb string, attrs []int, second bool) bool {
	has := func(as ...int) bool {
		for _, a := range as {
			if slices.Contains(attrs, a) {
				return true
			}
		}
		return false
	}
	if second {
		switch verb {
		case "in", "into", "inside":
			return has(attrContainer)
		case "on", "onto":
			return has(attrSupporter)
		case "to":
			return has(attrAnimate, attrDoor, attrSupporter, attrContainer) || len(attrs) == 0
		}
		return true
	}
	switch verb {
	case "wear", "put on":
		return has(attrClothing) && !has(attrWorn)
	case "take off":
		return has(attrWorn)
	case "eat":
		return has(attrEdible)
	case "open", "close":
		return has(attrOpenable, attrDoor)
	case "lock", "unlock":
		return has(attrLockable)
	case "enter", "get in", "get on", "climb in", "climb on", "sit on", "sit in", "lie on", "lie in", "stand on", "go in", "get off", "get out":
		return has(attrEnterable, attrSupporter, attrContainer, attrDoor)
	case "turn on", "turn off", "switch on", "switch off", "switch":
		return has(attrSwitchable)
	case "kill":
		return has(attrAnimate)
	}
	return true
}
