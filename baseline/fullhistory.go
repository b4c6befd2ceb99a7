package baseline

import (
	"context"
	"errors"
	"fmt"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/thought"
)

// FullHistoryName is the full-history baseline's name on the command line.
const FullHistoryName = "fullhistory"

// DefaultMaxHistory is how many steps of the episode the actor's prompt
// carries: the household world's episodes are at most 50 steps, so there the
// prompt holds the whole trajectory; longer games keep the opening
// observation and the latest steps.
const DefaultMaxHistory = 50

// ErrConfig is returned (wrapped) by the constructors for an invalid
// configuration.
var ErrConfig = errors.New("baseline: invalid configuration")

// FullHistoryConfig configures the full-history baseline. Zero fields take
// the defaults.
type FullHistoryConfig struct {
	// MaxHistory bounds the steps (observations with the actions that led
	// to them, the current one included) in the actor's prompt; default
	// DefaultMaxHistory. The opening observation is always kept.
	MaxHistory int         `json:"max_history,omitempty"`
	Actor      ActorConfig `json:"actor,omitzero"`
}

// FullHistory is the agent whose memory is the episode itself: the actor
// sees every observation and action of the episode so far, and nothing
// carries over between episodes.
//
// Offline (Deps.Chat nil) the actor is thought.Offline with a rule that
// reads the history: an action that had no effect in a situation is removed
// from the admissible list the next time that situation comes up (see
// tracker), and, where there is no list (free-form games), a proposal that
// had no effect here is asked again, up to three times.
type FullHistory struct {
	cfg   FullHistoryConfig
	actor *actor // nil offline
}

// NewFullHistory returns the full-history baseline.
func NewFullHistory(cfg FullHistoryConfig, deps Deps) (*FullHistory, error) {
	if cfg.MaxHistory < 0 || !cfg.Actor.valid() {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	if cfg.MaxHistory == 0 {
		cfg.MaxHistory = DefaultMaxHistory
	}
	cfg.Actor = cfg.Actor.withDefaults()
	f := &FullHistory{cfg: cfg}
	if deps.Chat != nil {
		f.actor = &actor{chat: deps.Chat, emb: deps.Embed, cfg: cfg.Actor, purpose: FullHistoryName + ".act"}
	}
	return f, nil
}

// Name implements agent.Method.
func (*FullHistory) Name() string { return FullHistoryName }

// Start implements agent.Method.
func (f *FullHistory) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	return newHistoryEpisode(s, f.actor, f.cfg.MaxHistory, nil), nil
}

// historyEpisode is an episode whose actor sees the whole history, and, for
// reflexion, the reflections of earlier failed trials.
type historyEpisode struct {
	start       agent.Start
	actor       *actor // nil offline
	maxHistory  int
	reflections []string
	lessons     lessons
	tr          *tracker
	th          thought.Session // offline thinker
}

func newHistoryEpisode(s agent.Start, a *actor, maxHistory int, reflections []string) *historyEpisode {
	e := &historyEpisode{start: s, actor: a, maxHistory: maxHistory, reflections: reflections, tr: newTracker(s.Task, s.Style)}
	if a == nil {
		e.th = thought.Offline{}.Begin(s.Task, s.Style, s.Rand)
		e.lessons = readLessons(reflections)
	}
	return e
}

// maxReasks bounds the offline actor's new proposals when its proposal had
// no effect here before (free-form games, where no list can be pruned).
const maxReasks = 3

// Act implements agent.Episode.
func (e *historyEpisode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if len(e.tr.steps) == 0 {
		e.tr.observe("", obs.Text)
	}
	if e.actor != nil {
		steps := e.tr.steps
		hist, omitted := window(steps[:len(steps)-1], e.maxHistory-1)
		d, err := e.actor.decide(ctx, e.start.Style, View{
			Goal: e.start.Task.Goal, Reflections: e.reflections,
			History: hist, Omitted: omitted, Current: steps[len(steps)-1], Admissible: obs.Admissible,
		})
		if err != nil {
			return agent.Decision{}, err
		}
		return agent.Decision{Thought: d.Thought, Action: d.Action, Guided: len(e.reflections) > 0}, nil
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

// Observe implements agent.Episode.
func (e *historyEpisode) Observe(_ context.Context, t agent.Transition) error {
	e.tr.observe(t.Decision.Action, t.Result.Text)
	return nil
}

// Finish implements agent.Episode: nothing outlives a full-history episode.
func (e *historyEpisode) Finish(context.Context, agent.Outcome) error { return nil }
