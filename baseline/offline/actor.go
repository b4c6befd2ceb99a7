// Package offline holds the rules the baselines run on without a model: the
// history actor of the full-history and Reflexion baselines (SAMem's offline
// thinker with a rule that reads the episode's history, household progress
// read from the text by package belief) and Reflexion's rule-based
// reflection. Roles gives every baseline role, SAMem's offline summariser
// and thinker included.
package offline

import (
	"context"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/envbridge"
	sumoff "github.com/samem/trainer/summarize/offline"
	"github.com/samem/trainer/thought"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// Roles are the offline roles of every baseline.
func Roles() baseline.Offline {
	return baseline.Offline{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}, History: historyActor{}}
}

// historyActor is the offline actor of the full-history and Reflexion baselines:
// SAMem's offline thinker with a rule that reads the history: an action
// that had no effect in a situation is removed from the admissible list the
// next time that situation comes up (see tracker), and, where there is no
// list (free-form games), a proposal that had no effect here is asked
// again, up to three times. Reflexion's stored reflections, when they are
// this package's (Reflect), guide it: the stage lessons call for strategy
// thoughts, and the classes of action they name are avoided.
type historyActor struct{}

// Begin implements baseline.HistoryActor.
func (historyActor) Begin(s agent.Start, reflections []string) baseline.HistorySession {
	return &session{
		th:      thoughtoff.Thinker{}.Begin(s.Task, s.Style, s.Rand),
		lessons: readLessons(reflections),
		tr:      newTracker(s.Task, s.Style),
	}
}

type session struct {
	th      thought.Session
	lessons lessons
	tr      *tracker
}

// maxReasks bounds the offline actor's new proposals when its proposal had
// no effect here before (free-form games, where no list can be pruned).
const maxReasks = 3

// Act implements baseline.HistorySession.
func (e *session) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if len(e.tr.steps) == 0 {
		e.tr.observe("", obs.Text)
	}
	in := thought.Input{Obs: envbridge.Observation{Text: obs.Text, Admissible: e.tr.prune(obs.Admissible, e.lessons.avoid)}}
	if e.tr.b != nil {
		in.Guide = e.lessons.guide(e.tr.b)
	}
	d, err := e.th.Think(ctx, in)
	for i := 0; err == nil && obs.Admissible == nil && i < maxReasks && e.tr.isSpent(d.Action); i++ {
		d, err = e.th.Think(ctx, in)
	}
	if err != nil {
		return agent.Decision{}, err
	}
	return agent.Decision{Thought: d.Thought, Action: d.Action, Guided: in.Guide != "" && d.Thought == in.Guide}, nil
}

// Observe implements baseline.HistorySession.
func (e *session) Observe(action, text string) { e.tr.observe(action, text) }

// Reflect implements baseline.HistorySession: offlineReflection.
func (e *session) Reflect() string { return offlineReflection(e.tr) }
