package zmachine

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/samem/trainer/envbridge"
)

// ReplayOptions configure Replay.
type ReplayOptions struct {
	// Check asks the game its score after every step (the score command,
	// played on the machine and undone) and compares score, maximum and
	// moves with what the step reported.
	Check bool
	// Valid computes the valid actions before every step, on one machine,
	// times the search, and measures whether the list holds the command
	// played next.
	Valid bool
	// ValidEvery measures the valid actions at every ValidEvery-th step
	// only (0 or 1: at every step), for a quicker estimate.
	ValidEvery int
	// MaxSteps is the step limit; 0: none (the whole script is played,
	// whatever the task's own limit).
	MaxSteps int
}

// ReplayResult is what Replay saw.
type ReplayResult struct {
	Task    string
	Planned int                  // commands given
	Played  int                  // commands played before the episode ended
	Last    envbridge.StepResult // the last step's result
	Moves   int                  // the game's moves at the end, when MovesKnown
	// MovesKnown: the driver reads the game's move counter.
	MovesKnown bool

	// Check: steps compared with the game's own answer, and the
	// differences found (at most maxMismatches, described).
	Checked    int
	Mismatches []string

	// Valid: the recall of the valid actions over the steps.
	Recall Recall
}

// Recall counts, over the steps of a replay, whether the valid actions held
// the command played next. A step "acts" when its command changes the
// world (the object tree or the score) from the state the list was made
// in, and "changes the tree" when it changes the object tree. The command
// is "listed" when the list holds it up to the normalisation of
// NormalizeCommand, and "matched" when it is listed or a listed action leads
// to exactly the world the command leads to (a synonym: "get lamp" for the
// list's "take lantern").
type Recall struct {
	Steps       int // steps where the list was made
	TreeSteps   int // of those, steps whose command changes the object tree
	TreeListed  int
	TreeMatched int
	ActSteps    int // steps whose command changes the tree or the score
	ActListed   int
	ActMatched  int
	EmptyActs   int             // steps that act where the list was empty
	Times       []time.Duration // the search's time per step (one machine, wall clock)
	// CPUTimes is the search's CPU time per step (its thread's, on Linux;
	// empty elsewhere): on a machine shared with other work, the wall
	// clock also counts the waits for a core.
	CPUTimes []time.Duration
	// Instructions is the Z-machine instructions each search ran (all of
	// them: the candidates', the look and wait that mask what a turn
	// changes anyway, the player's moves), which no other work changes.
	Instructions []uint64
	Candidates   int      // candidates tried, summed over the steps
	Misses       []string // tree-changing steps not matched (at most maxMisses)
}

// Add adds r's counts to c.
func (c *Recall) Add(r Recall) {
	c.Steps += r.Steps
	c.TreeSteps += r.TreeSteps
	c.TreeListed += r.TreeListed
	c.TreeMatched += r.TreeMatched
	c.ActSteps += r.ActSteps
	c.ActListed += r.ActListed
	c.ActMatched += r.ActMatched
	c.EmptyActs += r.EmptyActs
	c.Candidates += r.Candidates
	c.Times = append(c.Times, r.Times...)
	c.CPUTimes = append(c.CPUTimes, r.CPUTimes...)
	c.Instructions = append(c.Instructions, r.Instructions...)
}

const (
	maxMismatches = 20
	maxMisses     = 400
)

// Replay resets env with task and plays commands in order, as a player would
// type them (cmd/play -commands plays the same way), until the episode
// ends or the commands run out; opts add the per-step checks. It needs the
// in-process interpreter.
func Replay(ctx context.Context, env *Env, task envbridge.Task, commands []string, opts ReplayOptions) (ReplayResult, error) {
	res := ReplayResult{Task: task.ID, Planned: len(commands)}
	task.MaxSteps = opts.MaxSteps
	if task.MaxSteps <= 0 {
		task.MaxSteps = math.MaxInt32
	}
	if env.suite.cfg.dfrotz() {
		return res, fmt.Errorf("zmachine replay: needs the in-process interpreter")
	}
	if _, err := env.Reset(ctx, task); err != nil {
		return res, err
	}
	check := func(step int, action string, score, max float64, text string, done bool) {
		if !opts.Check {
			return
		}
		var (
			r  Report
			ok bool
		)
		after := score
		if done {
			// The game has ended: its final report, when it gives one.
			r, ok = env.vm.answer(text)
		} else {
			r, after, ok = env.vm.askScoreAfter(score)
		}
		// "out of a possible 0": the game keeps no score.
		if !ok || r.Max == 0 {
			return
		}
		res.Checked++
		moves, known := env.Moves()
		var diff []string
		// The answer may count what the question's own turn scored.
		if r.Score != score && r.Score != after {
			diff = append(diff, fmt.Sprintf("score %v, the game says %v", score, r.Score))
		}
		if r.Max > 0 && r.Max != max {
			diff = append(diff, fmt.Sprintf("max %v, the game says %v", max, r.Max))
		}
		if r.HasMoves && !done && (!known || moves != r.Moves) {
			if known {
				diff = append(diff, fmt.Sprintf("moves %d, the game says %d", moves, r.Moves))
			} else {
				diff = append(diff, fmt.Sprintf("moves unknown, the game says %d", r.Moves))
			}
		}
		if len(diff) > 0 && len(res.Mismatches) < maxMismatches {
			res.Mismatches = append(res.Mismatches, fmt.Sprintf("step %d %q: %s", step, action, strings.Join(diff, "; ")))
		}
	}
	check(0, "(opening)", env.score, env.maxScore, "", false)
	for i, c := range commands {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if opts.Valid && (opts.ValidEvery <= 1 || i%opts.ValidEvery == 0) {
			res.Recall.observe(env, c)
		}
		r, err := env.Step(ctx, c)
		if err != nil {
			return res, fmt.Errorf("step %d %q: %w", i+1, c, err)
		}
		res.Played, res.Last = i+1, r
		check(i+1, c, r.Score, r.MaxScore, r.Text, r.Done)
		if r.Done {
			break
		}
	}
	res.Moves, res.MovesKnown = env.Moves()
	return res, nil
}

