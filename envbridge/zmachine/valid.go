package zmachine

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/samem/trainer/envbridge"
)

// Valid actions, as Jericho's get_valid_actions (Hausknecht et al. 2020,
// "Interactive Fiction Games: A Colossal Adventure", Sec. 3: candidate
// actions from templates and the objects in view, each simulated from a
// saved state and kept when it changes the world). Candidates here are:
//
//   - the templates below whose verb the game's dictionary holds as a verb
//     (Inform's dictionary flag 1, Infocom's part-of-speech flag 0x40);
//   - filled with the objects in view: the descendants of the player's room
//     and of the player (the inventory), each named by the last word of its
//     short name that the dictionary holds; two-object templates take a
//     carried object first. Inform 7 games (TextWorld) keep no short names
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
// Each candidate is played from an in-memory snapshot; it is kept when the
// object tree (parents, siblings, children, attributes; the player moving
// changes it) or the score changed. Tree bytes that a plain "look" changes
// from the same snapshot (bookkeeping such as Inform 7's "mentioned") are
// left out of the comparison. Of candidates that lead to the same world, the first is
// kept (as Jericho keeps one action per resulting state). Each candidate is
// a full turn of the game (an Inform 7 turn runs some 50,000 to 160,000
// Z-machine instructions), so with GOMAXPROCS above 1 they are tried
// concurrently on clones of the machine.
var (
	validMoves = []string{"north", "south", "east", "west", "northeast", "northwest",
		"southeast", "southwest", "up", "down", "in", "out"}
	validAlone = []string{"stand", "sit", "jump", "pray", "dig", "swim", "climb", "exit", "sleep", "wake"}
	validOne   = []string{"take", "drop", "open", "close", "push", "pull", "turn", "move", "eat",
		"drink", "wear", "remove", "light", "extinguish", "enter", "climb", "kill", "attack",
		"break", "lock", "unlock", "wave", "ring", "inflate", "deflate", "fill", "empty",
		"shake", "rub", "burn", "search", "touch", "squeeze", "kiss", "buy", "cut", "switch"}
	validTwo = []struct{ verb, prep string }{
		{"put", "in"}, {"put", "on"}, {"unlock", "with"}, {"lock", "with"}, {"give", "to"},
		{"throw", "at"}, {"attack", "with"}, {"tie", "to"}, {"cut", "with"}, {"open", "with"},
		{"insert", "in"}, {"show", "to"},
	}
)

// maxValidObjects bounds the objects in view tried (the nearest first).
const maxValidObjects = 24

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
	r, err := e.search(workers, nil)
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
}

// search tries the candidates, then the extra actions, from the current
// state on at most workers machines.
func (e *Env) search(workers int, extra []string) (searchResult, error) {
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
	cands := e.candidates()
	nCand := len(cands)
	cands = append(cands, extra...)
	m := vg.m
	snap := m.Snapshot()
	saved := *vg
	defer func() {
		m.Restore(snap)
		*vg = saved
	}()
	n := m.NumObjects()
	baseTree := treeBytes(m, n, nil)
	// Bookkeeping the game does on any turn (Inform 7 marks objects as
	// mentioned when it lists them) is no change: the bytes a "look" from
	// the same snapshot changes are masked out, as Jericho masks per-game
	// attribute bits.
	mask := make([]bool, len(baseTree))
	if err := m.Input("look"); err == nil {
		if _, err := vg.run(); err == nil {
			for i, b := range treeBytes(m, n, nil) {
				if i < len(mask) && b != baseTree[i] {
					mask[i] = true
				}
			}
		}
	}
	base := worldKey{tree: maskedHash(baseTree, mask)}
	base.score = e.score

	// Each candidate's world, or ok false when it could not be played.
	keys := make([]worldKey, len(cands))
	ok := make([]bool, len(cands))
	try := func(g *vmGame, from vmGame, i int, buf []byte) []byte {
		*g = from
		g.m.Restore(snap)
		if err := g.m.Input(cands[i]); err != nil {
			return buf
		}
		text, err := g.run()
		if err != nil {
			return buf
		}
		sc := g.candidateScore(text, e.score)
		buf = treeBytes(g.m, n, buf)
		keys[i], ok[i] = worldKey{tree: maskedHash(buf, mask), score: sc}, true
		return buf
	}
	workers = min(workers, maxValidWorkers, (len(cands)+minPerWorker-1)/minPerWorker)
	if workers <= 1 {
		buf := make([]byte, 0, len(baseTree))
		for i := range cands {
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
				for i := int(next.Add(1) - 1); i < len(cands); i = int(next.Add(1) - 1) {
					buf = try(g, from, i, buf)
				}
			}()
		}
		wg.Wait()
	}
	r := searchResult{base: base, extra: keys[nCand:], extraOK: ok[nCand:]}
	seen := map[worldKey]bool{base: true}
	for i, c := range cands[:nCand] {
		if !ok[i] || seen[keys[i]] {
			continue
		}
		seen[keys[i]] = true
		r.actions = append(r.actions, c)
		r.keys = append(r.keys, keys[i])
	}
	return r, nil
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

