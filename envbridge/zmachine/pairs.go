package zmachine

import (
	"slices"
	"strings"
)

// pairScope is what the two-object candidates are made from: the things in
// view not carried (salient first) and those carried (the latest taken
// first), what holds each thing in view, the characters in view, and the
// kind test of the game's attribute layout (fits; always true where the
// layout is unknown).
type pairScope struct {
	near, carried []string
	holder        map[string]string
	ids           map[string]int
	animate       []string
	w             World
	layout        *attrLayout
	fits          func(name, verb string, second bool) bool
	// strong and firsts are pairsAbout's, found at its first call: the
	// game's strongPairs templates, the carried things it tries.
	strong []template
	firsts []string
	// later are the tying commands deferred to the last tier (tieLater).
	later [][2]string
}

// tieVerbs are the verbs that fasten one thing to another ("tie OBJ to
// OBJ").
var tieVerbs = map[string]bool{"tie": true, "attach": true, "fasten": true, "join": true, "connect": true,
	"plug": true, "hook": true, "glue": true, "nail": true, "chain": true}

// tieLater reports a tying command of a carried thing to b that is tried
// after every other command but the last tier's (flushLater): b carried
// too or inside what is carried. Things are tied to anything (secondOK),
// so these are the carried things times everything the player holds,
// dozens of commands where the player carries a full sack, and a thing
// is most often tied to something in the room (a rope to a railing).
func (ps *pairScope) tieLater(t template, mid, b string) bool {
	return mid == "to" && tieVerbs[t.words[0]] && ps.pocketed(b)
}

// pocketed reports a thing carried or inside what is carried.
func (ps *pairScope) pocketed(b string) bool {
	h := b
	for range len(ps.holder) + 1 {
		if slices.Contains(ps.carried, h) {
			return true
		}
		if h = ps.holder[h]; h == "" {
			return false
		}
	}
	return false
}

// placer is where the commands of t with second object b go: add, or
// the deferred tying commands (tieLater).
func (ps *pairScope) placer(t template, mid, b string, add func(obj, c string)) func(obj, c string) {
	if !ps.tieLater(t, mid, b) {
		return add
	}
	return func(obj, c string) { ps.later = append(ps.later, [2]string{obj, c}) }
}

// flushLater adds the deferred tying commands.
func (ps *pairScope) flushLater(addAbout func(obj, c string)) {
	for _, c := range ps.later {
		addAbout(c[0], c[1])
	}
	ps.later = nil
}

// secondOK reports whether b may be the second object of t: of the kind
// the words between the objects need (fits), and, where the layout is
// known, a character for what is given, shown or fed to someone ("give
// coin to door" is refused by every game). Things are tied or fastened to
// anything (a branch, a hook), fixtures too.
func (ps *pairScope) secondOK(t template, mid, b string) bool {
	if mid == "to" {
		switch t.words[0] {
		case "give", "show", "feed", "offer", "sell", "hand", "pay", "bribe":
			if ps.layout != nil {
				// a word of the text that names no thing in view is no
				// one to give to ("give coin to with")
				return slices.Contains(ps.animate, b)
			}
		default:
			if tieVerbs[t.words[0]] {
				return true
			}
		}
	}
	return ps.fits(b, mid, true)
}

// between is the word after a two-object template's first object ("in"
// for "put OBJ in OBJ").
func (t template) between() string {
	return t.words[slices.Index(t.words, "OBJ")+1]
}

