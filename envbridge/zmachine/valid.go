package zmachine

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"slices"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/zmachine/zvm"
)

// Valid actions, as Jericho's get_valid_actions (Hausknecht et al. 2020,
// "Interactive Fiction Games: A Colossal Adventure", Sec. 3: candidate
// actions from templates and the objects in view, each simulated from a
// saved state and kept when it changes the world). Candidates here are:
//
//   - the templates below whose verb the game's dictionary holds as a verb
//     (Inform's dictionary flag 1, Infocom's part-of-speech flag 0x40);
//   - filled with the objects in view: the descendants of the player's room
//     and of the player (the inventory), each named by the words of its
//     short name that the dictionary holds, ending with one the parser
//     knows the object by (names.go); two-object templates take a carried
//     object first. Where the game keeps the Inform library's attribute
//     order (attrs.go), a template takes only things of the kind its verb
//     needs ("wear" clothing, "open" something openable, "put in" a
//     container, nothing scenery or static taken); where it does not
//     (Infocom games), only where a thing is counts: nothing carried is
//     entered or climbed, only what holds the player is got out of;
//     "put in" tries the fixtures in view that are no container (a
//     slot, a socket) after the containers; things are given and shown
//     only to characters, tied to anything (pairs.go); a two-object
//     command played last is tried again with the other things carried,
//     right after the things the last text names ("put egg in pot", then
//     "put flour in pot"), and each thing in view is tried as the
//     container, supporter, character or lock of the carried thing taken
//     last right after its own one-object commands; the things the last
//     text names taken at once ("take vial, calendar and matchbook",
//     multi.go) after "take all";
//   - besides the grammar, before the common verbs: "take all from" what
//     holds something in view, the characters in view (Inform's animate)
//     told to follow and asked about the things in view and in the last
//     text, the verbs the grammar lacks with the last text's words
//     (wordverbs.go: "learn frotz"), the spells of the tree cast and
//     learnt (spells.go: "espnis thug", "gnusto caskly"), a number written
//     (numbers.go), the words the text quoted said (answers.go: "say
//     minirva"), things asked for from their holder (askfor.go); right
//     after the moves, the one-word commands that worked before in the
//     episode (magic.go: "plugh"), after the commands the last text
//     suggests in capitals (suggested.go: "ASK GNOME ABOUT FIRE"); after them, the first things in view
//     pushed in each direction; where nothing changes the world or the
//     text demands a word, words as answers (answers.go: the quoted
//     words, the names the text gave, the characters of the tree; up to
//     three budgets where no candidate changed the world). Inform 7 games (TextWorld) keep no short names
//     in the object table (their printed names are routines, and their
//     "name" properties are empty: parse_name routines read the words):
//     there the objects are the names the observations since entering the
//     room give, read with the dictionary (nounsIn: a run of consecutive
//     noun words is one name, "golden locker", "key 1"; directions, the
//     room's own name and words that name nothing are left out), and
//     two-object templates, which need to know what is carried, are not
//     tried. On hunt's Room A this is 31 candidates where one per noun
//     word gave 61 ("take room", "take west", "take golden", "take
//     locker" ...).
//
// The first maxFocus things in view that the last text names are tried
// with the focus verbs ("read wall" after the wall's writing is described)
// right after the moves, before any take or drop; not where the last
// search was starved (played fewer than starvedPlayed candidates). The
// two-object forms of the common verbs other than the usual ones ("drop
// OBJ in OBJ", "take OBJ from OBJ") come after every one-object command
// (templates.go, commonTwo).
//
// Candidates an earlier search of the episode played to no change are
// tried after the others (Env.refused; a refused take or drop right after
// the other takes and drops, an uncommon one-word command refused anywhere
// after the others everywhere): most refusals hold ("That's not
// something you can open."), and the instruction budget is better spent
// on what was not tried. A refusal is remembered with its object as it was
// (number, parent, attributes), so that "open door" refused while the door
// was locked is back in its place once the door changes; in Infocom games
// a command that works a thing in place (push, pull, turn, move) with the
// room's things as they were too (roomState: "turn selkis" once the Neith
// statue has turned). A refused command of a verb that may lack a tool
// (toolVerb: "open tin", "light lantern") is tried again, right after the
// takes and drops, once the player carries a thing never carried before
// it was refused (the opener, the matches); where the search plays few
// candidates (Inform 7 games), a move refused in a room comes after the
// takes and drops while the room's doors and characters and what holds
// the player are as they were (moveState), and the verbs of a kind of
// thing ("open", "wear", "turn on") are tried on the things of their kind
// right after the takes and drops (kindFirst).
//
// Each candidate is played from an in-memory snapshot; it is kept when the
// object tree (parents, siblings, children, attributes; the player moving
// changes it) or the score changed. Tree bytes that a plain "look" changes
// from the same snapshot (bookkeeping such as Inform 7's "mentioned") are
// left out of the comparison. Of candidates that lead to the same world, the first is
// kept (as Jericho keeps one action per resulting state), named by a plain
// take or drop of its object where one leads there too. Each candidate is
// a full turn of the game (an Inform 7 turn runs some 50,000 to 160,000
// Z-machine instructions), so with GOMAXPROCS above 1 they are tried
// concurrently on clones of the machine.
var (
	validMoves = []string{"north", "south", "east", "west", "northeast", "northwest",
		"southeast", "southwest", "up", "down", "in", "out"}
	moveAbbrevs = []string{"n", "s", "e", "w", "ne", "nw", "se", "sw", "u", "d", "in", "out"}
)

// maxValidObjects bounds the objects in view tried (the nearest first).
const maxValidObjects = 24

// maxTextNouns bounds the things the last text names that no object in
// view is called, tried as objects.
const maxTextNouns = 3

// maxCandidates bounds the candidates a search makes (and those it puts
// back): the budget stops a search after some hundreds, and one that finds
// nothing goes on for at most three budgets more.
const maxCandidates = 4000

// ValidActions returns the actions that change the world now, tried from a
// snapshot; the game is left exactly as it was. It needs the in-process
// machine and a game waiting for a command.
//
// With GOMAXPROCS above 1 the candidates are tried concurrently, on the
// game's machine and on up to maxValidWorkers-1 clones of it (kept for the
// episode, each from the same snapshot); each candidate's resulting world is computed alone and
// the results are then read in candidate order, so the list is the one the
// sequential search gives (TestValidActionsConcurrentEqualsSequential).
func (e *Env) ValidActions() ([]string, error) {
	return e.validActions(runtime.GOMAXPROCS(0))
}

// validActions is ValidActions on at most workers machines.
func (e *Env) validActions(workers int) ([]string, error) {
	r, err := e.search(workers, nil, false)
	return r.actions, err
}

// searchResult is a valid-action search: the actions kept, the world each
// leads to, the world of the state itself (as a turn that changes nothing
// leaves it), and the worlds the extra actions lead to (ok false where one
// could not be played).
type searchResult struct {
	actions []string
	keys    []worldKey
	base    worldKey
	extra   []worldKey
	extraOK []bool
	// candidates were made, tried of them played (the budget cuts).
	candidates, tried int
}

