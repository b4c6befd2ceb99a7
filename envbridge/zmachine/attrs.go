package zmachine

import "slices"

// Inform's library declares its attributes in one order, which games
// compiled with it keep (Inform 6 and the template layer of the early
// Inform 7 builds alike, Anchorhead; the later builds' order is i7Layout:
// animate 0, clothing 2, container 4, door 5, edible 6, enterable 7,
// lockable 10, openable 15, scenery 17, static 19, supporter 20,
// switchable 21, worn 26); older libraries (Inform 5, the early 6
// releases: Curses, Spirit) have no "absent" before clothing and one
// attribute more after enterable, so clothing to enterable are one lower
// and the rest the same. A game that declares attributes of its own
// before the library's (Deephome, Reverb, Lost Pig) has the whole order
// shifted up by their number. A game whose player object has the self
// object's attributes in one of these orders (animate, concealed, proper,
// transparent) is taken to use it; then a template whose verb needs a
// kind of thing ("wear" clothing, "open" something openable, "put in" a
// container) is not filled with things that are not of that kind: the
// parser or the library would refuse them, and each refusal costs a turn
// of the instruction budget.
type attrLayout struct {
	animate, clothing, container, door, edible, enterable, lockable,
	openable, scenery, static, supporter, switchable, worn int
	// the states: locked, switched on, open (the same places in both
	// orders)
	locked, on, open int
	self             []int // the self object's attributes
	// concealed is the other library order's concealed at the same
	// shift, which the self object of this one does not have
	notConcealed int
	// i7: the later Inform 7 order, where a thing's parts are no children
	// of it (Inform 7 keeps them apart from the object tree)
	i7 bool
}

// baseLayouts are the two library orders, unshifted.
var baseLayouts = []attrLayout{
	{animate: 0, clothing: 2, container: 4, door: 5, edible: 6, enterable: 7, lockable: 10,
		openable: 15, scenery: 17, static: 19, supporter: 20, switchable: 21, worn: 26,
		locked: 11, on: 13, open: 14, self: []int{0, 3, 16, 23}},
	{animate: 0, clothing: 1, container: 3, door: 4, edible: 5, enterable: 6, lockable: 10,
		openable: 15, scenery: 17, static: 19, supporter: 20, switchable: 21, worn: 26,
		locked: 11, on: 13, open: 14, self: []int{0, 2, 16, 23}},
}

// i7Layout is the order of the template layer of later Inform 7 builds
// (Afflicted, Party Foul, Snack Time, Yo Momma: 5T18 and after): absent
// 0, animate 1, clothing 2, concealed 3, container 4, door 5, edible 6,
// enterable 7, light 8, lockable 9, locked 10, moved 11, on 12, open 13,
// openable 14, scenery 15, static 16, supporter 17, switchable 18,
// talkable 19, transparent 20, ..., worn 22, ..., proper 27; "general"
// is gone and "proper" moved after the genders. Its self object is never
// clothing, which the older orders' self objects are not told apart by.
var i7Layout = attrLayout{animate: 1, clothing: 2, container: 4, door: 5, edible: 6, enterable: 7,
	lockable: 9, openable: 14, scenery: 15, static: 16, supporter: 17, switchable: 18, worn: 22,
	locked: 10, on: 12, open: 13, self: []int{1, 3, 20, 27}, notConcealed: 2, i7: true}

// maxAttrShift is the most attributes of its own a game is taken to
// declare before the library's.
const maxAttrShift = 8

// attrLayouts are the library orders shifted by 0 to maxAttrShift, the
// least shift first (attrLayouts[0] and [1] are baseLayouts as they are),
// then i7Layout shifted likewise.
var attrLayouts = func() []attrLayout {
	var out []attrLayout
	for k := 0; k <= maxAttrShift; k++ {
		for i, b := range baseLayouts {
			l := b.shifted(k)
			l.notConcealed = baseLayouts[1-i].self[1] + k
			out = append(out, l)
		}
	}
	for k := 0; k <= maxAttrShift; k++ {
		out = append(out, i7Layout.shifted(k))
	}
	return out
}()

// shifted is l with every attribute k higher.
func (l attrLayout) shifted(k int) attrLayout {
	for _, p := range []*int{&l.animate, &l.clothing, &l.container, &l.door, &l.edible,
		&l.enterable, &l.lockable, &l.openable, &l.scenery, &l.static, &l.supporter,
		&l.switchable, &l.worn, &l.locked, &l.on, &l.open, &l.notConcealed} {
		*p += k
	}
	self := make([]int, len(l.self))
	for j, a := range l.self {
		self[j] = a + k
	}
	l.self = self
	return l
}

// informAttrs is the attribute layout world's player object shows (or,
// where the player is not found, the object named as Inform names its self
// object), or nil.
func informAttrs(w World) *attrLayout {
	var who []WorldObject
	if p, ok := w.Object(w.Player); ok {
		who = append(who, p)
	} else {
		for _, o := range w.Objects {
			if isPlayerName(o.Name) {
				who = append(who, o)
			}
		}
	}
	for _, p := range who {
		if l := selfLayout(p.Attrs); l != nil {
			return l
		}
	}
	return nil
}

// selfLayout is the layout in which attrs are the self object's, or nil.
func selfLayout(attrs []int) *attrLayout {
	for i := range attrLayouts {
		if attrLayouts[i].isSelf(attrs) {
			return &attrLayouts[i]
		}
	}
	return nil
}