// twoObjectCandidates adds the two-object templates of one tier: for
// "from" ("take OBJ from OBJ") a thing in view and what holds it; for a
// template whose first object is carried ("put OBJ in OBJ") a carried
// thing into each thing in view of the kind the template needs, then into
// the fixtures in view (a slot, a socket: the game's own rule takes what
// is put in them), then into what is carried (a sack, a pot); for the
// others ("unlock OBJ with OBJ") a thing in view with each carried one.
// Each template's commands about the things the last text names (focus)
// come first. (Letting the templates take turns, the first command of
// each, then the second of each, was measured and left out: it lost more
// than it gained, "put in" being by far the most common.)
func (ps *pairScope) twoObjectCandidates(tier2 []template, focus []string, addAbout func(obj, c string)) {
	type cmd struct{ obj, text string }
	var bk []cmd
	for _, t := range tier2 {
		bk = bk[:0]
		add := func(obj, c string) { bk = append(bk, cmd{obj, c}) }
		mid := t.between()
		switch {
		case t.from:
			for _, o := range ps.near {
				if h := ps.holder[o]; h != "" && ps.fits(h, mid, true) {
					add(o, t.fill(o, h))
				}
			}
		case t.heldFirst:
			for _, b := range ps.near {
				if !ps.secondOK(t, mid, b) {
					continue
				}
				put := ps.placer(t, mid, b, add)
				for _, a := range ps.carried {
					put(b, t.fill(a, b))
				}
			}
			if (mid == "in" || mid == "on") && ps.layout != nil {
				for _, b := range ps.near {
					if id, ok := ps.ids[b]; !ok || ps.fits(b, mid, true) || slices.Contains(ps.animate, b) {
						continue
					} else if o, _ := ps.w.Object(id); !ps.layout.fixture(o.Attrs) {
						continue
					}
					for _, a := range ps.carried {
						add(b, t.fill(a, b))
					}
				}
			}
			for _, b := range ps.carried {
				if !ps.secondOK(t, mid, b) {
					continue
				}
				put := ps.placer(t, mid, b, add)
				for _, a := range ps.carried {
					if a != b {
						put(b, t.fill(a, b))
					}
				}
			}
		default:
			for _, a := range ps.near {
				if !ps.fits(a, t.words[0], false) {
					continue
				}
				for _, b := range ps.carried {
					add(a, t.fill(a, b))
				}
			}
		}
		if len(focus) > 0 {
			about := func(c cmd) int {
				for _, f := range focus {
					if wordIndex(c.text, f) >= 0 {
						return 0
					}
				}
				return 1
			}
			slices.SortStableFunc(bk, func(x, y cmd) int { return about(x) - about(y) })
		}
		for _, c := range bk {
			addAbout(c.obj, c.text)
		}
	}
}