// observe makes the valid-action list of env's state on one machine, plays
// next from the same state, and counts the step.
func (c *Recall) observe(env *Env, next string) {
	runtime.LockOSThread()
	cpu0, cpuOK := threadCPU()
	ex0 := env.vm.m.Executed()
	t0 := time.Now()
	sr, err := env.search(1, []string{sanitize(next)}, false)
	took := time.Since(t0)
	ex := env.vm.m.Executed() - ex0
	cpu1, _ := threadCPU()
	runtime.UnlockOSThread()
	if err != nil || len(sr.extra) == 0 || !sr.extraOK[0] {
		return
	}
	c.Steps++
	c.Times = append(c.Times, took)
	c.Instructions = append(c.Instructions, ex)
	if cpuOK {
		c.CPUTimes = append(c.CPUTimes, cpu1-cpu0)
	}
	c.Candidates += sr.tried
	k := sr.extra[0]
	tree, acts := k.tree != sr.base.tree, k != sr.base
	listed := slices.Contains(normalizeAll(sr.actions), NormalizeCommand(next))
	matched := listed || slices.Contains(sr.keys, k)
	if acts {
		c.ActSteps++
		if listed {
			c.ActListed++
		}
		if matched {
			c.ActMatched++
		}
		if len(sr.actions) == 0 {
			c.EmptyActs++
		}
	}
	if tree {
		c.TreeSteps++
		if listed {
			c.TreeListed++
		}
		if matched {
			c.TreeMatched++
		} else if len(c.Misses) < maxMisses {
			why := "not a candidate"
			nc := NormalizeCommand(next)
			for i, cand := range env.candidates() {
				if NormalizeCommand(cand) == nc {
					why = fmt.Sprintf("candidate %d of %d, %d tried", i+1, sr.candidates, sr.tried)
					break
				}
			}
			c.Misses = append(c.Misses, fmt.Sprintf("%q (%s) not in %q", next, why, sr.actions))
		}
	}
}

func normalizeAll(actions []string) []string {
	out := make([]string, len(actions))
	for i, a := range actions {
		out[i] = NormalizeCommand(a)
	}
	return out
}

// commandWords maps the usual abbreviations and synonyms of commands to
// one word: directions, x/examine, get/take, l/look, i/inventory, z/wait.
var commandWords = map[string]string{
	"n": "north", "s": "south", "e": "east", "w": "west", "ne": "northeast", "nw": "northwest",
	"se": "southeast", "sw": "southwest", "u": "up", "d": "down",
	"x": "examine", "get": "take", "l": "look", "i": "inventory", "inv": "inventory", "z": "wait",
}

// NormalizeCommand is the form commands are compared in: lower case, one
// space between words, articles (the, a, an) dropped, and the usual
// abbreviations written out (n/north, x/examine, get/take, l/look,
// i/inventory, z/wait); "go north" is "north".
func NormalizeCommand(c string) string {
	ws := strings.Fields(strings.ToLower(c))
	out := ws[:0]
	for _, w := range ws {
		switch w {
		case "the", "a", "an":
			continue
		}
		if v, ok := commandWords[w]; ok {
			w = v
		}
		out = append(out, w)
	}
	if len(out) == 2 && (out[0] == "go" || out[0] == "walk") && slices.Contains(validMoves, out[1]) {
		out = out[1:]
	}
	return strings.Join(out, " ")
}
