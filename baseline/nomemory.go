// Package baseline holds the plain baselines the memory methods are compared
// with: no memory, full history, iterative summary and Reflexion-style
// reflections (seed 002 Sec. 4.1.1 and B.2; seed 000 Sec. 4).
package baseline

import (
	"context"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// NoMemory is the agent without memory: the same summariser and thinker as
// SAMem, never guided, learning nothing. Comparing with it isolates what a
// memory adds.
type NoMemory struct {
	Summarizer summarize.Summarizer
	Thinker    thought.Thinker
}

// NoMemoryName is the method's name on the command line.
const NoMemoryName = "nomemory"

// Name implements agent.Method.
func (NoMemory) Name() string { return NoMemoryName }

// Start implements agent.Method.
func (b NoMemory) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	return &noMemoryEpisode{sum: b.Summarizer.Begin(s.Task, s.Style), th: b.Thinker.Begin(s.Task, s.Style, s.Rand)}, nil
}

type noMemoryEpisode struct {
	sum  summarize.Session
	th   thought.Session
	last string
}

func (e *noMemoryEpisode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	state, err := e.sum.Summarize(ctx, e.last, obs)
	if err != nil {
		return agent.Decision{}, err
	}
	d, err := e.th.Think(ctx, thought.Input{State: state, Obs: obs})
	if err != nil {
		return agent.Decision{}, err
	}
	e.last = d.Action
	return agent.Decision{Thought: d.Thought, Action: d.Action}, nil
}

func (e *noMemoryEpisode) Observe(context.Context, agent.Transition) error { return nil }
func (e *noMemoryEpisode) Finish(context.Context, agent.Outcome) error     { return nil }