// isSelf reports attributes that are the self object's in layout l (and
// not in the other order at the same shift: its concealed is absent).
func (l *attrLayout) isSelf(attrs []int) bool {
	for _, a := range l.self {
		if !slices.Contains(attrs, a) {
			return false
		}
	}
	return !slices.Contains(attrs, l.notConcealed)
}

// kindOK reports whether a thing with attributes attrs may fill the object
// of a one-object template whose words before the object are verb ("wear",
// "turn on"), or, with second, the second object of a two-object
// template whose words between the objects are verb ("in").
func (l *attrLayout) kindOK(verb string, attrs []int, second bool) bool {
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
			return has(l.container)
		case "on", "onto":
			return has(l.supporter)
		case "to":
			return has(l.animate, l.door, l.supporter, l.container)
		case "off":
			// "take X off Y": Y a supporter (off anything else it is
			// "take X", or "take X from Y")
			return has(l.supporter)
		case "out":
			return has(l.container)
		}
		return true
	}
	if has(l.animate) && notToAnimate[verb] {
		return false
	}
	switch verb {
	case "take":
		return !has(l.scenery, l.static) // "That's hardly portable."
	case "drink":
		// no kind marks drinks; these kinds are none
		return !has(l.clothing, l.door, l.enterable, l.supporter, l.switchable, l.lockable, l.worn)
	case "fill", "empty", "empty out":
		return has(l.container)
	case "exit", "get off", "climb down", "climb out", "get out":
		return has(l.enterable, l.supporter, l.container)
	case "wear", "put on":
		return has(l.clothing) && !has(l.worn)
	case "take off", "remove":
		// "remove" a thing not worn takes it (the world of "take")
		return has(l.worn)
	case "eat":
		return has(l.edible)
	case "open":
		// a container that is not openable may yet open by a rule of its
		// own (curses' coffin, "open lid"); an openable thing already
		// open is not opened again ("It's already open.")
		return has(l.openable, l.door, l.container) && !(has(l.openable) && has(l.open))
	case "close":
		return has(l.openable, l.door) && has(l.open)
	case "unlock":
		return has(l.lockable) && has(l.locked)
	case "lock":
		return has(l.lockable) && !has(l.locked) && !has(l.open)
	case "enter":
		// scenery too: a passage, a crack, a hole ("enter tunnel") that a
		// rule of its own lets the player into
		return has(l.enterable, l.supporter, l.container, l.door, l.scenery)
	case "get in", "get on", "climb in", "climb on", "sit on", "sit in", "lie on", "lie in", "stand on", "go in":
		return has(l.enterable, l.supporter, l.container, l.door)
	case "turn on", "switch on":
		return has(l.switchable) && !has(l.on)
	case "turn off", "switch off":
		return has(l.switchable) && has(l.on)
	case "switch":
		return has(l.switchable)
	case "kill":
		return has(l.animate)
	}
	return true
}

// fixture reports a thing fixed in place (scenery or static).
func (l *attrLayout) fixture(attrs []int) bool {
	return slices.Contains(attrs, l.scenery) || slices.Contains(attrs, l.static)
}

// objectOK is kindOK for object o of world w, with what the library
// refuses by where o is (whereOK).
func (l *attrLayout) objectOK(verb string, o WorldObject, w World, second bool) bool {
	if !l.kindOK(verb, o.Attrs, second) {
		// where parts are no children (Inform 7), scenery or a fixed
		// thing on a supporter or in a container is there to be kept out
		// of the room's list (Party Foul's butter knife on the counter):
		// it may be taken; elsewhere it is a part of its holder
		if verb != "take" || second || !l.i7 || o.Parent == w.Location {
			return false
		}
	}
	return second || whereOK(verb, o, w)
}

// whereOK reports whether a one-object command whose words before the
// object are verb may be about o by where o is: a thing the player
// carries is not entered, climbed or sat on ("You can only get into
// something free-standing"), nor what the player is already in or on; the
// player gets off or out of only what holds the player ("But you aren't
// on that at the moment").
func whereOK(verb string, o WorldObject, w World) bool {
	switch verb {
	case "enter", "get in", "get on", "climb in", "climb on", "sit on", "sit in", "lie on", "lie in",
		"stand on", "go in", "climb", "climb up", "climb over", "jump over", "jump on", "jump in":
		p, _ := w.Object(w.Player)
		return o.ID != p.Parent && !w.carries(w.Player, o.ID)
	case "exit", "get off", "get out", "climb out":
		p, ok := w.Object(w.Player)
		return !ok || o.ID == p.Parent
	}
	return true
}

// whereFits is the filter of templates where the attribute layout is
// unknown (Infocom games): whereOK for the objects of the tree, any
// object for a name from the text and for the second object.
func whereFits(w World, ids map[string]int) func(name, verb string, second bool) bool {
	return func(name, verb string, second bool) bool {
		id, ok := ids[name]
		if !ok || second || w.Player == 0 {
			return true
		}
		o, _ := w.Object(id)
		return whereOK(verb, o, w)
	}
}

// notToAnimate are the verbs the library answers for a character with a
// refusal or a description ("I don't suppose the boy would care for
// that.", "Keep your hands to yourself!"): not tried on one.
var notToAnimate = map[string]bool{
	"read": true, "drink": true, "climb": true, "climb up": true, "climb on": true,
	"light": true, "search": true, "empty": true, "empty out": true, "fill": true, "turn": true,
	"push": true, "pull": true, "eat": true, "wear": true, "put on": true, "take off": true,
	"open": true, "close": true, "lock": true, "unlock": true, "turn on": true, "turn off": true,
	"enter": true, "get in": true, "get on": true, "sit on": true,
}
