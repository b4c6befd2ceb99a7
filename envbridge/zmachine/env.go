package zmachine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/samem/trainer/envbridge"
)

// maxActionBytes bounds one command sent to the interpreter; Z-machine games
// read at most a few hundred characters into their parse buffer anyway.
const maxActionBytes = 200

// maxDfrotzBytes bounds one line sent to dfrotz: its input buffer holds 200
// characters, and a longer line is read as two, so that every later turn
// would be read one answer late.
const maxDfrotzBytes = 190

// dfrotzLine is the line an action is sent to dfrotz as: one line, cut to
// maxDfrotzBytes; "again" (or "g") repeats the last action, not the score
// verb the driver sent after it; a backslash, which starts dfrotz's own
// commands ("\q" quits), is doubled.
func dfrotzLine(action, last string) string {
	a := sanitize(action)
	if w := strings.ToLower(a); (w == "again" || w == "g") && last != "" {
		return last
	}
	a = strings.ReplaceAll(a, `\`, `\\`)
	if len(a) > maxDfrotzBytes {
		a = a[:maxDfrotzBytes]
		for len(a) > 0 && !utf8.ValidString(a) {
			a = a[:len(a)-1]
		}
		// a doubled backslash cut in two leaves one: drop it
		n := len(a) - len(strings.TrimRight(a, `\`))
		if n%2 == 1 {
			a = a[:len(a)-1]
		}
	}
	return a
}

// answerFileName answers dfrotz's file prompt after an action that asks for
// one, so that the game's own files stay apart from the driver's saves
// (name.sav): "save" and "restore" use agent.qzl, "script" (and the other
// transcripts) agent.scr, each in the private directory.
func (e *Env) answerFileName(ctx context.Context, line, out string) (string, error) {
	if !strings.Contains(strings.ToLower(lastLine(out)), "filename") {
		return out, nil
	}
	name := "agent.qzl"
	switch strings.ToLower(strings.Fields(line + " x")[0]) {
	case "script", "transcript", "recording", "replay":
		name = "agent.scr"
	}
	more, err := e.turn(ctx, filepath.Join(e.dir, name))
	if err != nil {
		return out, err
	}
	out += more
	if strings.Contains(strings.ToLower(lastLine(more)), "overwrite") {
		more, err = e.turn(ctx, "y")
		out += more
	}
	return out, err
}

// lastLine is the last non-empty line of text.
func lastLine(text string) string {
	t := strings.TrimRight(text, " \n")
	if i := strings.LastIndexByte(t, '\n'); i >= 0 {
		return t[i+1:]
	}
	return t
}

// Env plays one story file at a time through an interpreter child process.
// Each Reset starts a fresh interpreter; Close kills it and removes the
// private directory that holds saved games. Not safe for concurrent use.
type Env struct {
	suite *Suite
	dir   string  // private directory for save files (dfrotz -R confines it there)
	p     *proc   // the dfrotz child process (Config.Interpreter "dfrotz")
	vm    *vmGame // the in-process machine (the default)
	// roomTexts holds the observations since the player entered lastRoom
	// (valid actions read the nouns they name in Inform 7 games).
	roomTexts []string
	roomBytes int
	lastRoom  string
	lastText  string // the last observation (valid actions try what it names first)
	// lastAction is the action played last: what it names is what "it"
	// stands for next, tried first with what the text names; a two-object
	// command is tried again with the other things carried.
	lastAction string
	// refused are the candidates of earlier valid-action searches of the
	// episode that were played and changed nothing (by refusalKey), tried
	// after the others; pending are the present state's, kept when the
	// episode moves on (so that two searches of one state give one list).
	refused, pending map[string]bool
	// refusedHeld and pendingHeld are, for the refusals of toolVerb
	// commands, the things the player had carried in the episode by then
	// (everHeld, object numbers in order): such a refusal is tried again
	// early once the player carries a thing not among them.
	refusedHeld, pendingHeld map[string][]int
	everHeld                 []int
	// played is the number of candidates the last search of an earlier
	// state played within its budget (0: none yet); playedPending the
	// present state's, kept when the episode moves on, as pending.
	played, playedPending int
	// names are the capitalised words of the episode's observations,
	// the latest first (answers.go: what a list that finds nothing tries
	// as answers).
	names []string
	// quoted are the words the episode's observations quoted alone, the
	// latest first (answers.go: said in every search).
	quoted []string
	// worked are the one-word commands that changed the world in a
	// search of the episode, the latest first (magic.go); workedNext the
	// present state's actions, kept as the episode moves on.
	worked, workedNext []string
	// numbers are the numbers the episode's observations quoted alone
	// (numbers.go: a number written is not written again).
	numbers []int
	// cand holds what building a candidate list needs, kept between
	// searches so that its slices and map are not grown anew each time.
	cand candScratch

	g        *game
	lastLine string // dfrotz: the last action line sent (not the score verb)
	maxSteps int
	steps    int
	score    float64
	maxScore float64
	clean    *Cleaning // the Cleaning score of seed 000's Cleaning games
	started  bool
	done     bool
	closed   bool
}

var _ envbridge.Env = (*Env)(nil)

// Reset starts an episode of t in a fresh interpreter seeded with t.Seed and
// returns the opening text (the TextWorld banner art removed).
func (e *Env) Reset(ctx context.Context, t envbridge.Task) (envbridge.Observation, error) {
	if e.closed {
		return envbridge.Observation{}, envbridge.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return envbridge.Observation{}, fmt.Errorf("zmachine reset %s: %w", t.ID, err)
	}
	g, ok := e.suite.byID[t.ID]
	if !ok {
		return envbridge.Observation{}, fmt.Errorf("zmachine reset %q: %w", t.ID, envbridge.ErrUnknownTask)
	}
	e.stop()
	e.started, e.done, e.steps, e.score = false, true, 0, 0
	e.g = g
	e.maxSteps = t.MaxSteps
	if e.maxSteps <= 0 {
		e.maxSteps = e.suite.stepLimit(g.name)
	}
	if !e.suite.cfg.dfrotz() {
		return e.resetVM(t, g)
	}
	p, opening, err := e.suite.start(ctx, g, e.suite.seedOf(g, t.Seed), e.dir)
	if err != nil {
		return envbridge.Observation{}, fmt.Errorf("zmachine reset %s: %w", t.ID, err)
	}
	e.p = p
	e.startScore(g)
	if g.hasScore {
		s, err := e.readScore(ctx)
		if err != nil {
			e.stop()
			return envbridge.Observation{}, fmt.Errorf("zmachine reset %s: %w", t.ID, err)
		}
		e.score = s.Score
		if s.Max > 0 {
			e.maxScore = s.Max
		}
	}
	e.started, e.done = true, false
	if g.textworld {
		_, opening = splitBanner(opening)
	}
	return envbridge.Observation{Text: Clean(opening)}, nil
}

// Step sends action as one command line, then (for games with a score) the
// score verb, which costs no move. The reward is the change in score. The
// episode ends at an end banner, a final score or the restart prompt, or at
// the step limit (Truncated).
func (e *Env) Step(ctx context.Context, action string) (envbridge.StepResult, error) {
	if e.closed {
		return envbridge.StepResult{}, envbridge.ErrClosed
	}
	if !e.started || e.done {
		return envbridge.StepResult{}, fmt.Errorf("zmachine step: %w", envbridge.ErrEpisodeOver)
	}
	if e.vm != nil {
		return e.stepVM(ctx, sanitize(action))
	}
	line := dfrotzLine(action, e.lastLine)
	out, err := e.turn(ctx, line)
	if err == nil {
		out, err = e.answerFileName(ctx, line, out)
	}
	if err != nil {
		return envbridge.StepResult{}, e.fail(fmt.Errorf("zmachine step %q: %w", action, err))
	}
	e.lastLine = line
	e.steps++
	prev := e.score
	res := envbridge.StepResult{Observation: envbridge.Observation{Text: Clean(out)}}
	if e.clean != nil {
		e.score += e.clean.Step(action, out)
	}
	switch end := ParseEnding(out); end {
	case EndNone:
		if e.g.hasScore {
			s, err := e.readScore(ctx)
			if err != nil {
				return envbridge.StepResult{}, e.fail(fmt.Errorf("zmachine step %q: %w", action, err))
			}
			e.score = s.Score
		}
	default:
		// The game is over and waits at its restart prompt; the score verb
		// would be read as an answer, so the final report is used instead.
		if s, ok := ParseScore(out); ok && e.clean == nil {
			e.score = s.Score
		}
		res.Done = true
		res.Won = end == EndWon
		res.Lost = end == EndLost
	}
	if !res.Done && e.steps >= e.maxSteps {
		res.Done, res.Truncated = true, true
	}
	res.Reward = e.score - prev
	res.Score = e.score
	res.MaxScore = e.maxScore
	e.done = res.Done
	return res, nil
}

// Steps returns how many steps the current episode has taken.
func (e *Env) Steps() int { return e.steps }

// Close kills the interpreter and removes the save directory. It is
// idempotent.
func (e *Env) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	e.stop()
	if err := os.RemoveAll(e.dir); err != nil {
		return fmt.Errorf("zmachine close: %w", err)
	}
	return nil
}

// reSaveName is what a save name may be: it becomes a file name.
var reSaveName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ErrBadSaveName is returned by Save and Restore for a name that is not 1 to
// 64 letters, digits, '-' or '_'.
var ErrBadSaveName = errors.New("bad save name")

// ErrSaveFailed is returned by Save and Restore when the game refuses.
var ErrSaveFailed = errors.New("game did not save or restore")

// Save saves the running game under name in the environment's private
// directory (in-process: a Quetzal file, name.qzl). It costs no step.
func (e *Env) Save(ctx context.Context, name string) error {
	if e.vm != nil {
		if err := e.checkSaveName("save", name); err != nil {
			return err
		}
		return e.saveVM(name)
	}
	return e.saveRestore(ctx, "save", name)
}

// checkSaveName checks the Env and the name of a save or restore.
func (e *Env) checkSaveName(verb, name string) error {
	if e.closed {
		return envbridge.ErrClosed
	}
	if !reSaveName.MatchString(name) {
		return fmt.Errorf("zmachine %s %q: %w", verb, name, ErrBadSaveName)
	}
	if !e.started || (e.p == nil && e.vm == nil) {
		return fmt.Errorf("zmachine %s: %w", verb, envbridge.ErrEpisodeOver)
	}
	return nil
}

// Restore restores a game saved under name by this Env. The episode goes on
// from there (even after it had ended) with the saved score; the step count
// is not rewound.
func (e *Env) Restore(ctx context.Context, name string) error {
	if e.vm != nil {
		if err := e.checkSaveName("restore", name); err != nil {
			return err
		}
		return e.restoreVM(name)
	}
	if err := e.saveRestore(ctx, "restore", name); err != nil {
		return err
	}
	if e.g.hasScore {
		s, err := e.readScore(ctx)
		if err != nil {
			return e.fail(fmt.Errorf("zmachine restore %s: %w", name, err))
		}
		e.score = s.Score
	}
	e.done = false
	return nil
}

func (e *Env) saveRestore(ctx context.Context, verb, name string) error {
	if err := e.checkSaveName(verb, name); err != nil {
		return err
	}
	path := filepath.Join(e.dir, name+".sav")
	if verb == "restore" {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("zmachine restore %s: %w", name, err)
		}
	}
	out, err := e.turn(ctx, verb)
	if err != nil {
		return e.fail(fmt.Errorf("zmachine %s: %w", verb, err))
	}
	if !strings.Contains(strings.ToLower(out), "filename") {
		return fmt.Errorf("zmachine %s: no file name asked: %s: %w", verb, quote(Clean(out)), ErrSaveFailed)
	}
	out, err = e.turn(ctx, path)
	if err != nil {
		return e.fail(fmt.Errorf("zmachine %s: %w", verb, err))
	}
	if strings.Contains(strings.ToLower(out), "overwrite") {
		if out, err = e.turn(ctx, "y"); err != nil {
			return e.fail(fmt.Errorf("zmachine %s: %w", verb, err))
		}
	}
	if strings.Contains(strings.ToLower(out), "failed") {
		return fmt.Errorf("zmachine %s %s: %s: %w", verb, name, quote(Clean(out)), ErrSaveFailed)
	}
	return nil
}

// turn sends one line and reads the answer.
func (e *Env) turn(ctx context.Context, line string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := e.p.send(line); err != nil {
		return "", err
	}
	return e.p.readTurn(ctx)
}

// readScore asks the score verb.
func (e *Env) readScore(ctx context.Context) (Score, error) {
	out, err := e.turn(ctx, e.suite.cfg.ScoreVerb)
	if err != nil {
		return Score{}, fmt.Errorf("read score: %w", err)
	}
	s, ok := ParseScore(out)
	if !ok {
		return Score{Score: e.score, Max: e.maxScore}, nil
	}
	return s, nil
}

// fail ends the episode after an interpreter error: the interpreter is
// killed, and the next Reset starts a new one.
func (e *Env) fail(err error) error {
	e.stop()
	e.done = true
	return err
}

func (e *Env) stop() {
	e.vm = nil
	if e.p != nil {
		e.p.close()
		e.p = nil
	}
}

// pid returns the interpreter's process id, or 0 (for tests).
func (e *Env) pid() int {
	if e.p == nil || e.p.cmd.Process == nil {
		return 0
	}
	return e.p.cmd.Process.Pid
}

// sanitize makes action one command line of at most maxActionBytes bytes: a
// newline inside it would be read by the game as a second command.
func sanitize(action string) string {
	action = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r < ' ' {
			return ' '
		}
		return r
	}, action)
	action = strings.TrimSpace(action)
	if len(action) > maxActionBytes {
		action = action[:maxActionBytes]
		for len(action) > 0 && !utf8.ValidString(action) {
			action = action[:len(action)-1]
		}
	}
	return action
}

// startScore sets an episode's maximum score: the game's, or for seed 000's
// Cleaning games, which keep no score of their own, the Cleaning score's
// (counted from the items put in their right places). It reports whether
// the score is the Cleaning one.
func (e *Env) startScore(g *game) (cleaning bool) {
	e.maxScore = g.maxScore
	e.clean = nil
	if g.cleanRight == nil {
		return false
	}
	e.clean = NewCleaning(*g.cleanStart, *g.cleanRight)
	e.maxScore = e.clean.Max()
	return true
}