// search tries the candidates, then the extra actions, from the current
// state on at most workers machines.
func (e *Env) search(workers int, extra []string, onlyExtra bool) (searchResult, error) {
	if e.closed {
		return searchResult{}, fmt.Errorf("zmachine valid actions: %w", envbridge.ErrClosed)
	}
	vg := e.vm
	if vg == nil {
		return searchResult{}, fmt.Errorf("zmachine valid actions: %w", ErrNoMachine)
	}
	if vg.halted || vg.waitKey {
		return searchResult{}, nil
	}
	var list []candidate
	if !onlyExtra {
		list = e.candidateList()
	}
	nCand := len(list)
	for _, x := range extra {
		list = append(list, candidate{text: x})
	}
	m := vg.m
	snap := m.Snapshot()
	saved := *vg
	defer func() {
		m.Restore(snap)
		*vg = saved
	}()
	n := m.NumObjects()
	baseTree := treeBytes(m, n, nil)
	// What the game does on any turn is no change: bookkeeping (Inform 7
	// marks objects as mentioned when it lists them) and what happens
	// while time passes (a wandering thief, a ticking device). The bits
	// that "look" and "wait" change from the same snapshot are masked out
	// ("look" takes no time in some games), as Jericho masks per-game
	// attribute bits; an attribute either changes on two objects or more
	// is bookkeeping and masked on every object.
	mask := make([]byte, len(baseTree))
	entry, attrBytes := 9, 4
	if m.Version() > 3 {
		entry, attrBytes = 14, 6
	}
	attrSeen := make([]byte, attrBytes) // bits changed on one object so far
	attrMask := make([]byte, attrBytes) // bits changed on two or more
	dict := vg.dictionary()
	for _, c := range []string{"look", "wait"} {
		if !dict.has(c) {
			continue
		}
		if _, ok := vg.playFrom(snap, saved, c); !ok {
			continue
		}
		for i, b := range treeBytes(m, n, nil) {
			if i >= len(mask) || b == baseTree[i] {
				continue
			}
			d := b ^ baseTree[i]
			mask[i] |= d
			if j := i % entry; j < attrBytes {
				attrMask[j] |= attrSeen[j] & d
				attrSeen[j] |= d
			}
		}
	}
	for i := range mask {
		if j := i % entry; j < attrBytes {
			mask[i] |= attrMask[j]
		} else if mask[i] != 0 {
			mask[i] = 0xff // a parent, sibling or child pointer: the whole byte
		}
	}
	base := worldKey{tree: maskedHash(baseTree, mask)}
	base.score = e.score

	// Each candidate's world, or ok false when it was not played; the
	// instructions it ran. Candidates are tried in order until the
	// instructions of those done pass the budget; the extra actions are
	// always tried. An object the game says is not here (the parser's
	// answer to a one-word-object command about it: "You can't see any
	// such thing.") is not tried again in this search.
	//
	// So that the list is the same whatever the workers, what is skipped
	// and where the budget cuts are decided along the done prefix of the
	// candidates (the frontier): a worker stops only when the candidates
	// before the frontier, all done, pass the budget, and skips a
	// candidate only when an earlier one done found its object absent.
	keys := make([]worldKey, len(list))
	ok := make([]bool, len(list))
	cost := make([]uint64, len(list))
	absent := make([]bool, len(list))
	budget := e.suite.cfg.validBudget()
	var (
		mu       sync.Mutex
		done     = make([]bool, nCand)
		frontier int
		frontSum uint64
		firstOut = map[string]int{} // along the frontier: object -> first candidate that found it absent
		gone     = map[string]int{} // any done: object -> earliest candidate that found it absent
	)
	skipAt := func(i int) bool { // in order along the frontier
		o := list[i].obj
		if o == "" {
			return false
		}
		if j, ok := firstOut[o]; ok && j < i {
			return true
		}
		if absent[i] {
			firstOut[o] = i
		}
		return false
	}
	start := func(i int) bool {
		if i >= nCand {
			return true
		}
		mu.Lock()
		defer mu.Unlock()
		for frontier < nCand && done[frontier] {
			if !skipAt(frontier) {
				frontSum += cost[frontier]
			}
			frontier++
		}
		if budget > 0 && frontSum > budget {
			return false
		}
		if j, ok := gone[list[i].obj]; ok && j < i && list[i].obj != "" {
			done[i] = true // ruled out: no instructions
			return false
		}
		return true
	}
	finish := func(i int) {
		if i >= nCand {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		done[i] = true
		if o := list[i].obj; absent[i] {
			if j, ok := gone[o]; !ok || i < j {
				gone[o] = i
			}
		}
	}
	// worldAfter is the world g's machine is in after a candidate that
	// printed text: the base tree's key where the tree is the base's (most
	// candidates change nothing), else the masked hash; buf is reused.
	worldAfter := func(g *vmGame, text string, buf []byte) (worldKey, []byte) {
		buf = treeBytes(g.m, n, buf)
		k := worldKey{tree: base.tree, score: g.candidateScore(text, e.score)}
		if !bytes.Equal(buf, baseTree) {
			k.tree = maskedHash(buf, mask)
		}
		return k, buf
	}
	try := func(g *vmGame, from vmGame, i int, buf []byte) []byte {
		if !start(i) {
			return buf
		}
		*g = from
		g.m.Restore(snap)
		e0 := g.m.Executed()
		defer func() {
			cost[i] = g.m.Executed() - e0
			finish(i)
		}()
		if err := g.m.Input(list[i].text); err != nil {
			return buf
		}
		text, err := g.run()
		if err != nil {
			return buf
		}
		if i < nCand && list[i].foundAbsent(text) {
			absent[i] = true
		}
		keys[i], buf = worldAfter(g, text, buf)
		ok[i] = true
		return buf
	}
	workers = min(workers, maxValidWorkers, (len(list)+minPerWorker-1)/minPerWorker)
	if workers <= 1 {
		buf := make([]byte, 0, len(baseTree))
		for i := range list {
			buf = try(vg, saved, i, buf)
		}
	} else {
		for len(vg.clones) < workers-1 {
			vg.clones = append(vg.clones, m.Clone())
		}
		saved.clones = vg.clones // the clones stay with the game
		clones := vg.clones      // (worker 0 writes *vg as soon as it starts)
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			g, from := vg, saved
			if w > 0 {
				from.m = clones[w-1]
				g = &vmGame{}
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, 0, len(baseTree))
				for i := int(next.Add(1) - 1); i < len(list); i = int(next.Add(1) - 1) {
					buf = try(g, from, i, buf)
				}
			}()
		}
		wg.Wait()
	}
	// The list is the candidates up to the first whose instructions,
	// added to those of all before it, pass the budget: the same whatever
	// the workers (a worker stops taking candidates only once the
	// candidates done pass the budget, so every one before the cut was
	// played).
	// The skips, in candidate order: a candidate about an object an
	// earlier one found absent is out, and its instructions do not count.
	first := map[string]int{}
	skip := make([]bool, nCand)
	for i := 0; i < nCand; i++ {
		if o := list[i].obj; o != "" {
			if j, ok := first[o]; ok && j < i {
				skip[i] = true
			} else if absent[i] {
				first[o] = i
			}
		}
	}
	tried := nCand
	if budget > 0 {
		var sum uint64
		for i := 0; i < nCand; i++ {
			if skip[i] {
				continue
			}
			sum += cost[i]
			if sum > budget {
				tried = i + 1
				break
			}
		}
	}
	// What was played and changed nothing is put back in the searches
	// after this state's (pending until the episode moves on).
	pending := map[string]bool{}
	pendingHeld := map[string][]int{}
	everHeld := slices.Clone(e.everHeld) // kept past the next list
	for i := 0; i < tried; i++ {
		if ok[i] && !skip[i] && keys[i] == base && list[i].tail != "" {
			k := list[i].key()
			pending[k] = true
			if strings.HasSuffix(k, heldMark) {
				pendingHeld[k] = everHeld
			}
		}
	}
	e.pending, e.pendingHeld = pending, pendingHeld
	if !onlyExtra {
		e.playedPending = tried
	}
	r := searchResult{base: base, extra: keys[nCand:], extraOK: ok[nCand:], tried: tried, candidates: nCand}
	// One action per world, the first; but a plain take or drop that
	// leads to the world of an earlier action ("read leaflet" takes the
	// leaflet first) names it in that action's place, as a player would.
	seen := map[worldKey]int{base: -1}
	for i, lc := range list[:tried] {
		c := lc.text
		if !ok[i] || skip[i] {
			continue
		}
		if j, dup := seen[keys[i]]; dup {
			if j >= 0 && plainTakeDrop(c) && !plainTakeDrop(r.actions[j]) && sameObject(c, r.actions[j]) {
				r.actions[j] = c
			}
			continue
		}
		seen[keys[i]] = len(r.actions)
		r.actions = append(r.actions, c)
		r.keys = append(r.keys, keys[i])
	}
	if !onlyExtra {
		// kept once the episode moves on (two searches of one state
		// give one list)
		e.workedNext = r.actions
	}
	// An empty list is no list: past the budget, the rest of the
	// candidates are tried in order, on this machine, until one changes
	// the world or three budgets more are spent (the same on any number of
	// workers: it starts where the budget cut).
	buf := make([]byte, 0, len(baseTree))
	e0 := m.Executed()
	out := map[string]bool{}
	for i := 0; i < r.tried; i++ {
		if absent[i] {
			out[list[i].obj] = true
		}
	}
	// First, words as answers (answers.go), for at most one budget, or
	// three where no candidate changed the world.
	if (len(r.actions) == 0 || demandsAnswer(e.lastText)) && !onlyExtra {
		empty := len(r.actions) == 0
		if w, err := e.World(); err == nil {
			for _, c := range e.answers(dict, w) {
				if spent := m.Executed() - e0; budget > 0 && (spent > budget && !empty || spent > 3*budget) {
					break
				}
				text, ok := vg.playFrom(snap, saved, c)
				if !ok {
					continue
				}
				var k worldKey
				k, buf = worldAfter(vg, text, buf)
				if _, dup := seen[k]; !dup {
					r.actions = append(r.actions, c)
					r.keys = append(r.keys, k)
					seen[k] = len(r.actions) - 1
				}
			}
		}
		e0 = m.Executed()
	}
	for i := r.tried; len(r.actions) == 0 && i < nCand && (budget == 0 || m.Executed()-e0 <= 3*budget); i++ {
		r.tried = i + 1
		if o := list[i].obj; o != "" && out[o] {
			continue
		}
		text, ok := vg.playFrom(snap, saved, list[i].text)
		if !ok {
			continue
		}
		if list[i].foundAbsent(text) {
			out[list[i].obj] = true
			continue
		}
		var k worldKey
		k, buf = worldAfter(vg, text, buf)
		if k != base {
			r.actions = append(r.actions, list[i].text)
			r.keys = append(r.keys, k)
		}
	}
	return r, nil
}

