package baseline

import (
	"context"
	"errors"
	"fmt"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// FullHistoryName is the full-history baseline's name on the command line.
const FullHistoryName = "fullhistory"

// defaultMaxHistory is how many steps of the episode the actor's prompt
// carries: the household world's episodes are at most 50 steps, so there the
// prompt holds the whole trajectory; longer games keep the opening
// observation and the latest steps.
const defaultMaxHistory = 50

// ErrConfig is returned (wrapped) by the constructors for an invalid
// configuration.
var ErrConfig = errors.New("baseline: invalid configuration")

// FullHistoryConfig configures the full-history baseline. Zero fields take
// the defaults.
type FullHistoryConfig struct {
	// MaxHistory bounds the steps (observations with the actions that led
	// to them, the current one included) in the actor's prompt; default
	// defaultMaxHistory. The opening observation is always kept.
	MaxHistory int         `json:"max_history,omitempty"`
	Actor      ActorConfig `json:"actor,omitzero"`
}

// FullHistory is the agent whose memory is the episode itself: the actor
// sees every observation and action of the episode so far, and nothing
// carries over between episodes.
//
// Offline (Deps.Chat nil) the actor is Deps.Offline.History (package
// baseline/offline: SAMem's offline thinker with a rule that reads the
// history).
type FullHistory struct {
	cfg     FullHistoryConfig
	actor   *actor       // nil offline
	offline HistoryActor // nil with a model
}

// NewFullHistory returns the full-history baseline.
func NewFullHistory(cfg FullHistoryConfig, deps Deps) (*FullHistory, error) {
	if cfg.MaxHistory < 0 || !cfg.Actor.valid() {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	if cfg.MaxHistory == 0 {
		cfg.MaxHistory = defaultMaxHistory
	}
	cfg.Actor = cfg.Actor.withDefaults()
	f := &FullHistory{cfg: cfg}
	if deps.Chat != nil {
		f.actor = &actor{chat: deps.Chat, emb: deps.Embed, cfg: cfg.Actor, purpose: FullHistoryName + ".act"}
	} else if f.offline = deps.Offline.History; f.offline == nil {
		return nil, fmt.Errorf("%w: %s: no model and no offline actor", ErrConfig, FullHistoryName)
	}
	return f, nil
}

// Name implements agent.Method.
func (*FullHistory) Name() string { return FullHistoryName }

// Start implements agent.Method.
func (f *FullHistory) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	return newHistoryEpisode(s, f.actor, f.offline, f.cfg.MaxHistory, nil), nil
}

// historyEpisode is an episode whose actor sees the whole history, and, for
// reflexion, the reflections of earlier failed trials.
type historyEpisode struct {
	start       agent.Start
	actor       *actor // nil offline
	maxHistory  int
	reflections []string
	steps       []Step         // the episode so far, the opening observation first
	offline     HistorySession // nil with a model
}

func newHistoryEpisode(s agent.Start, a *actor, off HistoryActor, maxHistory int, reflections []string) *historyEpisode {
	e := &historyEpisode{start: s, actor: a, maxHistory: maxHistory, reflections: reflections}
	if a == nil {
		e.offline = off.Begin(s, reflections)
	}
	return e
}

// Act implements agent.Episode.
func (e *historyEpisode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if len(e.steps) == 0 {
		e.steps = append(e.steps, Step{Text: obs.Text})
	}
	if e.actor == nil {
		return e.offline.Act(ctx, obs)
	}
	hist, omitted := window(e.steps[:len(e.steps)-1], e.maxHistory-1)
	d, err := e.actor.decide(ctx, e.start.Style, actorView{
		Goal: e.start.Task.Goal, Reflections: e.reflections,
		History: hist, Omitted: omitted, Current: e.steps[len(e.steps)-1], Admissible: obs.Admissible,
	})
	if err != nil {
		return agent.Decision{}, err
	}
	return agent.Decision{Thought: d.Thought, Action: d.Action, Guided: len(e.reflections) > 0}, nil
}

// Observe implements agent.Episode.
func (e *historyEpisode) Observe(_ context.Context, t agent.Transition) error {
	e.steps = append(e.steps, Step{Action: t.Decision.Action, Text: t.Result.Text})
	if e.offline != nil {
		e.offline.Observe(t.Decision.Action, t.Result.Text)
	}
	return nil
}

// Finish implements agent.Episode: nothing outlives a full-history episode.
func (e *historyEpisode) Finish(context.Context, agent.Outcome) error { return nil }
