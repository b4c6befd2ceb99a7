package zmachine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"

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

// carries reports whether object id is inside holder, at any depth (the
// chain of parents is followed at most len(w.Objects) steps, so a tree
// with a cycle ends).
func (w World) carries(holder, id int) bool {
	if holder == 0 {
		return false
	}
	for range len(w.Objects) {
		o, ok := w.Object(id)
		if !ok || o.Parent == 0 {
			return false
		}
		if o.Parent == holder {
			return true
		}
		id = o.Parent
	}
	return false
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
		w.Objects = append(w.Objects, WorldObject{ID: id, Parent: o.Parent, Name: o.Name, Attrs: setAttrs(o.Attr)})
	}
	pl := e.vm.playerFacts(e.g)
	w.Player, w.Location = findPlayer(m, w.Objects, pl)
	return w, nil
}

// playerFacts is what watching the player move taught about a game: the
// player object and the object rooms hang under (0 for Inform, whose rooms
// are roots; Infocom's ROOMS). Shared by the game's Envs and kept once
// found.
type playerFacts struct {
	known      bool
	player     int
	roomParent int
}

// playerWatch holds a game's playerFacts for all its Envs.
type playerWatch struct {
	mu sync.Mutex
	playerFacts
}

// moveCommands are tried to see which object the player is: it is the one
// that changes parent when the player goes somewhere.
var moveCommands = []string{"north", "south", "east", "west", "northeast", "northwest", "southeast",
	"southwest", "up", "down", "in", "out", "stand", "get up", "exit"}

// playerFacts returns the game's player facts, watching the player move
// (on the machine, undone) while they are unknown.
func (g *vmGame) playerFacts(gm *game) playerFacts {
	if gm == nil {
		return playerFacts{}
	}
	pf := &gm.player
	pf.mu.Lock()
	defer pf.mu.Unlock()
	if !pf.known && g.b.Player > 0 {
		// The binding names the player (where watching it move misleads:
		// sorcerer's first room is a maze whose exits lead back to it,
		// and a hellhound follows); its room is global 0 or its parent.
		return playerFacts{known: true, player: g.b.Player, roomParent: -1}
	}
	if !pf.known {
		if p, rp, ok := g.watchMoves(); ok {
			pf.known, pf.player, pf.roomParent = true, p, rp
		}
	}
	return pf.playerFacts
}

// watchMoves plays the move commands the dictionary knows, each from the
// present state (undone), and returns the object that changed parent in
// the most of them (ties: a player's name first, then the lowest number),
// and the parent of the rooms it reached. ok is false when no command moved
// anything.
func (g *vmGame) watchMoves() (player, roomParent int, ok bool) {
	if g.halted || g.waitKey {
		return 0, 0, false
	}
	m := g.m
	snap := m.Snapshot()
	saved := *g
	defer func() {
		m.Restore(snap)
		*g = saved
	}()
	n := m.NumObjects()
	before := make([]int, n+1)
	for id := 1; id <= n; id++ {
		before[id] = m.Object(id).Parent
	}
	dict := g.dictionary()
	moved := map[int]int{}
	home := map[int]int{}      // moves that took the object to the room global 0 names then
	reached := map[int][]int{} // object -> the parents of its new parents
	// What moves when the player does nothing (a wandering thief, a
	// train) is not the player.
	still := map[int]bool{}
	for _, c := range []string{"wait", "look"} {
		if !dict.has(c) {
			continue
		}
		if _, ok := g.playFrom(snap, saved, c); !ok {
			continue
		}
		for id := 1; id <= n; id++ {
			if m.Object(id).Parent != before[id] {
				still[id] = true
			}
		}
	}
	for _, c := range moveCommands {
		if !dict.has(strings.Fields(c)[0]) {
			continue
		}
		if _, ok := g.playFrom(snap, saved, c); !ok {
			continue
		}
		g0 := int(m.Global(0))
		for id := 1; id <= n; id++ {
			if p := m.Object(id).Parent; p != before[id] && p != 0 && !still[id] {
				moved[id]++
				if p == g0 {
					home[id]++
				}
				reached[id] = append(reached[id], m.Object(p).Parent)
			}
		}
	}
	// Where the Inform library's attributes show one, only an object
	// with the self object's attributes is the player: a door or a
	// wall found in several rooms moves with the player too (gold's
	// front door, moved into each room the player enters).
	self := map[int]bool{}
	for id := range moved {
		if hasSelfAttrs(m.Object(id).Attr) {
			self[id] = true
		}
	}
	best := 0
	for id, k := range moved {
		if len(self) > 0 && !self[id] {
			continue
		}
		switch {
		case best == 0 || home[id] > home[best] || home[id] == home[best] && k > moved[best]:
			best = id
		case home[id] < home[best] || k < moved[best]:
		default:
			bn, in := isPlayerName(m.Object(best).Name), isPlayerName(m.Object(id).Name)
			if in && !bn || in == bn && id < best {
				best = id
			}
		}
	}
	if best == 0 {
		return 0, 0, false
	}
	// The rooms' parent: the most common parent of the new parents.
	count := map[int]int{}
	rp := 0
	for _, p := range reached[best] {
		count[p]++
		if count[p] > count[rp] || count[p] == count[rp] && p < rp {
			rp = p
		}
	}
	return best, rp, true
}

// playFrom puts the machine back to snap and the driver's state to saved,
// then plays cmd to the next wait; ok is false when the game did not take
// it or failed.
func (g *vmGame) playFrom(snap *zvm.Snapshot, saved vmGame, cmd string) (string, bool) {
	g.m.Restore(snap)
	*g = saved
	if g.m.Input(cmd) != nil {
		return "", false
	}
	text, err := g.run()
	return text, err == nil
}

