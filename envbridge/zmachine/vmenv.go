package zmachine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/samem/trainer/envbridge"
)

// startVM starts g on a fresh in-process machine with seed, plays the
// opening (answering key waits) and the binding's intro commands (whose
// output is dropped), and returns the game and its opening text.
func (s *Suite) startVM(g *game, seed int64) (*vmGame, string, error) {
	m, err := loadVM(g.story, seed, s.cfg.Budget)
	if err != nil {
		return nil, "", err
	}
	vg := &vmGame{m: m, b: g.binding, from: g.from, scoreGlobal: g.scoreGlobal, movesGlobal: g.movesGlobal}
	opening, err := vg.runOpening()
	if err != nil {
		return nil, "", fmt.Errorf("opening: %w", err)
	}
	for _, cmd := range g.binding.Intro {
		if vg.halted || vg.waitKey {
			break
		}
		if err := vg.input(cmd); err != nil {
			return nil, "", fmt.Errorf("intro %q: %w", cmd, err)
		}
		if _, err := vg.runOpening(); err != nil {
			return nil, "", fmt.Errorf("intro %q: %w", cmd, err)
		}
	}
	return vg, opening, nil
}

// seedOf is the seed a game is played with: its binding's, unless the
// configuration forces its own.
func (s *Suite) seedOf(g *game, taskSeed int64) int64 {
	if g.binding.Seed != nil && !s.cfg.ForceSeed {
		return *g.binding.Seed
	}
	return taskSeed
}

// resetVM starts an episode in-process.
func (e *Env) resetVM(t envbridge.Task, g *game) (envbridge.Observation, error) {
	vg, opening, err := e.suite.startVM(g, e.suite.seedOf(g, t.Seed))
	if err != nil {
		return envbridge.Observation{}, fmt.Errorf("zmachine reset %s: %w", t.ID, err)
	}
	e.vm = vg
	if !e.startScore(g) {
		if sc, ok := vg.score(opening, 0, false); ok {
			e.score = sc
		}
	}
	e.started, e.done = true, false
	if g.textworld {
		_, opening = splitBanner(opening)
	}
	obs := envbridge.Observation{Text: e.observe(opening)}
	e.roomTexts, e.roomBytes, e.lastRoom = nil, 0, ""
	e.refused, e.pending, e.names, e.lastAction = nil, nil, nil, ""
	e.refusedHeld, e.pendingHeld, e.everHeld = nil, nil, nil
	e.quoted, e.worked, e.workedNext, e.numbers = nil, nil, nil, nil
	e.played, e.playedPending = 0, 0
	e.noteText(obs.Text, roomOf(vg.status))
	if e.suite.cfg.ValidActions {
		obs.Admissible = e.validOrNil()
	}
	return obs, nil
}

// observe cleans a turn's text, and shows a key wait left to the agent.
func (e *Env) observe(text string) string {
	if e.vm != nil && e.vm.waitKey {
		var menu []string
		if isMenu(e.vm.status, e.vm.lineStatus) {
			menu = e.vm.status
		}
		return Clean(keyWaitText(menu, text))
	}
	return Clean(text)
}