// plainTakeDrop reports "take X" or "drop X" of one object.
func plainTakeDrop(c string) bool {
	f := strings.Fields(c)
	return len(f) >= 2 && (f[0] == "take" || f[0] == "drop") && !slices.Contains(f, "all") &&
		!slices.Contains(f, "from") && !slices.Contains(f, "in") && !slices.Contains(f, "on") && !slices.Contains(f, "off")
}

// sameObject reports an action about the object a take or drop names
// (its words after the verb, all in the action): "read leaflet" for "take
// leaflet", never a move ("take out" and "out" are other commands).
func sameObject(takeDrop, action string) bool {
	obj := strings.Fields(takeDrop)[1:]
	f := strings.Fields(action)
	if len(f) < 2 {
		return false
	}
	for _, w := range obj {
		if directionWords[w] || !slices.Contains(f[1:], w) {
			return false
		}
	}
	return true
}

// minPerWorker is the fewest candidates worth another machine.
const minPerWorker = 8

// maxValidWorkers bounds the machines one game tries candidates on (its own
// and at most three clones, each a copy of memory and of the decoded
// instructions, a few MiB): parallel episodes already share the cores.
const maxValidWorkers = 4

// worldKey is what a candidate must change to be kept: the object tree (a
// move changes the player's parent) or the score.
type worldKey struct {
	tree  uint64
	score float64
}

// candidates builds the candidate actions of the current state, in the
// order they are tried: the directions the dictionary holds, then the
// templates (the game's grammar from its JerichoFile entry, else
// defaultTemplates) tier by tier, filled with the objects in view: "take"
// only with objects not carried and "drop" only with carried ones; a
// two-object template with a carried object and one in view ("put OBJ in
// OBJ", "unlock OBJ with OBJ"), or for "from" with an object and what
// holds it ("take OBJ from OBJ"). Each command once.
func (e *Env) candidates() []string {
	cs := e.candidateList()
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.text
	}
	return out
}

// candidate is a command the search tries, and the object it is about
// ("" for none; a two-object command's first). text+tail is what a
// refusal of it is remembered by (tail "" for one never put back); the
// two are joined only for the few candidates a search plays.
type candidate struct {
	text, obj, tail string
}

// key is what a refusal of c is remembered by ("" for one never put back).
func (c candidate) key() string {
	if c.tail == "" {
		return ""
	}
	return c.text + c.tail
}

// foundAbsent reports whether the game's reply text to c says c's object
// is not here: a one-word verb with the object ("take lamp"), whose only
// possible refusal of that kind is about the object, and a reply that
// says so ("You can't see any such thing.").
func (c candidate) foundAbsent(text string) bool {
	return c.obj != "" && strings.Count(c.text, " ") == strings.Count(c.obj, " ")+1 && notHere(text)
}

// candScratch is the memory candidateList reuses from one search to the
// next: the list (valid until the next search), the refused ones put at
// the end, the commands already made, and a buffer for refusal keys.
type candScratch struct {
	out, back []candidate
	seen      map[string]bool
	key       []byte
	// heldIDs are the things the player carries (object numbers, in
	// order) in the state the list was made for.
	heldIDs []int
}