// playerNames are the short names games give the player object: Inform's
// "yourself" and "(self object)", zork1's "cretin", sorcerer's
// "protagonist".
var playerNames = map[string]bool{"yourself": true, "you": true, "cretin": true, "self": true, "myself": true,
	"me": true, "(self object)": true, "player": true, "protagonist": true}

// hasSelfAttrs reports attributes (by number, set or not) that are the
// self object's in one of the Inform library's orders (attrs.go).
func hasSelfAttrs(attr []bool) bool { return selfLayout(setAttrs(attr)) != nil }

// setAttrs are the numbers of the attributes set in attr, in order.
func setAttrs(attr []bool) []int {
	var set []int
	for a, on := range attr {
		if on {
			set = append(set, a)
		}
	}
	return set
}

func isPlayerName(name string) bool { return playerNames[strings.ToLower(strings.TrimSpace(name))] }

// findPlayer finds the player object and the room it is in. With facts
// learnt by watching it move: that object, and its ancestor that hangs
// under the rooms' parent. Without: an object with a player's name whose
// ancestors hold global 0 (version 3's status object, Inform's location),
// else the first with a parent; the room is global 0 when it holds the
// player (who may sit in a vehicle or on a supporter inside it), else the
// player's parent.
func findPlayer(m *zvm.Machine, objs []WorldObject, pf playerFacts) (player, location int) {
	parent := func(id int) int {
		if id < 1 || id > len(objs) {
			return 0
		}
		return objs[id-1].Parent
	}
	g0 := int(m.Global(0))
	holds := func(id, anc int) bool {
		for a, i := parent(id), 0; a != 0 && i < len(objs); a, i = parent(a), i+1 {
			if a == anc {
				return true
			}
		}
		return false
	}
	if pf.known && pf.player >= 1 && pf.player <= len(objs) {
		player = pf.player
		for a, i := parent(player), 0; a != 0 && i < len(objs) && pf.roomParent >= 0; a, i = parent(a), i+1 {
			if parent(a) == pf.roomParent {
				return player, a
			}
		}
		if holds(player, g0) {
			return player, g0
		}
		return player, parent(player)
	}
	for _, o := range objs {
		if !isPlayerName(o.Name) || o.Parent == 0 {
			continue
		}
		if player == 0 || holds(o.ID, g0) && !holds(player, g0) {
			player = o.ID
		}
	}
	if player != 0 {
		if holds(player, g0) {
			return player, g0
		}
		return player, parent(player)
	}
	if g0 >= 1 && g0 <= len(objs) {
		location = g0
	}
	return 0, location
}

// treeBytes copies the object table as it stands in dynamic memory: every
// object's attributes, parent, sibling and child, and its property-table
// address, which never changes (not its properties, not the globals, so
// that a turn that only advances the clock does not count as a change).
func treeBytes(m *zvm.Machine, n int, buf []byte) []byte {
	hd := m.Header()
	entry, defaults := 9, 31
	if hd.Version > 3 {
		entry, defaults = 14, 63
	}
	return m.AppendMemory(buf[:0], hd.ObjectTable+2*defaults, n*entry)
}

// maskedHash hashes tree bytes, leaving out the bits mask sets, eight
// bytes at a time. Each step, h = f(h ^ word) with f a multiplication by an
// odd constant and an xor-shift, is a bijection of h for a given word, so
// two trees that differ in one word (the usual case: one object moved)
// never hash alike.
func maskedHash(tree, mask []byte) uint64 {
	const k = 0x9e3779b97f4a7c15
	h := uint64(14695981039346656037)
	n := min(len(tree), len(mask)) &^ 7
	for i := 0; i < n; i += 8 {
		w := binary.LittleEndian.Uint64(tree[i:]) &^ binary.LittleEndian.Uint64(mask[i:])
		h = (h ^ w) * k
		h ^= h >> 32
	}
	for i := n; i < len(tree); i++ {
		b := tree[i]
		if i < len(mask) {
			b &^= mask[i]
		}
		h = (h ^ uint64(b)) * k
		h ^= h >> 32
	}
	return h
}

// roomState is what a refusal of a command that works a mechanism
// (mechanism) is remembered by besides its thing: the room and the
// things in it as they are (their numbers and attributes, the player left
// out). Such a command refused on one thing may work once another thing
// of the room changes ("turn selkis" once the Neith statue is turned; a
// button of a console once the monster the console moves has come), so
// it is tried in its place again then.
func roomState(w World) string {
	if w.Location == 0 {
		return ""
	}
	h := newStateHash()
	h.put(w.Location)
	for _, o := range w.Objects {
		if o.Parent != w.Location || o.ID == w.Player {
			continue
		}
		h.thing(o)
	}
	return "#" + h.String()
}

// stateHash folds numbers into one FNV-64a sum: the short keys the
// refusal memory keeps a room's state by.
type stateHash struct {
	h hash.Hash64
	b [8]byte
}

func newStateHash() *stateHash { return &stateHash{h: fnv.New64a()} }

func (s *stateHash) put(x int) {
	binary.LittleEndian.PutUint64(s.b[:], uint64(x))
	s.h.Write(s.b[:])
}

// thing folds in an object's number and its attributes (offset so that
// no attribute number reads as an object number).
func (s *stateHash) thing(o WorldObject) {
	s.put(o.ID)
	for _, a := range o.Attrs {
		s.put(a + 1<<20)
	}
}

func (s *stateHash) String() string { return strconv.FormatUint(s.h.Sum64(), 16) }

// mechanism reports a command that works a thing in place: push, pull,
// turn, move, press it.
func mechanism(c string) bool {
	for _, v := range []string{"push ", "pull ", "turn ", "move ", "press "} {
		if strings.HasPrefix(c, v) {
			return true
		}
	}
	return false
}
