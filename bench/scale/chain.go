package scale

import (
	"context"
	"fmt"

	"github.com/samem/trainer/envbridge"
)

// chainSuite is a world of corridors: task i is a chain of Length rooms
// walked with the one admissible action "advance"; reaching the end wins
// (reward 1). Every text names its task (and the suite's Tag), so no two
// episodes share a state unless SharedStart makes the first room common to
// all tasks. It costs nothing to step, so episode time is model time.
type chainSuite struct {
	N           int
	Length      int // steps to the end (>= 1)
	Tag         string
	SharedStart bool
}

func (c *chainSuite) Name() string           { return "chain" }
func (c *chainSuite) Style() envbridge.Style { return envbridge.StyleHousehold }
func (c *chainSuite) Splits() []string       { return []string{envbridge.SplitTrain} }
func (c *chainSuite) Open(context.Context) (envbridge.Env, error) {
	return &chainEnv{s: c, pos: -1}, nil
}

func (c *chainSuite) Tasks(split string) ([]envbridge.Task, error) {
	if split != envbridge.SplitTrain {
		return nil, fmt.Errorf("chain: %w: %q", envbridge.ErrUnknownSplit, split)
	}
	ts := make([]envbridge.Task, c.N)
	for i := range ts {
		ts[i] = envbridge.Task{ID: fmt.Sprintf("chain-%03d", i), Type: "chain", Split: split,
			Goal: fmt.Sprintf("Walk to the end of corridor %d.", i), Seed: int64(i),
			MaxSteps: c.Length + 2, OracleSteps: c.Length}
	}
	return ts, nil
}

type chainEnv struct {
	s      *chainSuite
	task   int
	pos    int // -1 before Reset, Length when done
	closed bool
}

var advance = []string{"advance"}

func (e *chainEnv) text(pos int) string {
	switch {
	case pos == 0 && e.s.SharedStart:
		return fmt.Sprintf("You are in the lobby %s.", e.s.Tag)
	case pos >= e.s.Length:
		return fmt.Sprintf("You reached the end of corridor %d %s.", e.task, e.s.Tag)
	}
	return fmt.Sprintf("You are in room %d of corridor %d %s.", pos, e.task, e.s.Tag)
}

func (e *chainEnv) Reset(_ context.Context, t envbridge.Task) (envbridge.Observation, error) {
	if e.closed {
		return envbridge.Observation{}, envbridge.ErrClosed
	}
	var i int
	if _, err := fmt.Sscanf(t.ID, "chain-%d", &i); err != nil || i < 0 || i >= e.s.N {
		return envbridge.Observation{}, fmt.Errorf("chain: %w: %q", envbridge.ErrUnknownTask, t.ID)
	}
	e.task, e.pos = i, 0
	return envbridge.Observation{Text: e.text(0), Admissible: advance}, nil
}

func (e *chainEnv) Step(_ context.Context, action string) (envbridge.StepResult, error) {
	switch {
	case e.closed:
		return envbridge.StepResult{}, envbridge.ErrClosed
	case e.pos < 0 || e.pos >= e.s.Length:
		return envbridge.StepResult{}, envbridge.ErrEpisodeOver
	}
	if action != "advance" {
		return envbridge.StepResult{Observation: envbridge.Observation{Text: "Nothing happens.", Admissible: advance}}, nil
	}
	e.pos++
	r := envbridge.StepResult{Observation: envbridge.Observation{Text: e.text(e.pos), Admissible: advance}, MaxScore: 1}
	if e.pos == e.s.Length {
		r.Reward, r.Score, r.Done, r.Won = 1, 1, true, true
		r.Admissible = nil
	}
	return r, nil
}

func (e *chainEnv) Close() error { e.closed = true; return nil }
