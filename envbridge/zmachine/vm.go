package zmachine

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/samem/trainer/envbridge/zmachine/zvm"
)

// ErrRunaway is returned when a game runs its whole instruction budget
// without asking for input (an endless loop): the episode ends with it.
var ErrRunaway = errors.New("game ran its instruction budget without asking for input")

// maxAutoKeys bounds the keys the driver presses by itself at the opening
// (title screens, press-a-key pauses); a game that keeps asking for keys
// after that is shown to the agent as waiting for a key.
const maxAutoKeys = 32

// ignoredKeys is how many keys in a row may bring no new text before the
// driver stops answering the opening's key waits by itself.
const ignoredKeys = 4

// openingKeys are tried in turn at the opening while a key wait ignores
// them: return (what Jericho's intros send), then space.
var openingKeys = []uint16{13, ' '}

// vmGame is one story file running in-process on zvm.
type vmGame struct {
	m      *zvm.Machine
	b      *Binding
	status []string // the upper window (status line) as last drawn
	// lineStatus is the upper window at the last wait for a command.
	lineStatus []string
	halted     bool
	waitKey    bool // the game waits for a single key the driver did not answer (a menu)
	moves      int
	// movesKnown: moves is read from the machine (v3 globals, a moves
	// global, or the status line).
	movesKnown bool
	dict       *dictionary // the dictionary, read once
	// clones are copies of m on which valid actions try candidates
	// concurrently (valid.go), made once per game.
	clones []*zvm.Machine
	from   scoreFrom  // where the score is read
	tmpl   []template // the valid-action templates, made once per game
	// tmplLib is tmpl without the Inform library's synonyms
	// (informTemplates), made once per game.
	tmplLib []template
	wverbs  []string // the verbs no template has (wordverbs.go), found once
	// spells are the game's spell objects and their words (spells.go),
	// found once; spellsKnown once they are looked for.
	spells      []spellObject
	spellsKnown bool
	// lg is where the game lists a room's local globals (Infocom's
	// GLOBAL); lgKnown once it is looked for.
	lg      lgFacts
	lgKnown bool
	// names is where the game keeps its objects' words (names.go), read
	// once.
	names *nameFacts
	// adjs is where an Infocom game keeps its objects' adjectives
	// (adjectives.go), read once.
	adjs *adjFacts
	// byWord: dictionary word -> the objects it names (objectsNamed).
	byWord map[string][]int
	// props: the objects' common properties are numbered as the Inform
	// library's (rules.go); propsKnown once that is looked at.
	props, propsKnown bool
	// scoreGlobal and movesGlobal are the globals the score and moves are
	// read from (fromGlobal), -1 for none.
	scoreGlobal, movesGlobal int
}

