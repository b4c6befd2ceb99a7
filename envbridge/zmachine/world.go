package zmachine

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/zmachine/zvm"
)

// ErrNoMachine is returned by the world and valid-action accessors when no
// in-process game runs (before Reset, after Close, or under dfrotz).
var ErrNoMachine = errors.New("no in-process game is running")

// WorldObject is one object of the game's object tree.
type WorldObject struct {
	ID     int    `json:"id"`
	Parent int    `json:"parent"`
	Name   string `json:"name"`
	Attrs  []int  `json:"attrs,omitempty"` // the numbers of the attributes set
}

// World is the game's world state as the machine holds it: the object tree
// (names, parents, attributes), the player object and the location (its
// room), for tests and evaluation (for example to check a method's knowledge
// graph against the truth).
type World struct {
	Objects  []WorldObject `json:"objects"`
	Player   int           `json:"player"`   // 0 when not found
	Location int           `json:"location"` // 0 when not found
}

// Object returns the object id, or false.
func (w World) Object(id int) (WorldObject, bool) {
	if id < 1 || id > len(w.Objects) {
		return WorldObject{}, false
	}
	return w.Objects[id-1], true
}

// Contents lists the objects whose parent is id, in tree order.
func (w World) Contents(id int) []WorldObject {
	var out []WorldObject
	for _, o := range w.Objects {
		if o.Parent == id {
			out = append(out, o)
		}
	}
	return out
}

// World returns the object tree of the running game.
func (e *Env) World() (World, error) {
	if e.closed {
		return World{}, fmt.Errorf("zmachine world: %w", envbridge.ErrClosed)
	}
	if e.vm == nil {
		return World{}, ErrNoMachine
	}
	m := e.vm.m
	n := m.NumObjects()
	w := World{Objects: make([]WorldObject, 0, n)}
	for id := 1; id <= n; id++ {
		o := m.Object(id)
		wo := WorldObject{ID: id, Parent: o.Parent, Name: o.Name}
		for a, set := range o.Attr {
			if set {
				wo.Attrs = append(wo.Attrs, a)
			}
		}
		w.Objects = append(w.Objects, wo)
	}
	w.Player, w.Location = findPlayer(m, w.Objects)
	return w, nil
}

// playerNames are the short names games give the player object: Inform's
// "yourself", Inform 7's and TextWorld's "yourself", zork1's "cretin".
var playerNames = map[string]bool{"yourself": true, "you": true, "cretin": true, "self": true, "myself": true, "me": true}

// findPlayer finds the player object by its name and the room it is in. Where no object has a player's name, the location is
// global 0 (version 3's status object, Inform's "location").
func findPlayer(m *zvm.Machine, objs []WorldObject) (player, location int) {
	parent := func(id int) int {
		if id < 1 || id > len(objs) {
			return 0
		}
		return objs[id-1].Parent
	}
	for _, o := range objs {
		if playerNames[strings.ToLower(strings.TrimSpace(o.Name))] && o.Parent != 0 {
			player = o.ID
			break
		}
	}
	g0 := int(m.Global(0))
	if player != 0 {
		// The room is global 0 when it holds the player (version 3's status
		// object, Inform's location; the player may sit in a vehicle or on
		// a supporter inside it), else the player's parent.
		for a, i := parent(player), 0; a != 0 && i < len(objs); a, i = parent(a), i+1 {
			if a == g0 {
				return player, g0
			}
		}
		return player, parent(player)
	}
	if g0 >= 1 && g0 <= len(objs) {
		location = g0
	}
	return 0, location
}

// treeBytes copies the object table as it stands in dynamic memory: every
// object's attributes, parent, sibling and child (not its properties, not
// the globals, so that a turn that only advances the clock does not count
// as a change).
func treeBytes(m *zvm.Machine, n int, buf []byte) []byte {
	hd := m.Header()
	entry, defaults := 9, 31
	if hd.Version > 3 {
		entry, defaults = 14, 63
	}
	base := hd.ObjectTable + 2*defaults
	buf = buf[:0]
	for id := 0; id < n; id++ {
		a := base + id*entry
		for k := 0; k < entry-2; k++ {
			buf = append(buf, m.PeekByte(a+k))
		}
	}
	return buf
}

// maskedHash hashes tree bytes, leaving out those mask marks.
func maskedHash(tree []byte, mask []bool) uint64 {
	h := fnv.New64a()
	var one [1]byte
	for i, b := range tree {
		if i < len(mask) && mask[i] {
			continue
		}
		one[0] = b
		h.Write(one[:])
	}
	return h.Sum64()
}