// candidateList is candidates with each one's object, at most
// maxCandidates of them not refused before (refusalKey), followed by at
// most maxCandidates that were.
func (e *Env) candidateList() (out []candidate) {
	vg := e.vm
	dict := vg.dictionary()
	sc := &e.cand
	if sc.seen == nil {
		sc.seen = map[string]bool{}
	}
	clear(sc.seen)
	seen := sc.seen
	out = sc.out[:0]
	back := sc.back[:0]       // refused in an earlier search: tried last
	keyed := false            // past the moves and answers, which are never put back
	var movesBack []candidate // moves refused before in this state of the room
	var retry []candidate     // refused before with other things carried (toolVerb)
	retryAt := maxCandidates  // where they go: after the takes and drops
	var objKey map[string]string
	var room, here string
	var casts map[string]bool                 // the spells' words (spells.go)
	var controlRetry func(obj, c string) bool // a refusal not applied now (controls.go)
	full := func() bool { return len(out) >= maxCandidates }
	addAbout := func(obj, c string) {
		if seen[c] || full() {
			return
		}
		seen[c] = true
		cand := candidate{text: c, obj: obj}
		if keyed {
			if k, ok := objKey[obj]; ok {
				cand.tail = k
				if here != "" && mechanism(c) {
					cand.tail = k + here
				} else if castHere(casts, dict, c) {
					cand.tail = k + room
				} else if toolVerb(c) {
					cand.tail = k + heldMark
				}
			} else {
				cand.tail = room
			}
			sc.key = append(append(sc.key[:0], c...), cand.tail...)
			if e.refused[string(sc.key)] && (controlRetry == nil || !controlRetry(obj, c)) {
				if h, ok := e.refusedHeld[string(sc.key)]; ok && len(retry) < maxRetried && gained(sc.heldIDs, h) {
					retry = append(retry, cand) // refused with less carried
				} else if len(back) < maxCandidates {
					back = append(back, cand)
				}
				return
			}
		}
		out = append(out, cand)
	}
	defer func() {
		// the refusals to try again where the takes and drops end
		out = slices.Insert(out, min(retryAt, len(out)), retry...)
		out = append(append(out, movesBack...), back...)
		sc.out, sc.back = out, back
	}()
	add := func(c string) { addAbout("", c) }
	// A command without an object whose verb is not a common one
	// ("sing", "think", "xyzzy") that changed nothing anywhere in the
	// episode is put back everywhere: most such commands do something in
	// one place at most, and there are dozens of them; unless the
	// observations since entering the room say it.
	seenText := strings.ToLower(clip(strings.Join(append(e.roomTexts, e.lastText), "\n")))
	addAlone := func(c string) {
		if wordIndex(seenText, c) >= 0 {
			add(c) // the room's text says it ("plugh"): put back here only
			return
		}
		r := room
		room = "|anywhere"
		addAbout("", c)
		room = r
	}
	w, err := e.World()
	var moveKey string
	if err == nil {
		moveKey = e.moveState(w, informAttrs(w))
	}
	for i, d := range validMoves {
		// a dictionary without "northeast" may know "ne"
		if !dict.has(d) {
			if d = moveAbbrevs[i]; !dict.has(d) {
				continue
			}
		}
		if moveKey == "" || seen[d] {
			add(d)
		} else if seen[d] = true; e.refused[d+moveKey] {
			movesBack = append(movesBack, candidate{text: d, tail: moveKey})
		} else {
			out = append(out, candidate{text: d, tail: moveKey})
		}
	}
	// A question ("Do you want to keep waiting?") is answered first.
	if asksQuestion(e.lastText) {
		for _, a := range []string{"yes", "no"} {
			if dict.has(a) {
				add(a)
			}
		}
	}
	for _, c := range suggestedCommands(dict, e.lastText) {
		add(c) // what the text says to try, in capitals (suggested.go)
	}
	for _, c := range e.worked {
		add(c) // a word that worked before (magic.go)
	}
	e.repeatCandidate(add)
	if err != nil {
		return out
	}
	layout := informAttrs(w)
	if w.Player == 0 && layout != nil {
		// The player object was not found by name (Goldilocks): the
		// thing in the room with the self object's attributes.
		for _, o := range w.Objects {
			if o.Parent == w.Location && w.Location != 0 && layout.isSelf(o.Attrs) {
				w.Player = o.ID
				break
			}
		}
	}
	inView, held, holder, ids := objectsInView(w, e.namer(dict), vg.localGlobals(w))
	sc.heldIDs = heldIDs(sc.heldIDs[:0], held, ids)
	for _, id := range sc.heldIDs {
		if i, found := slices.BinarySearch(e.everHeld, id); !found {
			e.everHeld = slices.Insert(e.everHeld, i, id)
		}
	}
	// A refusal is remembered with the object as it is now (its number,
	// parent and attributes: "open door" refused while the door is locked
	// is tried in order again once the door changes), or, for a command
	// about no object of the tree, with the room.
	keyed, room = true, fmt.Sprintf("|@%d", w.Location)
	casts = vg.spellWords(w)
	objKey = make(map[string]string, len(ids))
	if !dict.inform && layout == nil {
		// Infocom games (Inform's, the older ones too, mark the things
		// they list)
		here = roomState(w)
	}
	for name, id := range ids {
		o, _ := w.Object(id)
		objKey[name] = fmt.Sprintf("|%d/%d/%v", id, o.Parent, o.Attrs)
	}
	controlRetry = vg.controlRetry(w, e.lastAction, ids)
	if len(inView) == 0 {
		// Inform 7 (TextWorld) objects have no short name in the object
		// table: the nouns of the dictionary that the observations since
		// entering the room name stand for the objects in view.
		inView = dict.nounsIn(strings.Join(e.roomTexts, "\n"), e.lastRoom)
	}
	// Things the last text names that no object in view is called
	// (spells in a book, the far end of a room): tried after those.
	if len(inView) > 0 {
		have := map[string]bool{}
		for _, o := range inView {
			for _, w := range strings.Fields(o) {
				have[w] = true
			}
		}
		k := 0
		for _, nn := range dict.nounsIn(e.lastText, e.lastRoom) {
			f := strings.Fields(nn)
			// where the game keeps its objects' words, a word that
			// names no object is no name the parser reads
			l := f[len(f)-1]
			if have[l] || k >= maxTextNouns || len(l) < 3 || l[0] >= '0' && l[0] <= '9' {
				continue
			}
			if vg.nameFacts().prop != 0 {
				if named := vg.objectsNamed(w, l); len(named) == 0 || namesNothingNew(w, named, ids) {
					continue
				}
			}
			inView = append(inView, l)
			have[l] = true
			k++
		}
	}
	// The player is no thing to take or ask ("take goldilocks"): names
	// from the text that name only the player are left out.
	if p, ok := w.Object(w.Player); ok && len(ids) == 0 || ok && len(inView) > len(ids) {
		mine := map[string]bool{}
		for _, x := range append(dict.nameWords(p.Name), vg.objectWords(p.ID)...) {
			mine[dict.key(x)] = true
		}
		kept := inView[:0]
		for _, o := range inView {
			f := strings.Fields(o)
			if _, tree := ids[o]; tree || !mine[dict.key(f[len(f)-1])] {
				kept = append(kept, o)
			}
		}
		inView = kept
	}
	inView = salient(inView, e.focusText())
	// Where the attributes follow the Inform library's order, templates
	// are filled only with things of the kind their verb needs (kindOK).
	fits := whereFits(w, ids) // where the kinds are unknown: where things are
	if layout != nil {
		inert := vg.inertHere(w, ids)
		fits = func(name, verb string, second bool) bool {
			if id, ok := ids[name]; ok {
				o, _ := w.Object(id)
				if !second && inert != nil && inert(id, verb, o.Attrs, layout) {
					return false
				}
				return layout.objectOK(verb, o, w, second)
			}
			// A name from the text: any thing it may stand for.
			f := strings.Fields(name)
			named := vg.objectsNamed(w, f[len(f)-1])
			for _, id := range named {
				if o, _ := w.Object(id); layout.kindOK(verb, o.Attrs, second) {
					return true
				}
			}
			return len(named) == 0
		}
	}
	// The characters in view (animate), told and asked things, and the
	// scenery, neither pushed about nor asked about, where the layout is
	// known.
	var animate []string
	scenery := map[string]bool{}
	if layout != nil {
		for _, o := range inView {
			if id, ok := ids[o]; ok && id != w.Player {
				ob, _ := w.Object(id)
				if slices.Contains(ob.Attrs, layout.animate) {
					animate = append(animate, o)
				}
				if slices.Contains(ob.Attrs, layout.scenery) {
					scenery[o] = true
				}
			}
		}
	}
	isHeld := map[string]bool{}
	for _, h := range held {
		isHeld[h] = true
	}
	var near, carried []string // in view and not carried; carried, salient first
	for _, o := range inView {
		if isHeld[o] {
			carried = append(carried, o)
		} else {
			near = append(near, o)
		}
	}
	ts := vg.templates(e.g)
	if layout != nil && !dict.inform {
		ts = vg.informTemplates(ts)
	}
	ps := &pairScope{near: near, carried: latestFirst(vg.childOf(w.Player), carried, ids), holder: holder,
		ids: ids, animate: animate, w: w, layout: layout, fits: fits}
	// The things the last text names first (what the game just spoke
	// of) are tried with the core verbs before anything is taken or
	// dropped: the next command is most often about them.
	low := strings.ToLower(clip(e.focusText()))
	starved := e.starved() // no room for their candidates: see starved
	var focus []string
	for _, o := range inView {
		if len(focus) >= maxFocus || wordIndex(low, o) < 0 {
			break // salient: the named ones come first
		}
		if _, tree := ids[o]; !tree {
			continue
		}
		focus = append(focus, o)
		if starved {
			continue
		}
		for _, t := range ts {
			if t.objs != 1 || t.tier != tierCore || !focusVerbs[strings.TrimSuffix(t.String(), " OBJ")] || !fits(o, strings.TrimSuffix(t.String(), " OBJ"), false) {
				continue
			}
			addAbout(o, t.fill(o))
		}
	}
	vehicleCandidates(dict, w, add)
	ps.repeatPair(ts, inView, e.lastAction, addAbout)
	for tier := tierTake; tier <= tierRest && !full(); tier++ {
		if tier == tierCore {
			// few, and each about what is here: before the core templates
			e.extraCandidates(dict, near, holder, animate, addAbout)
			e.topicCandidates(dict, animate, inView, scenery, addAbout)
			e.wordCandidates(dict, w, addAbout)
			e.spellCandidates(dict, w, inView, ids, addAbout)
			e.numberCandidates(carried, addAbout)
			e.quotedCandidates(dict, addAbout)
			e.askForCandidates(dict, near, holder, animate, layout != nil, addAbout)
		}
		var tier1, tier2 []template
		for _, t := range ts {
			if t.tier != tier {
				continue
			}
			switch t.objs {
			case 0:
				if tc, ok := verbTier[t.words[0]]; ok && tc <= tierCore {
					add(t.fill()) // "enter", "get out": refused per room
				} else {
					addAlone(t.fill())
				}
			case 1:
				tier1 = append(tier1, t)
			case 2:
				tier2 = append(tier2, t)
			}
		}
		// object by object, the most salient first
		kind := make([]string, len(tier1))
		verbOf := make([]string, len(tier1)) // the words before the object
		for i, t := range tier1 {
			kind[i] = t.String()
			verbOf[i] = strings.TrimSuffix(kind[i], " OBJ")
		}
		for _, o := range inView {
			if full() {
				break
			}
			for i, t := range tier1 {
				switch kind[i] {
				case "take OBJ":
					if isHeld[o] {
						continue
					}
				case "drop OBJ":
					if !isHeld[o] {
						continue
					}
				}
				if !fits(o, verbOf[i], false) {
					continue
				}
				addAbout(o, t.fill(o))
			}
			if tier == tierCore {
				ps.pairsAbout(ts, o, addAbout)
			}
		}
		if tier == tierCore && layout != nil {
			pushCandidates(dict, staticPushed(near, animate, scenery, ids, w, layout), animate, scenery, ids, addAbout)
		}
		ps.twoObjectCandidates(tier2, focus, addAbout)
		if tier == tierRest {
			ps.flushLater(addAbout)
		}
		if tier == tierTake && len(inView) > 0 && dict.has("all") {
			if len(near) > 1 {
				add("take all")
			}
			if len(carried) > 1 {
				add("drop all")
			}
			ps.severalCandidates(dict, low, add)
			ps.pluralCandidates(dict, func(id int) []string {
				o, _ := w.Object(id)
				return append(dict.nameWords(o.Name), vg.objectWords(id)...)
			}, add)
			e.allPluralCandidates(dict, near, carried, ids, add)
		}
		if tier == tierTake {
			// Taking and dropping refused before come right after
			// the others (a thing refused while its owner watched may
			// be taken later), not after every other command.
			// where the search is starved, the kinds' verbs (kindfirst.go)
			e.kindFirst(ts, inView, ids, layout != nil, fits, addAbout)
			out = append(out, back...)
			back = back[:0]
			retryAt = len(out)
			out = append(out, movesBack...)
			movesBack = nil
		}
		if tier == tierCore {
			pushCandidates(dict, near, animate, scenery, ids, addAbout)
		}
	}
	return out
}