// loadVM loads story on a fresh machine with seed and budget.
func loadVM(story []byte, seed int64, budget int) (*zvm.Machine, error) {
	m, err := zvm.Load(story, zvm.Options{Seed: seed, Budget: budget})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// run runs the machine until it waits for a line, halts, or waits for a
// key. It returns all text printed to the lower window. A key wait is the
// agent's to answer (waitKey): its next action is typed as keys (typeKeys),
// as Jericho's and dfrotz's terminals give a game the next line typed, key
// by key, when it reads keys; the Jericho suite's walkthroughs were
// recorded so.
func (g *vmGame) run() (string, error) { return g.runKeys(false) }

// runOpening is run at the opening and during the intro commands: before
// the agent acts the driver answers key waits (title screens, "[Press any
// key]") and lines that ask only for RETURN ("[Press RETURN or ENTER to
// begin.]") by itself, so that the first observation is the game itself
// (Jericho's intros press return for the same games). A game that keeps
// waiting for keys, or ignores them, is left to the agent.
func (g *vmGame) runOpening() (string, error) { return g.runKeys(true) }

func (g *vmGame) runKeys(auto bool) (string, error) {
	var text strings.Builder
	pressed, quiet := 0, 0
	g.waitKey = false
	for {
		w, err := g.m.Run()
		out := g.m.Output()
		text.WriteString(out.Main)
		if out.Status != nil {
			g.status = out.Status
		}
		if err != nil {
			if errors.Is(err, zvm.ErrBudget) {
				return text.String(), fmt.Errorf("%w: %v", ErrRunaway, err)
			}
			return text.String(), err
		}
		switch w {
		case zvm.WaitLine:
			// A line wait that only asks for RETURN (version 3 games have
			// no key waits) is a key wait.
			if auto && pressed < maxAutoKeys && asksReturn(out.Main) {
				if err := g.m.Input(""); err != nil {
					return text.String(), err
				}
				pressed++
				continue
			}
			g.lineStatus = g.status
			return text.String(), nil
		case zvm.Halted:
			g.halted = true
			return text.String(), nil
		}
		if !auto || pressed >= maxAutoKeys || quiet >= ignoredKeys {
			g.waitKey = true
			return text.String(), nil
		}
		if strings.TrimSpace(out.Main) == "" && pressed > 0 {
			quiet++
		} else {
			quiet = 0
		}
		if err := g.m.Key(openingKeys[quiet%len(openingKeys)]); err != nil {
			return text.String(), err
		}
		pressed++
	}
}

// typeKeys answers a key wait with action, typed: a key name (return,
// space, escape, up, down ...) or an empty action is one key; other text
// is typed one character per key the game reads, while it reads keys; what
// is left when it asks for a line instead is dropped (as Jericho's and
// dfrotz's terminals do with a line typed at a key wait).
func (g *vmGame) typeKeys(action string) (string, error) {
	var text strings.Builder
	for _, k := range typedKeys(action) {
		if err := g.m.Key(k); err != nil {
			return text.String(), err
		}
		out, err := g.run()
		text.WriteString(out)
		if err != nil || !g.waitKey {
			return text.String(), err
		}
	}
	return text.String(), nil
}

// reReturn is a request to press RETURN (or ENTER) on the last line of a
// turn's text.
var reReturn = regexp.MustCompile(`(?i)\b(?:press|hit|type)\s+(?:the\s+)?(?:return|enter)\b[^\n]{0,60}$`)

// asksReturn reports text whose last line asks for RETURN and nothing else.
func asksReturn(text string) bool {
	t := strings.TrimRight(text, " \n>")
	if i := strings.LastIndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	return len(t) <= 120 && reReturn.MatchString(t)
}

// isMenu reports an upper window that holds more than one line of text and
// is not the status line the game shows while it waits for commands (a menu
// drawn there: Inform's DoMenu, hint menus; loose's status line, three lines
// with a compass rose, is no menu). Digits are ignored in the comparison, as
// score and moves change.
func isMenu(status, lineStatus []string) bool {
	n := 0
	for _, l := range status {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	if n <= 1 {
		return false
	}
	return noDigits(status) != noDigits(lineStatus)
}

func noDigits(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		for _, r := range l {
			if (r < '0' || r > '9') && r != ' ' {
				b.WriteRune(r)
			}
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// input answers the machine's wait for a line with action (a key wait is
// answered by typeKeys).
func (g *vmGame) input(action string) error {
	if g.b.QuestionMark == "space" {
		action = strings.ReplaceAll(action, "?", " ")
	}
	return g.m.Input(action)
}

// keyNames are the actions that stand for one key at a key wait.
var keyNames = map[string]uint16{
	"": 13, "return": 13, "enter": 13, "newline": 13, "space": ' ', "escape": 27, "esc": 27,
	"up": 129, "cursor up": 129, "down": 130, "cursor down": 130, "left": 131, "right": 132,
	"delete": 8, "backspace": 8,
}

// typedKeys are the keys an action stands for at a key wait: a key name's
// key, or its characters (printable ASCII; others are dropped).
func typedKeys(action string) []uint16 {
	if k, ok := keyNames[strings.ToLower(strings.TrimSpace(action))]; ok {
		return []uint16{k}
	}
	var keys []uint16
	for _, r := range action {
		if r >= 32 && r < 127 {
			keys = append(keys, uint16(r))
		}
	}
	if len(keys) == 0 {
		return []uint16{13}
	}
	return keys
}

// menuNote is appended to an observation when the game waits for a single
// key that the driver leaves to the agent.
const menuNote = "[The game waits for a key: your next action is typed as keys (a letter or digit, or return, space, escape, up, down).]"

// keyWaitText is the observation of a key wait: the upper window (a menu;
// nil for a pause under the usual status line) above the text, and the
// note.
func keyWaitText(status []string, main string) string {
	var b strings.Builder
	for _, l := range status {
		if strings.TrimSpace(l) != "" {
			b.WriteString(strings.TrimRight(l, " "))
			b.WriteByte('\n')
		}
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(main)
	b.WriteString("\n\n")
	b.WriteString(menuNote)
	return b.String()
}

// scoreFrom says where an in-process game's score is read (decided once
// per game by probe, from the binding and the general rules).
type scoreFrom int

const (
	fromNone    scoreFrom = iota // the game keeps no score the driver can read
	fromV3                       // version 3's status-line globals (score, moves)
	fromStatus                   // the status line the game draws
	fromGlobal                   // a global the binding names
	fromWording                  // the binding's pattern over the turn's text
	fromEnding                   // no score but the ending: the maximum when won
	fromAsk                      // the game's answer to "score", asked on the machine and undone
)

// scoreVerb is the command whose answer is the game's own report.
const scoreVerb = "score"

// ask plays cmds, one line each, and puts the machine and the driver's
// state back exactly as they were: the game's answer to a question that
// must cost it nothing. ok is false when the game cannot be asked now (it
// ended, or waits for a key) or a command failed. After each command, done
// says whether the text so far is the whole answer (then the rest are not
// played); last, before the machine is put back, it is called once more
// with final set (a caller may read the machine then).
func (g *vmGame) ask(cmds []string, done func(text string, final bool) bool) (text string, ok bool) {
	if g.halted || g.waitKey {
		return "", false
	}
	snap := g.m.Snapshot()
	saved := *g
	defer func() {
		g.m.Restore(snap)
		*g = saved
	}()
	var b strings.Builder
	for _, c := range cmds {
		if g.halted || g.waitKey {
			break
		}
		if err := g.m.Input(c); err != nil {
			return b.String(), false
		}
		out, err := g.run()
		b.WriteString(out)
		if err != nil {
			return b.String(), false
		}
		if done(b.String(), false) {
			break
		}
	}
	done(b.String(), true)
	return b.String(), !g.waitKey
}

// askScore is the game's answer to the score command, asked on the machine
// and undone. A game that asks for RETURN before it answers (hhgg: "Hit
// RETURN or ENTER when ready.") is given an empty line.
func (g *vmGame) askScore() (Report, bool) {
	r, _, ok := g.askScoreAfter(0)
	return r, ok
}

// askScoreAfter is askScore, and the score as the driver reads it after the
// question's own turn (prev where the source is the question itself): a
// turn may score before its verb runs (zork1 scores the torch seen in the
// Drafty Room on the turn after the one that enters it), and the answer
// then counts it.
func (g *vmGame) askScoreAfter(prev float64) (Report, float64, bool) {
	after := prev
	text, ok := g.ask([]string{scoreVerb, ""}, func(text string, final bool) bool {
		if final && g.from != fromAsk {
			after, _ = g.score(text, prev, false)
		}
		_, ok := g.answer(text)
		return ok
	})
	if !ok {
		return Report{}, prev, false
	}
	r, ok := g.answer(text)
	return r, after, ok
}

// answer reads the game's answer to the score command: in the binding's
// wording when it gives one (afflicted: "a sanitation rating of -30", with
// the binding's maximum), else in the forms ParseAnswer knows.
func (g *vmGame) answer(text string) (Report, bool) {
	if re := g.b.Score.re; re != nil && g.b.Score.Source == "ask" {
		v, ok := ParseWording(re, text)
		return Report{Score: v, Max: g.b.MaxScore}, ok
	}
	return ParseAnswer(text)
}

// score reads the score and moves as the game's source says, never by
// spending a move. text is the turn's main text (for the wording and ending
// sources and the final report); prev is the score before the turn.
func (g *vmGame) score(text string, prev float64, won bool) (float64, bool) {
	return g.scoreMoves(text, prev, won, true)
}

// scoreMoves is score; with moves false the moves are left as they were
// (a valid-action candidate's turn is undone and its moves never read,
// and parsing the status line for them is a regular expression per
// candidate).
func (g *vmGame) scoreMoves(text string, prev float64, won, moves bool) (float64, bool) {
	src := g.b.Score
	readMoves := func() {
		if moves {
			g.readStatusMoves()
		}
	}
	switch g.from {
	case fromV3:
		_, a, b, _ := g.m.StatusV3()
		if moves {
			g.moves, g.movesKnown = b, true
		}
		return float64(a), true
	case fromGlobal:
		readMoves()
		return float64(int16(g.m.Global(g.scoreGlobal))), true
	case fromEnding:
		readMoves()
		if won {
			return g.b.MaxScore, true
		}
		return prev, true
	case fromWording:
		// Only the game's own wording: its standard report may count
		// another scale.
		readMoves()
		if v, ok := ParseWording(src.re, text); ok {
			return v, true
		}
		return prev, true
	case fromAsk:
		r, ok := g.askScore()
		if !ok {
			// The game has ended or waits for a key: its final report,
			// else the score as it was.
			if r, ok = g.answer(text); !ok {
				readMoves()
				return prev, true
			}
		}
		if r.HasMoves {
			g.moves, g.movesKnown = r.Moves, true
		} else {
			readMoves()
		}
		return r.Score, true
	case fromStatus:
		// The game's own report in the text ("In that game you scored 4
		// out of a possible 4") is newer than the status line, which a game
		// that has ended does not redraw.
		readMoves()
		if s, ok := ParseScore(text); ok {
			return s.Score, true
		}
		if st := ParseStatus(g.status, src.re); st.HasScore {
			return st.Score, true
		}
		return prev, true
	}
	readMoves()
	return prev, false
}

// readStatusMoves reads the moves from the status line or the binding's
// moves global, where the game keeps them there.
func (g *vmGame) readStatusMoves() {
	if st := ParseStatus(g.status, g.b.Score.re); st.HasMoves {
		g.moves, g.movesKnown = st.Moves, true
	}
	g.readMovesGlobal()
}

func (g *vmGame) readMovesGlobal() {
	if g.movesGlobal >= 0 {
		g.moves, g.movesKnown = int(int16(g.m.Global(g.movesGlobal))), true
	}
}

// ending decides whether the turn's text ends the game and how: a halt, the
// final question (restart/restore/quit), an end banner, or the binding's win
// or death texts.
func (g *vmGame) ending(text string) Ending {
	end := ParseEnding(text)
	var flat string
	if len(g.b.Win)+len(g.b.Death) > 0 && mayHold(text, g.b.Win, g.b.Death) {
		flat = strings.ToLower(flatten(text))
	}
	switch {
	case hasFlat(flat, g.b.Win):
		return EndWon
	case hasFlat(flat, g.b.Death):
		return EndLost
	case end == EndLost && g.b.DeathsGoOn && !g.halted && !finalQuestion(strings.ToLower(clip(text))):
		// A death the game survives (inhumane scores its deaths).
		return EndNone
	case end != EndNone:
		return end
	case g.halted:
		return EndOther
	}
	return EndNone
}

// mayHold is a cheap test before phrases are searched in flattened text:
// some phrase's first word is in text (any case).
func mayHold(text string, lists ...[]string) bool {
	low := strings.ToLower(clip(text))
	for _, l := range lists {
		for _, p := range l {
			if f := strings.Fields(strings.ToLower(p)); len(f) > 0 && strings.Contains(low, f[0]) {
				return true
			}
		}
	}
	return false
}

// scoreSource decides where a game's score is read, and from which
// globals: the binding's source when it names one, else the general rules,
// in order:
//
//   - a version 3 game that is no time game: its status-line globals, score
//     and moves (§8.2.2);
//   - a game that answers the score command with a number a global holds:
//     that global, found once by reportGlobals (and the moves' global when
//     the answer names the moves): Inform's score and turns, a time game's
//     score (its status line shows the clock);
//   - a game whose status line shows a score ("Score: 5", "5/12") and that
//     is no time game: the status line;
//   - a game that answers the score command otherwise: the answer, asked
//     after every turn on the machine and undone (it costs the game
//     nothing);
//   - else none: the score stays 0 (a binding may give the maximum, won at
//     the ending).
//
// A time game is one whose header (byte 1, bit 1 of the story file) says so:
// version 3 games' status-line type, which Inform sets in every version for
// "Statusline time" (interpreters clear it in later versions, so the story
// file's byte is read).
func scoreSource(b *Binding, vg *vmGame, timeGame bool, rep Report, answers bool) (from scoreFrom, scoreGlobal, movesGlobal int) {
	movesGlobal = -1
	if b.MovesGlobal > 0 {
		movesGlobal = b.MovesGlobal
	}
	switch b.Score.Source {
	case "v3":
		return fromV3, -1, movesGlobal
	case "global":
		return fromGlobal, b.Score.Global, movesGlobal
	case "status":
		return fromStatus, -1, movesGlobal
	case "wording":
		return fromWording, -1, movesGlobal
	case "ending":
		return fromEnding, -1, movesGlobal
	case "ask":
		return fromAsk, -1, movesGlobal
	case "none":
		return fromNone, -1, movesGlobal
	}
	if vg.m.Version() <= 3 && !timeGame {
		return fromV3, -1, movesGlobal
	}
	if answers {
		if sg, mg := vg.reportGlobals(rep); sg >= 0 {
			if movesGlobal < 0 {
				movesGlobal = mg
			}
			return fromGlobal, sg, movesGlobal
		}
	}
	switch {
	case !timeGame && ParseStatus(vg.status, b.Score.re).HasScore:
		return fromStatus, -1, movesGlobal
	case answers:
		return fromAsk, -1, movesGlobal
	}
	return fromNone, -1, movesGlobal
}

// isTimeGame reads the time-game flag of a story file's header (byte 1,
// bit 1).
func isTimeGame(story []byte) bool { return len(story) > 1 && story[1]&0x02 != 0 }

// reportGlobals finds the globals the game's score report prints, so that
// the score and moves can be read from memory after every turn instead of
// asking. The globals that hold the reported score or moves now are marked,
// a group of them at a time, each with a value of its own (1000 plus its
// number), and the game is asked: a mark in the answer names its global. A
// group whose marks break the answer (an Inform 7 game stops with a
// run-time problem when some of its globals change) is split and tried
// again. Last, only the globals found are marked, with other values, and
// the answer must follow. The machine is left as it was. score or moves is
// -1 where no global was found (the game computes the number, or its
// answer names none).
func (g *vmGame) reportGlobals(rep Report) (score, moves int) {
	if g.halted || g.waitKey {
		return -1, -1
	}
	const mark, group = 1000, 16
	snap := g.m.Snapshot()
	saved := *g
	reset := func() {
		g.m.Restore(snap)
		*g = saved
	}
	defer reset()
	var cands []int
	for n := 0; n < 240; n++ {
		v := float64(int16(g.m.Global(n)))
		if v == rep.Score || rep.HasMoves && v == float64(rep.Moves) {
			cands = append(cands, n)
		}
	}
	s, mv := -1, -1
	found := func(v float64, set []int) int {
		n := int(v) - mark
		if v != float64(int(v)) || !slices.Contains(set, n) {
			return -1
		}
		return n
	}
	var try func(set []int)
	try = func(set []int) {
		if len(set) == 0 || s >= 0 && (mv >= 0 || !rep.HasMoves) {
			return
		}
		reset()
		for _, n := range set {
			g.m.SetGlobal(n, uint16(mark+n))
		}
		r, ok := g.askScore()
		if !ok {
			if len(set) > 1 {
				try(set[:len(set)/2])
				try(set[len(set)/2:])
			}
			return
		}
		if n := found(r.Score, set); n >= 0 && s < 0 {
			s = n
		}
		if n := found(float64(r.Moves), set); r.HasMoves && n >= 0 && mv < 0 {
			mv = n
		}
	}
	for i := 0; i < len(cands); i += group {
		try(cands[i:min(i+group, len(cands))])
	}
	if s < 0 {
		return -1, -1
	}
	// Check: only the globals found, marked with other values.
	reset()
	const sMark, mMark = 2345, 3456
	g.m.SetGlobal(s, sMark)
	if mv >= 0 && mv != s {
		g.m.SetGlobal(mv, mMark)
	}
	r, ok := g.askScore()
	if !ok || r.Score != sMark {
		return -1, -1
	}
	if mv < 0 || mv == s || !r.HasMoves || r.Moves != mMark {
		mv = -1
	}
	return s, mv
}