// candidates builds the candidate actions of the current state.
func (e *Env) candidates() []string {
	dict := e.vm.dictionary()
	var out []string
	for _, d := range validMoves {
		if dict.has(d) {
			out = append(out, d)
		}
	}
	for _, v := range validAlone {
		if dict.verb(v) {
			out = append(out, v)
		}
	}
	w, err := e.World()
	if err != nil {
		return out
	}
	inView, held := objectsInView(w, dict)
	if len(inView) == 0 {
		// Inform 7 (TextWorld) objects have no short name in the object
		// table: the nouns of the dictionary that the observations since
		// entering the room name stand for the objects in view.
		inView = dict.nounsIn(strings.Join(e.roomTexts, "\n"), e.lastRoom)
	}
	one := validOne
	if len(e.vm.b.Verbs) > 0 {
		one = e.vm.b.Verbs
	}
	for _, v := range one {
		if !dict.verb(v) {
			continue
		}
		for _, o := range inView {
			out = append(out, v+" "+o)
		}
	}
	for _, t := range validTwo {
		if !dict.verb(t.verb) || !dict.has(t.prep) {
			continue
		}
		for _, a := range held {
			for _, b := range inView {
				if a != b {
					out = append(out, t.verb+" "+a+" "+t.prep+" "+b)
				}
			}
		}
	}
	return out
}

// objectsInView names the objects under the player's room (breadth first,
// the nearest first) and those the player holds, by dictionary words.
func objectsInView(w World, dict *dictionary) (inView, held []string) {
	if w.Location == 0 {
		return nil, nil
	}
	children := map[int][]int{}
	for _, o := range w.Objects {
		children[o.Parent] = append(children[o.Parent], o.ID)
	}
	named := map[string]bool{}
	queue := []int{w.Location}
	for len(queue) > 0 && len(inView) < maxValidObjects {
		id := queue[0]
		queue = queue[1:]
		for _, c := range children[id] {
			queue = append(queue, c)
			if c == w.Player {
				continue
			}
			o, _ := w.Object(c)
			word := dict.nameWord(o.Name)
			if word == "" || named[word] {
				continue
			}
			named[word] = true
			inView = append(inView, word)
			if w.Player != 0 && o.Parent == w.Player {
				held = append(held, word)
			}
		}
	}
	return inView, held
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

func (d *dictionary) key(w string) string {
	w = strings.ToLower(w)
	if len(w) > d.res {
		w = w[:d.res]
	}
	return w
}

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

// nameWord is the last word of an object's short name that the dictionary
// holds, or "".
func (d *dictionary) nameWord(name string) string {
	ws := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	})
	for i := len(ws) - 1; i >= 0; i-- {
		if d.has(ws[i]) {
			return ws[i]
		}
	}
	return ""
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
		if !ok || f&0x80 == 0 || d.verb(w) || notObject[w] || directionWords[w] || skipped[w] {
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
var notObject = map[string]bool{"all": true, "everything": true, "the": true, "you": true,
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
		sc, _ := g.score(text, prev, false)
		return sc
	}
	for _, line := range lines(clip(text)) {
		if hasScoreWord(line) && reNotice.MatchString(line) {
			return prev + 0.5 // a change, whatever its size
		}
	}
	return prev
}