// focusText is the text whose things are tried first: the last action
// (what "it" stands for now: "get rod of returning", then "strike it")
// before the last observation (what the game just spoke of).
func (e *Env) focusText() string {
	if e.lastAction == "" {
		return e.lastText
	}
	return e.lastAction + "\n" + e.lastText
}

// maxFocus bounds the things the last text names tried with the core
// verbs before the others.
const maxFocus = 2

// focusVerbs are the core verbs tried first on what the last text names.
var focusVerbs = map[string]bool{"examine": true, "push": true, "pull": true, "turn": true, "search": true,
	"drink": true, "enter": true, "read": true, "open": true, "close": true, "eat": true, "throw": true,
	"empty": true, "remove": true, "turn on": true, "turn off": true, "put on": true, "take off": true}

// starvedPlayed is the number of candidates played by the last search
// under which the search is starved (see starved).
const starvedPlayed = 64

// starved reports whether the last search of an earlier state played
// fewer than starvedPlayed candidates within its budget (Inform 7 games,
// whose turns cost 50,000 instructions and more). There the things the
// last text names are not tried with the core verbs first: those are
// some 25 to 35 candidates per thing where the kinds are unknown, the
// whole budget, before any take, drop or command without an object.
func (e *Env) starved() bool {
	return e.played > 0 && e.played < starvedPlayed
}

// maxPushed bounds the objects in view tried with a direction ("push
// coffin west"), the most salient first.
const maxPushed = 3

// maxActors and maxTopics bound the characters asked or told about
// things, and the things, per search.
const (
	maxActors = 2
	maxTopics = 6
)