// latestFirst orders the carried things as the player's children are
// chained in the object tree: a thing taken is made the first child (the
// Z-machine's insert_obj, which Inform's and Infocom's "move" use), so the
// latest taken comes first. Names not found there keep their order, after.
func latestFirst(children []int, carried []string, ids map[string]int) []string {
	if len(carried) < 2 {
		return carried
	}
	rank := map[int]int{}
	for i, id := range children {
		rank[id] = i
	}
	out := slices.Clone(carried)
	slices.SortStableFunc(out, func(a, b string) int {
		ra, oka := rank[ids[a]]
		rb, okb := rank[ids[b]]
		switch {
		case oka && okb:
			return ra - rb
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	})
	return out
}

// childOf lists id's children in the tree's order (first child, then its
// siblings), at most the objects there are (a broken chain ends).
func (g *vmGame) childOf(id int) []int {
	var out []int
	n := g.m.NumObjects()
	for c := g.m.Object(id).Child; c != 0 && len(out) <= n; c = g.m.Object(c).Sibling {
		out = append(out, c)
	}
	return out
}

// strongPairs are the two-object commands pairsAbout tries with each thing
// in view of the kind strongOK asks for, right after the thing's own
// one-object commands.
var strongPairs = []string{"put in", "put on", "give to", "show to", "unlock with", "insert in"}

// strongOK reports whether o may fill the slot of t that the kind rule of
// strongPairs reads: a container to put in, a supporter to put on, a
// character to give or show to, a lockable thing to unlock.
func (ps *pairScope) strongOK(t template, o string) bool {
	id, tree := ps.ids[o]
	if !tree || ps.layout == nil {
		return false
	}
	ob, _ := ps.w.Object(id)
	has := func(a int) bool { return slices.Contains(ob.Attrs, a) }
	switch t.words[0] + " " + t.between() {
	case "put in", "insert in":
		return has(ps.layout.container)
	case "put on":
		return has(ps.layout.supporter)
	case "give to", "show to":
		return has(ps.layout.animate)
	case "unlock with":
		return has(ps.layout.lockable)
	}
	return false
}

// pairsAbout adds the strongPairs whose second object is o (for
// "unlock OBJ with OBJ", whose first is o), with the first maxPairFirst
// carried things taken latest (not worn): a carried thing put in o if a
// container, on o if a supporter, given or shown to o if a character; o
// unlocked with a carried thing if lockable. Only where the layout is
// known.
func (ps *pairScope) pairsAbout(ts []template, o string, addAbout func(obj, c string)) {
	if ps.layout == nil || len(ps.carried) == 0 || slices.Contains(ps.carried, o) {
		return
	}
	if ps.strong == nil {
		ps.strong = []template{}
		for _, pv := range strongPairs {
			f := strings.Fields(pv)
			for _, t := range ts {
				if t.objs == 2 && !t.from && t.words[0] == f[0] && t.between() == f[1] {
					ps.strong = append(ps.strong, t)
					break
				}
			}
		}
		for _, a := range ps.carried {
			if ob, _ := ps.w.Object(ps.ids[a]); len(ps.firsts) < maxPairFirst && !slices.Contains(ob.Attrs, ps.layout.worn) {
				ps.firsts = append(ps.firsts, a)
			}
		}
	}
	for _, t := range ps.strong {
		if !ps.strongOK(t, o) {
			continue
		}
		for _, a := range ps.firsts {
			if t.heldFirst {
				addAbout(o, t.fill(a, o))
			} else {
				addAbout(o, t.fill(o, a))
			}
		}
	}
}

// maxPairFirst bounds the carried things pairsAbout tries with a thing:
// the one taken last.
const maxPairFirst = 1

// maxRepeat bounds the commands repeatPair makes.
const maxRepeat = 4

// repeatPair adds, after a two-object command whose first object goes to
// a second ("put egg in pot", "give gram to meghan", "insert orange card
// in slot"), the same command with up to maxRepeat other things carried
// (not worn), those whose attributes are most like the first object's
// first, then the latest taken: a player who put one thing into a pot or
// a socket most often puts another there next. last is the command played
// before (its verb as the template writes it); nothing when its second
// object is no thing in view. Tried right after the things the last text
// names, before any take or drop.
func (ps *pairScope) repeatPair(ts []template, inView []string, last string, addAbout func(obj, c string)) {
	f := strings.Fields(strings.ToLower(last))
	if len(f) < 4 || len(ps.carried) == 0 {
		return
	}
	for _, t := range ts {
		if t.objs != 2 || !t.heldFirst || t.words[0] != f[0] {
			continue
		}
		mid := t.between()
		i := slices.Index(f[2:], mid)
		if i < 0 || 2+i+1 >= len(f) {
			continue
		}
		a, b := nameIn(inView, f[1:2+i]), nameIn(inView, f[2+i+1:])
		if b == "" {
			continue
		}
		xs := ps.carried
		if id, ok := ps.ids[a]; ok {
			// things like the one just put first (a corbie egg, then
			// flour and butter: edible, as the egg)
			ao, _ := ps.w.Object(id)
			like := func(x string) float64 {
				xo, _ := ps.w.Object(ps.ids[x])
				return jaccard(ao.Attrs, xo.Attrs)
			}
			xs = slices.Clone(xs)
			slices.SortStableFunc(xs, func(p, q string) int {
				lp, lq := like(p), like(q)
				switch {
				case lp > lq:
					return -1
				case lp < lq:
					return 1
				}
				return 0
			})
		}
		n := 0
		for _, x := range xs {
			if n >= maxRepeat {
				break
			}
			if x == a || x == b {
				continue
			}
			if ps.layout != nil {
				if ob, _ := ps.w.Object(ps.ids[x]); slices.Contains(ob.Attrs, ps.layout.worn) {
					continue
				}
			}
			addAbout(b, t.fill(x, b))
			n++
		}
		return
	}
}

// nameIn is the name in names all of whose words are among words (the
// one with the most words), or "".
func nameIn(names, words []string) string {
	best, bw := "", 0
	for _, n := range names {
		nw := strings.Fields(n)
		all := true
		for _, w := range nw {
			if !slices.Contains(words, w) {
				all = false
				break
			}
		}
		if all && len(nw) > bw {
			best, bw = n, len(nw)
		}
	}
	return best
}

// jaccard is the share of attributes two sets have in common (1 for two
// empty sets).
func jaccard(a, b []int) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	both := 0
	for _, x := range a {
		if slices.Contains(b, x) {
			both++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}
