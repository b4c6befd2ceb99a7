package zmachine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/samem/trainer/envbridge/zmachine/zvm"
)

// ErrRunaway is returned when a game runs its whole instruction budget
// without asking for input (an endless loop): the episode ends with it.
var ErrRunaway = errors.New("game ran its instruction budget without asking for input")

// maxAutoKeys bounds the keys the driver presses by itself in one turn
// (press-a-key pauses, [MORE] prompts); a game that keeps asking for keys
// after that is shown to the agent as waiting for a key.
const maxAutoKeys = 32

// ignoredKeys is how many keys in a row may bring no new text before the
// driver stops answering a key wait by itself and shows it to the agent.
const ignoredKeys = 4

// autoKeys are tried in turn while a key wait ignores them: space, return,
// "q" (the usual way out of a menu), escape.
var autoKeys = []uint16{' ', 13, 'q', 27}

// vmGame is one story file running in-process on zvm.
type vmGame struct {
	m      *zvm.Machine
	b      *Binding
	status []string // the upper window (status line) as last drawn
	// keysAnswered counts the keys the driver pressed by itself in the last run.
	keysAnswered int
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
}

// loadVM loads story on a fresh machine with seed and budget.
func loadVM(story []byte, seed int64, budget int) (*zvm.Machine, error) {
	m, err := zvm.Load(story, zvm.Options{Seed: seed, Budget: budget})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// run runs the machine until it waits for a line, halts, or waits for a key
// the driver leaves to the agent; it answers plain key waits (press a key,
// [MORE]) by itself. It returns all text printed to the lower window.
func (g *vmGame) run() (string, error) {
	var text strings.Builder
	auto, quiet := 0, 0
	g.waitKey = false
	defer func() { g.keysAnswered = auto }()
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
			g.lineStatus = g.status
			return text.String(), nil
		case zvm.Halted:
			g.halted = true
			return text.String(), nil
		}
		// A key wait. A menu (the upper window holds more than the status
		// line) is the agent's to answer; so is a wait that ignores keys.
		if isMenu(g.status, g.lineStatus) || auto >= maxAutoKeys || quiet >= ignoredKeys {
			g.waitKey = true
			return text.String(), nil
		}
		if strings.TrimSpace(out.Main) == "" && auto > 0 {
			quiet++
		} else {
			quiet = 0
		}
		key := autoKeys[min(quiet, len(autoKeys)-1)]
		if err := g.m.Key(key); err != nil {
			return text.String(), err
		}
		auto++
	}
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

// input answers the machine's wait with action: a line, or, at a key wait,
// the key the action names.
func (g *vmGame) input(action string) error {
	if g.waitKey {
		return g.m.Key(keyOf(action))
	}
	return g.m.Input(action)
}

// keyOf maps an action typed at a key wait to a ZSCII key: the names
// return/enter, space, escape, up, down, left, right, a digit or letter
// (its first character), or return for an empty action.
func keyOf(action string) uint16 {
	a := strings.ToLower(strings.TrimSpace(action))
	switch a {
	case "", "return", "enter", "newline":
		return 13
	case "space":
		return ' '
	case "escape", "esc":
		return 27
	case "up", "cursor up":
		return 129
	case "down", "cursor down":
		return 130
	case "left":
		return 131
	case "right":
		return 132
	case "delete", "backspace":
		return 8
	}
	c := a[0]
	if c >= 32 && c < 127 {
		return uint16(c)
	}
	return 13
}

// menuNote is appended to an observation when the game waits for a single
// key that the driver leaves to the agent.
const menuNote = "[The game waits for a single key: type a letter or digit, or return, space, escape, up, down.]"

// keyWaitText is the observation of a key wait: the upper window (the menu)
// above the text, and the note.
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

// score reads the score and moves from the machine as the binding says,
// never by sending a command. text is the turn's main text (for wording and
// ending sources); prev is the score before the turn.
func (g *vmGame) score(text string, prev float64, won bool) (float64, bool) {
	src := g.b.Score
	source := src.Source
	if source == "" {
		if g.m.Version() == 3 {
			source = "v3"
		} else {
			source = "status"
		}
	}
	switch source {
	case "v3":
		_, a, b, timeGame := g.m.StatusV3()
		if !timeGame {
			g.moves, g.movesKnown = b, true
		}
		return float64(a), true
	case "global":
		g.readMovesGlobal()
		return float64(int16(g.m.Global(src.Global))), true
	case "ending":
		if st := ParseStatus(g.status, nil); st.HasMoves {
			g.moves, g.movesKnown = st.Moves, true
		}
		g.readMovesGlobal()
		if won {
			return g.b.MaxScore, true
		}
		return prev, true
	case "wording":
		// Only the game's own wording: its standard report may count
		// another scale.
		if v, ok := ParseWording(src.re, text); ok {
			return v, true
		}
		return prev, true
	}
	// status. The game's own report in the text ("In that game you scored 4
	// out of a possible 4") is newer than the status line, which a game
	// that has ended does not redraw.
	if s, ok := ParseScore(text); ok {
		st := ParseStatus(g.status, src.re)
		if st.HasMoves {
			g.moves, g.movesKnown = st.Moves, true
		}
		return s.Score, true
	}
	st := ParseStatus(g.status, src.re)
	if st.HasMoves {
		g.moves, g.movesKnown = st.Moves, true
	}
	g.readMovesGlobal()
	if st.HasScore {
		return st.Score, true
	}
	return prev, false
}

func (g *vmGame) readMovesGlobal() {
	if g.b.MovesGlobal > 0 {
		g.moves, g.movesKnown = int(int16(g.m.Global(g.b.MovesGlobal))), true
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
