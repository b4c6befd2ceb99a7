package baseline

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// FullHistoryName is the full-history baseline's name on the command line.
const FullHistoryName = "fullhistory"

// ErrConfig is returned (wrapped) by the constructors for an invalid
// configuration.
var ErrConfig = errors.New("baseline: invalid configuration")

// FullHistoryConfig configures the full-history baseline. Zero fields take
// the defaults.
type FullHistoryConfig struct {
	// MaxHistory bounds the steps (observations with the actions that led
	// to them, the current one included) in the prompt; 0 (default) keeps
	// the whole episode, as seed 000 Sec. 4.2's full history does. The
	// opening observation is always kept.
	MaxHistory int `json:"max_history,omitempty"`
	// Agent decides with the history: AgentAriadne (default, seed 000
	// Sec. 4.2) or AgentActor.
	Agent Agent       `json:"agent,omitempty"`
	Actor ActorConfig `json:"actor,omitzero"`
}

// FullHistory is the agent whose memory is the episode itself: the agent
// (Ariadne's planning and decision modules, or the one-call actor) sees
// every observation and action of the episode so far, and nothing carries
// over between episodes.
//
// Offline (Deps.Chat nil) the actor is Deps.Offline.History (package
// baseline/offline: SAMem's offline thinker with a rule that reads the
// history).
type FullHistory struct {
	cfg     FullHistoryConfig
	actor   *actor        // the one-call actor (AgentActor); nil offline
	ari     *ariadneAgent // the Ariadne agent (AgentAriadne); nil offline
	offline HistoryActor  // nil with a model
}

// NewFullHistory returns the full-history baseline.
func NewFullHistory(cfg FullHistoryConfig, deps Deps) (*FullHistory, error) {
	cfg.Agent = cmp.Or(cfg.Agent, AgentAriadne)
	if cfg.MaxHistory < 0 || !cfg.Actor.valid() || !cfg.Agent.known() {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	cfg.Actor = cfg.Actor.withDefaults()
	f := &FullHistory{cfg: cfg}
	if deps.Chat != nil && cfg.Agent == AgentAriadne {
		f.ari = &ariadneAgent{chat: deps.Chat, emb: deps.Embed, temperature: cfg.Actor.Temperature, name: FullHistoryName}
	} else if deps.Chat != nil {
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
	e := newHistoryEpisode(s, f.actor, f.offline, f.cfg.MaxHistory, nil)
	e.ari = f.ari
	return e, nil
}

// historyEpisode is an episode whose actor sees the whole history, and, for
// reflexion, the reflections of earlier failed trials.
type historyEpisode struct {
	start       agent.Start
	actor       *actor        // nil offline or with ari
	ari         *ariadneAgent // the Ariadne agent; nil otherwise
	plan        string        // Ariadne's plan so far
	maxHistory  int
	reflections []string
	steps       []Step         // the episode so far, the opening observation first
	offline     HistorySession // nil with a model
	// shown are the reflections as the decisions' Recall lists them (with
	// their sequence numbers and tasks); nil when there are none.
	shown *agent.Recall
}

func newHistoryEpisode(s agent.Start, a *actor, off HistoryActor, maxHistory int, reflections []string) *historyEpisode {
	e := &historyEpisode{start: s, actor: a, maxHistory: maxHistory, reflections: reflections}
	if a == nil && off != nil {
		e.offline = off.Begin(s, reflections)
	}
	return e
}

// Act implements agent.Episode.
func (e *historyEpisode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if len(e.steps) == 0 {
		e.steps = append(e.steps, Step{Text: obs.Text})
	}
	if e.ari != nil {
		hist, omitted := window(e.steps[:len(e.steps)-1], e.maxHistory-1)
		cur := e.steps[len(e.steps)-1]
		reason, action, plan, err := e.ari.decide(ctx, ariadneView{
			Goal: e.start.Task.Goal, History: hist, Omitted: omitted,
			LastAction: cur.Action, Observation: cur.Text, Plan: e.plan, Actions: obs.Admissible,
		}, e.start.Rand)
		if err != nil {
			return agent.Decision{}, err
		}
		e.plan = plan
		return agent.Decision{Thought: reason, Action: action}, nil
	}
	if e.actor == nil {
		d, err := e.offline.Act(ctx, obs)
		if err == nil {
			d.Recall = e.shown
		}
		return d, err
	}
	hist, omitted := window(e.steps[:len(e.steps)-1], e.maxHistory-1)
	d, err := e.actor.decide(ctx, e.start.Style, actorView{
		Goal: e.start.Task.Goal, Reflections: e.reflections,
		History: hist, Omitted: omitted, Current: e.steps[len(e.steps)-1], Admissible: obs.Admissible,
	})
	if err != nil {
		return agent.Decision{}, err
	}
	return agent.Decision{Thought: d.Thought, Action: d.Action, Guided: len(e.reflections) > 0, Recall: e.shown}, nil
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