// extraCandidates adds everything from what holds something in view
// ("take all from table") and the first maxActors characters in view told
// to follow ("k9, follow me").
func (e *Env) extraCandidates(dict *dictionary, near []string, holder map[string]string, animate []string, addAbout func(obj, c string)) {
	if dict.has("all") && dict.has("from") && dict.verb("take") {
		done := map[string]bool{}
		for _, o := range near {
			if h := holder[o]; h != "" && !done[h] {
				done[h] = true
				addAbout(h, "take all from "+h)
			}
		}
	}
	if dict.verb("follow") && dict.has("me") {
		for _, a := range animate[:min(len(animate), maxActors)] {
			addAbout(a, a+", follow me")
		}
	}
}

// staticPushed is, of the first maxPushed things near that pushCandidates
// pushes, those fixed in place without being scenery (a statue, a piano):
// pushed in each direction before the two-object commands are tried, the
// others after. Such a thing is moved by pushing or not at all, while the
// two-object commands put things into and onto it by dozens.
func staticPushed(near, animate []string, scenery map[string]bool, ids map[string]int, w World, l *attrLayout) []string {
	var out []string
	k := 0
	for _, o := range near {
		id, tree := ids[o]
		if !tree || slices.Contains(animate, o) || scenery[o] || k >= maxPushed {
			continue
		}
		k++
		if ob, _ := w.Object(id); slices.Contains(ob.Attrs, l.static) {
			out = append(out, o)
		}
	}
	return out
}

// pushCandidates adds each of the first maxPushed objects of the tree in
// view that are not characters or scenery pushed in each direction ("push coffin
// north"; Inform and Infocom read a direction as the second object of
// "push").
func pushCandidates(dict *dictionary, near, animate []string, scenery map[string]bool, ids map[string]int, addAbout func(obj, c string)) {
	if !dict.verb("push") {
		return
	}
	k := 0
	for _, o := range near {
		if _, tree := ids[o]; !tree || slices.Contains(animate, o) || scenery[o] || k >= maxPushed {
			continue
		}
		k++
		for i, d := range validMoves[:10] {
			if !dict.has(d) {
				d = moveAbbrevs[i]
				if !dict.has(d) {
					continue
				}
			}
			addAbout(o, "push "+o+" "+d)
		}
	}
}

// topicCandidates adds the characters in view asked about the things in
// view that are not scenery, then those the last text names ("ask
// proprietor about amulet"), at most maxActors characters and maxTopics
// things.
func (e *Env) topicCandidates(dict *dictionary, animate, inView []string, scenery map[string]bool, addAbout func(obj, c string)) {
	if len(animate) == 0 {
		return
	}
	var topics []string
	have := map[string]bool{}
	addTopic := func(t string) {
		if len(topics) < maxTopics && !have[t] {
			have[t] = true
			topics = append(topics, t)
		}
	}
	isActor := map[string]bool{}
	for _, a := range animate {
		isActor[a] = true
	}
	for _, o := range inView {
		if !isActor[o] && !scenery[o] {
			addTopic(o)
		}
	}
	for _, n := range dict.nounsIn(e.lastText, e.lastRoom) {
		f := strings.Fields(n)
		if l := f[len(f)-1]; len(l) >= 3 && !isActor[l] {
			addTopic(l)
		}
	}
	if !dict.verb("ask") || !dict.has("about") {
		return
	}
	for _, a := range animate[:min(len(animate), maxActors)] {
		for _, t := range topics {
			addAbout(a, "ask "+a+" about "+t)
		}
	}
}

// salient orders the names of objects: those the text names first, in the
// order it names them, then the rest as they were.
func salient(names []string, text string) []string {
	low := strings.ToLower(clip(text))
	type at struct {
		name string
		pos  int
	}
	var named []at
	var rest []string
	for _, n := range names {
		if i := wordIndex(low, n); i >= 0 {
			named = append(named, at{n, i})
		} else {
			rest = append(rest, n)
		}
	}
	slices.SortStableFunc(named, func(a, b at) int { return a.pos - b.pos })
	out := make([]string, 0, len(names))
	for _, a := range named {
		out = append(out, a.name)
	}
	return append(out, rest...)
}

// wordIndex is the index of w in text as a whole word, or -1.
func wordIndex(text, w string) int {
	for from := 0; ; {
		i := strings.Index(text[from:], w)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(w)
		if (i == 0 || !isWordByte(text[i-1])) && (end == len(text) || !isWordByte(text[end])) {
			return i
		}
		from = i + 1
	}
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' }

// templates are the game's templates: from its Jericho grammar when it has
// one, else defaultTemplates whose words its dictionary holds (verbs as
// verbs); read once per game.
func (g *vmGame) templates(gm *game) []template {
	if g.tmpl != nil {
		return g.tmpl
	}
	dict := g.dictionary()
	if gm != nil && gm.jericho != nil && gm.jericho.Grammar != "" {
		g.tmpl = parseGrammar(gm.jericho.Grammar, dict.res)
	} else {
		verbs := g.b.Verbs
		for _, t := range defaultTemplates {
			if len(verbs) > 0 && t.objs == 1 && !slices.Contains(verbs, t.words[0]) {
				continue
			}
			if len(verbs) > 0 && t.objs != 1 {
				continue
			}
			if !dict.verb(t.words[0]) {
				continue
			}
			good := true
			for _, w := range t.words[1:] {
				if w != "OBJ" && !dict.has(w) {
					good = false
				}
			}
			if good {
				g.tmpl = append(g.tmpl, t)
			}
		}
	}
	if g.tmpl == nil {
		g.tmpl = []template{}
	}
	// Within a tier, the verbs players use most first.
	slices.SortStableFunc(g.tmpl, func(a, b template) int {
		if a.tier != b.tier {
			return a.tier - b.tier
		}
		return verbRank(a.words[0]) - verbRank(b.words[0])
	})
	if dict.inform {
		g.tmpl = dropSynonyms(g.tmpl)
	}
	return g.tmpl
}

// informTemplates is ts without the later of each pair of Inform
// synonyms (dropSynonyms), for a game whose objects have the Inform
// library's attributes though its header names no Inform compiler (Inform
// 5 and the early 6 releases leave the version bytes 0: Curses, Spirit);
// their libraries' grammar sends the pairs to one action too.
func (g *vmGame) informTemplates(ts []template) []template {
	if g.tmplLib == nil {
		g.tmplLib = dropSynonyms(ts)
	}
	return g.tmplLib
}

// objectsInView names the objects under the player's room (breadth first,
// the nearest first, at most maxValidObjects; then the room's local
// globals), those the player holds (at most maxValidObjects of what the
// player carries), and for each object in view not held the name of the
// object in view that holds it. An object is named by the last word of its short
// name that the dictionary holds ("lantern"); objects that would share a
// name are named with the word before it too ("yellow pill", "orange
// pill"), as the game's parser needs to tell them apart. nameWords gives
// an object's words (vmGame.nameWordsOf: those of its short name, ending
// with one the parser knows it by).
func objectsInView(w World, nameWords func(id int, short string) []string, globals []int) (inView, held []string, holder map[string]string, ids map[string]int) {
	holder, ids = map[string]string{}, map[string]int{}
	if w.Location == 0 {
		return nil, nil, holder, ids
	}
	children := map[int][]int{}
	for _, o := range w.Objects {
		children[o.Parent] = append(children[o.Parent], o.ID)
	}
	// The room's objects (not under the player), then what the player
	// carries, breadth first; at most maxValidObjects named of each.
	var order []int
	var words [][]string
	count := map[string]int{}
	seen := map[int]bool{w.Player: true}
	collect := func(id int) bool {
		if seen[id] {
			return false
		}
		seen[id] = true
		o, _ := w.Object(id)
		ws := nameWords(id, o.Name)
		if len(ws) == 0 {
			return false
		}
		order = append(order, id)
		words = append(words, ws)
		last := nounOf(ws)
		count[last]++
		return count[last] == 1 // a new name (eight balsa beams are one)
	}
	bfs := func(root int) {
		queue := []int{root}
		n := 0
		for len(queue) > 0 && n < maxValidObjects {
			id := queue[0]
			queue = queue[1:]
			for _, c := range children[id] {
				if c == w.Player {
					continue
				}
				queue = append(queue, c)
				if collect(c) {
					n++
				}
			}
		}
	}
	bfs(w.Location)
	for _, g := range globals {
		collect(g)
	}
	if w.Player != 0 {
		bfs(w.Player)
	}
	named := map[string]bool{}
	nameOf := map[int]string{}
	for i, id := range order {
		ws := words[i]
		if len(ws) == 0 {
			continue
		}
		name := ws[len(ws)-1]
		if count[nounOf(ws)] > 1 && len(ws) > 1 {
			name = ws[len(ws)-2] + " " + name
		}
		if named[name] {
			continue
		}
		named[name] = true
		nameOf[id] = name
		ids[name] = id
		inView = append(inView, name)
		o, _ := w.Object(id)
		if w.Player != 0 && o.Parent == w.Player {
			held = append(held, name)
		} else if p := nameOf[o.Parent]; p != "" && o.Parent != w.Location {
			holder[name] = p
		}
	}
	return inView, held, holder, ids
}

// nounOf is what a name's words are counted by, to tell things of one
// name apart: the last word, or for a noun named by the letter after it
// ("switch a", names.go) the noun, so that "b switch" beside it is
// written with its letter.
func nounOf(ws []string) string {
	last := ws[len(ws)-1]
	if noun, ok := strings.CutSuffix(last, " a"); ok {
		return noun
	}
	return last
}

// dictionary is the game's dictionary as the valid-action search reads it.
type dictionary struct {
	words  map[string]byte // word -> its flags byte
	inform bool            // Inform's flag layout (else Infocom's)
	res    int             // letters a word is stored with (6 in v3, 9 in v4+)
}

func (g *vmGame) dictionary() *dictionary {
	if g.dict != nil {
		return g.dict
	}
	m := g.m
	d := &dictionary{words: map[string]byte{}, res: 9}
	if m.Version() <= 3 {
		d.res = 6
	}
	// Inform writes its compiler version ("6.31") at 0x3C; Infocom leaves 0.
	c := m.PeekByte(0x3C)
	d.inform = c >= '0' && c <= '9'
	for _, w := range m.Dictionary() {
		var flags byte
		if len(w.Data) > 0 {
			flags = w.Data[0]
		}
		d.words[w.Word] = flags
	}
	g.dict = d
	return d
}

// key is w as the dictionary stores it: lower case, cut after res
// Z-characters, where a letter takes one, a digit or punctuation mark of
// the standard alphabet two (a shift, then the mark) and any other
// character four ("navy-blue" is stored "navy-blu").
func (d *dictionary) key(w string) string {
	w = strings.ToLower(w)
	n := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z':
			n++
		case strings.IndexByte(zAlphabet2, c) >= 0:
			n += 2
		default:
			n += 4
		}
		if n > d.res {
			return w[:i]
		}
	}
	return w
}