// stepVM plays one action in-process.
func (e *Env) stepVM(ctx context.Context, action string) (envbridge.StepResult, error) {
	if err := ctx.Err(); err != nil {
		return envbridge.StepResult{}, e.fail(fmt.Errorf("zmachine step %q: %w", action, err))
	}
	vg := e.vm
	e.keepRefusals()
	atKey := vg.waitKey
	upper := strings.Join(vg.status, "\n")
	var (
		out string
		err error
	)
	if atKey {
		out, err = vg.typeKeys(action)
	} else if err = vg.input(action); err == nil {
		out, err = vg.run()
	}
	if err != nil {
		return envbridge.StepResult{}, e.fail(fmt.Errorf("zmachine step %q: %w", action, err))
	}
	e.steps++
	// A key that changed nothing, not even a menu drawn in the upper
	// window, is said to be ignored.
	if atKey && vg.waitKey && strings.TrimSpace(out) == "" && strings.Join(vg.status, "\n") == upper {
		out = "[The game did not answer that key.]"
	}
	prev := e.score
	end := vg.ending(out)
	if e.clean != nil {
		e.score += e.clean.Step(action, out)
	} else if sc, ok := vg.score(out, prev, end == EndWon); ok {
		e.score = sc
	}
	// A game that ends with every point it has to give is won, whatever
	// its closing words (Infocom's endings print no banner; Inform games
	// print their own: "*** You have saved your job ***").
	if end == EndOther && e.maxScore > 0 && e.score >= e.maxScore {
		end = EndWon
	}
	res := envbridge.StepResult{Observation: envbridge.Observation{Text: e.observe(out)}}
	e.lastAction = action
	e.noteText(res.Text, roomOf(vg.status))
	if end != EndNone {
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
	if e.suite.cfg.ValidActions && !res.Done {
		res.Admissible = e.validOrNil()
	}
	return res, nil
}

// validOrNil returns the valid actions, or an empty list when none is found.
func (e *Env) validOrNil() []string {
	va, err := e.ValidActions()
	if err != nil || va == nil {
		return []string{}
	}
	return va
}

// saveVM writes the machine's state as a Quetzal file in the private
// directory.
func (e *Env) saveVM(name string) error {
	b, err := e.vm.m.SaveQuetzal()
	if err != nil {
		return fmt.Errorf("zmachine save %s: %w", name, err)
	}
	path := filepath.Join(e.dir, name+".qzl")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("zmachine save %s: %w", name, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("zmachine save %s: %w", name, err)
	}
	return nil
}

// restoreVM reads a Quetzal file saved by saveVM.
func (e *Env) restoreVM(name string) error {
	b, err := os.ReadFile(filepath.Join(e.dir, name+".qzl"))
	if err != nil {
		return fmt.Errorf("zmachine restore %s: %w", name, err)
	}
	if err := e.vm.m.RestoreQuetzal(b); err != nil {
		return fmt.Errorf("zmachine restore %s: %w", name, err)
	}
	e.vm.halted, e.vm.waitKey = false, false
	// A restored machine continues from the save: the game waits for the
	// next command. The score is read as after a turn.
	e.vm.m.Output()
	if sc, ok := e.vm.score("", e.score, false); ok {
		e.score = sc
	}
	e.done = false
	return nil
}

// Moves returns the game's own move count as the machine holds it; ok is
// false when the game keeps none the driver can read (or under dfrotz).
func (e *Env) Moves() (n int, ok bool) {
	if e.vm == nil {
		return 0, false
	}
	return e.vm.moves, e.vm.movesKnown
}

// StatusLine returns the upper window (the status line) as the game last
// drew it, kept apart from the observation's text; nil for dfrotz.
func (e *Env) StatusLine() []string {
	if e.vm == nil {
		return nil
	}
	return append([]string(nil), e.vm.status...)
}

// maxNounText bounds the text valid actions read nouns from.
const maxNounText = 8 << 10

// noteText keeps the observations since the player entered the room the
// status line names (valid actions read the nouns they name), at most
// maxNounText bytes of the latest.
func (e *Env) noteText(text, room string) {
	e.lastText = text
	e.names = noteNames(e.names, text)
	e.quoted = noteQuoted(e.quoted, text)
	e.numbers = noteNumbers(e.numbers, text)
	if room == "" || room != e.lastRoom {
		e.roomTexts, e.roomBytes, e.lastRoom = e.roomTexts[:0], 0, room
	}
	e.roomTexts = append(e.roomTexts, text)
	e.roomBytes += len(text)
	for len(e.roomTexts) > 1 && e.roomBytes > maxNounText {
		e.roomBytes -= len(e.roomTexts[0])
		e.roomTexts = e.roomTexts[1:]
	}
}

// roomOf is the room the status line names: its first line up to a run of
// spaces.
func roomOf(status []string) string {
	if len(status) == 0 {
		return ""
	}
	l := strings.TrimSpace(status[0])
	if i := strings.Index(l, "   "); i >= 0 {
		l = l[:i]
	}
	return l
}

// Score returns the score and the maximum as they stand (after Reset: the
// opening's, which some games already award).
func (e *Env) Score() (score, max float64) { return e.score, e.maxScore }