// zAlphabet2 is the standard Z-machine alphabet A2 (versions 2 and
// after) past its escape and newline codes.
const zAlphabet2 = "0123456789.,!?_#'\"/\\-:()"

func (d *dictionary) has(w string) bool {
	_, ok := d.words[d.key(w)]
	return ok
}

// verb reports a word the dictionary marks as a verb.
func (d *dictionary) verb(w string) bool {
	f, ok := d.words[d.key(w)]
	if !ok {
		return false
	}
	if d.inform {
		return f&1 != 0
	}
	return f&0x40 != 0
}

// nameWords are the words of an object's short name that the dictionary
// holds and that name things (not "the", "of" ...), in order.
func (d *dictionary) nameWords(name string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		if d.has(w) && !notObject[w] && (len(w) > 1 || w[0] >= '0' && w[0] <= '9') { // not the "s" of "chair's"
			out = append(out, w)
		}
	}
	return out
}

// nounsIn lists the names of things that text mentions, by the game's
// dictionary: each run of consecutive words the dictionary marks as nouns
// (flag 0x80 in Inform and Infocom dictionaries; Inform 7 enters every word
// of an object's name so) is one name, "golden locker", "yellow bell
// pepper", so that the parser knows which thing is meant and one thing is
// tried once, not once per word. Words that name no thing break runs and
// are left out: verbs, the words of notObject, directions, and the words of
// the room's own name (skip). At most maxValidObjects names, each once,
// in order; a name keeps its last four words.
func (d *dictionary) nounsIn(text string, skip string) []string {
	skipped := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(skip)) {
		skipped[w] = true
	}
	var out []string
	seen := map[string]bool{}
	var run []string
	flush := func() {
		if len(run) > 4 {
			run = run[len(run)-4:]
		}
		if p := strings.Join(run, " "); len(run) > 0 && !seen[p] && len(out) < maxValidObjects {
			// a lone number or short word ("1", "a") names nothing alone
			if len(run) > 1 || len(run[0]) >= 3 {
				seen[p] = true
				out = append(out, p)
			}
		}
		run = run[:0]
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(clip(text)), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		f, ok := d.words[d.key(w)]
		if !ok || f&0x80 == 0 || d.verb(w) || notObject[w] || directionWords[w] || prepositions[w] || skipped[w] {
			flush()
			continue
		}
		run = append(run, w)
	}
	flush()
	return out
}

// directionWords name directions, which valid actions try as moves.
var directionWords = map[string]bool{"north": true, "south": true, "east": true, "west": true,
	"northeast": true, "northwest": true, "southeast": true, "southwest": true, "up": true, "down": true,
	"in": true, "out": true, "inside": true, "outside": true, "n": true, "s": true, "e": true, "w": true,
	"ne": true, "nw": true, "se": true, "sw": true, "u": true, "d": true}

// notObject are words dictionaries mark as nouns that name no object.
var notObject = map[string]bool{"all": true, "everything": true, "each": true, "every": true,
	"inventory": true, "on": true, "off": true, "none": true, "nothing": true, "something": true,
	"two": true, "three": true, "four": true, "five": true, "first": true, "second": true, "third": true, "the": true, "you": true,
	"yourself": true, "her": true, "him": true, "them": true, "its": true, "any": true,
	"some": true, "one": true, "that": true, "this": true, "these": true, "those": true, "both": true, "other": true, "here": true, "there": true,
	"and": true, "but": true, "your": true, "a": true, "an": true, "of": true, "my": true, "his": true, "their": true}

// candidateScore is the score after a candidate's turn, for telling worlds
// apart: as the game's source reads it, except that a game whose score is
// asked is not asked again for every candidate (that would double the
// search's cost): its score notice ("[Your score has just gone up by one
// point.]") marks the change instead.
func (g *vmGame) candidateScore(text string, prev float64) float64 {
	if g.from != fromAsk {
		sc, _ := g.scoreMoves(text, prev, false, false)
		return sc
	}
	for _, line := range lines(clip(text)) {
		if hasScoreWord(line) && reNotice.MatchString(line) {
			return prev + 0.5 // a change, whatever its size
		}
	}
	return prev
}

// localGlobals are the objects the room at w.Location lists as its local
// globals: Infocom's rooms name the things that belong to several rooms
// (zork1's white house, a door between two rooms) in a property, GLOBAL,
// and keep those objects under one object of their own, not in the room.
// The property is found once per game, by its shape: on the rooms that
// have it (objects beside the present room), its values, bytes (or, in a
// game of more than 255 objects, words), are objects most of which (six in ten:
// a door may have moved, a room list its neighbours) share one parent that
// does not hold the rooms; the property most rooms have, at least three.
// A game compiled by Inform 6 (its compiler's version stands in the
// header; Inform moves its doors into the room) is not searched. Only the
// values under that parent are listed.
func (g *vmGame) localGlobals(w World) []int {
	if w.Location == 0 {
		return nil
	}
	if !g.lgKnown {
		g.lgKnown = true
		if !g.dictionary().inform {
			g.lg = findLocalGlobals(g.m, w)
		}
	}
	if g.lg.prop == 0 {
		return nil
	}
	var out []int
	for _, x := range propObjects(g.m.Property(w.Location, g.lg.prop), g.lg.words) {
		if o, ok := w.Object(x); ok && o.Parent == g.lg.parent {
			out = append(out, x)
		}
	}
	return out
}

// lgFacts are where a game keeps its rooms' local globals.
type lgFacts struct {
	prop   int  // the property, 0 for none
	words  bool // its values are words
	parent int  // the object that holds the local globals
}

// propObjects reads a property's values as object numbers.
func propObjects(b []byte, words bool) []int {
	var out []int
	if words {
		for i := 0; i+1 < len(b); i += 2 {
			out = append(out, int(b[i])<<8|int(b[i+1]))
		}
		return out
	}
	for _, x := range b {
		out = append(out, int(x))
	}
	return out
}

func findLocalGlobals(m *zvm.Machine, w World) lgFacts {
	parent := func(id int) int {
		if o, ok := w.Object(id); ok {
			return o.Parent
		}
		return -1
	}
	rooms := parent(w.Location)
	maxProp := 63
	if m.Version() <= 3 {
		maxProp = 31
	}
	best, bestN := lgFacts{}, 2
	for p := 1; p <= maxProp; p++ {
		for _, words := range []bool{false, true} {
			if words && len(w.Objects) <= 255 {
				continue
			}
			n, values := 0, 0
			parents := map[int]int{}
			for id := 1; id <= len(w.Objects); id++ {
				if parent(id) != rooms {
					continue // not a room
				}
				b := m.Property(id, p)
				if b == nil || words && len(b)%2 != 0 {
					continue
				}
				for _, x := range propObjects(b, words) {
					parents[parent(x)]++
					values++
				}
				n++
			}
			lg, most := 0, 0
			for par, k := range parents {
				if k > most || k == most && par < lg {
					lg, most = par, k
				}
			}
			if n > bestN && lg > 1 && lg != rooms && most*10 >= values*6 {
				best, bestN = lgFacts{prop: p, words: words, parent: lg}, n
			}
		}
	}
	return best
}

// notHerePhrases is the parser's answer to a command about a thing that
// is not in view: Inform's "You can't see any such thing.", Infocom's "You
// can't see any lamp here!", "I don't know the word". Each is matched as
// whole words, ASCII letters in any case.
var notHerePhrases = func() [][]byte {
	var ps []string
	for _, neg := range []string{"can't", "cannot", "can not", "don't", "do not"} {
		for _, what := range []string{"any", "that", "such", "no"} {
			ps = append(ps, neg+" see "+what)
		}
	}
	ps = append(ps, "no such thing", "don't know the word")
	for _, neg := range []string{"isn't", "is not", "aren't", "are not"} {
		ps = append(ps, neg+" here")
	}
	out := make([][]byte, len(ps))
	for i, p := range ps {
		out[i] = []byte(p)
	}
	return out
}()

// notHere reports a turn's text that says the thing is not here. It runs
// once per candidate about an object, so it looks for the phrases with
// strings.Index in a lower-cased copy on the stack, without a regular
// expression (FuzzNotHere checks it against one).
func notHere(text string) bool {
	if len(text) >= 400 {
		return false
	}
	var buf [400]byte
	low := buf[:len(text)]
	for i := 0; i < len(text); i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	// Every phrase holds one of these; most texts hold none.
	if !bytes.Contains(low, []byte(" see ")) && !bytes.Contains(low, []byte("such thing")) &&
		!bytes.Contains(low, []byte("the word")) && !bytes.Contains(low, []byte(" here")) {
		return false
	}
	for _, p := range notHerePhrases {
		for from := 0; from+len(p) <= len(low); {
			i := bytes.Index(low[from:], p)
			if i < 0 {
				break
			}
			i += from
			if (i == 0 || !isWordChar(low[i-1])) && (i+len(p) == len(low) || !isWordChar(low[i+len(p)])) {
				return true
			}
			from = i + 1
		}
	}
	return false
}

// isWordChar is an ASCII word character as a regular expression's \b
// sees it.
func isWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// asksQuestion reports a text whose last line is a question.
func asksQuestion(text string) bool {
	t := strings.TrimRight(text, " \n>")
	if i := strings.LastIndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	return strings.HasSuffix(t, "?")
}

// keepRefusals keeps the present state's refusals (the state is left).
func (e *Env) keepRefusals() {
	if len(e.workedNext) > 0 {
		e.worked = noteWorked(e.worked, e.workedNext)
		e.workedNext = nil
	}
	if e.playedPending > 0 {
		e.played, e.playedPending = e.playedPending, 0
	}
	if len(e.pending) == 0 {
		return
	}
	if e.refused == nil {
		e.refused = map[string]bool{}
	}
	for k := range e.pending {
		e.refused[k] = true
	}
	if len(e.pendingHeld) > 0 && e.refusedHeld == nil {
		e.refusedHeld = map[string][]int{}
	}
	for k, h := range e.pendingHeld {
		e.refusedHeld[k] = h
	}
	e.pending, e.pendingHeld = nil, nil
}

// namer names objects as vmGame.nameWordsOf does, with a word the
// dictionary keeps cut ("skelet" in a version 3 game) written out as the
// observations since entering the room write it ("skeleton"), when they do.
func (e *Env) namer(dict *dictionary) func(id int, short string) []string {
	var text []string
	return func(id int, short string) []string {
		ws := e.vm.nameWordsOf(id, short)
		if len(ws) == 0 {
			return ws
		}
		// the last word may be an adjective and a noun in one
		// (adjectives.go): each is written out
		parts := strings.Fields(ws[len(ws)-1])
		changed := false
		for i, last := range parts {
			if len(last) < dict.res {
				continue
			}
			if text == nil {
				text = strings.FieldsFunc(strings.ToLower(strings.Join(e.roomTexts, "\n")), func(r rune) bool {
					return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
				})
			}
			for _, t := range text {
				if len(t) > len(last) && strings.HasPrefix(t, last) {
					parts[i], changed = t, true
					break
				}
			}
		}
		if changed {
			ws = append(ws[:len(ws)-1:len(ws)-1], strings.Join(parts, " "))
		}
		return ws
	}
}
