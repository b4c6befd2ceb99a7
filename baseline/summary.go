package baseline

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// SummaryName is the iterative-summary baseline's name on the command line.
const SummaryName = "summary"

// SummaryConfig configures the iterative-summary baseline. Zero fields take
// the defaults.
type SummaryConfig struct {
	// SummaryMaxTokens bounds the summary update's reply; default 200. The
	// summary is also cut to summarize.MaxStateLen bytes by
	// summarize.ParseReply, which parses it.
	SummaryMaxTokens int `json:"summary_max_tokens,omitempty"`
	// Agent decides with the summary: AgentAriadne (default, seed 000
	// Sec. 4.2) or AgentActor.
	Agent Agent       `json:"agent,omitempty"`
	Actor ActorConfig `json:"actor,omitzero"`
}

// Summary is the agent whose memory is a running summary of the episode:
// after every step the model rewrites the summary with the latest action and
// observation (its own prompt, prompts/summary-*.tmpl), and the agent
// (Ariadne's planning and decision modules, or the one-call actor) sees the
// summary and the current observation instead of the history. Nothing
// carries over between episodes.
//
// Offline (Deps.Chat nil) the summary is Deps.Offline.Summarizer's state and
// the actor Deps.Offline.Thinker: with SAMem's offline roles (package
// baseline/offline's Roles) the thinker decides from the observation text
// alone and does not read the state, so offline this baseline decides
// exactly as NoMemory does with the same random source; it is there so that
// the LLM runs have an offline counterpart in the same reports.
type Summary struct {
	cfg   SummaryConfig
	chat  llm.Chatter
	actor *actor        // the one-call actor (AgentActor); nil offline
	ari   *ariadneAgent // the Ariadne agent (AgentAriadne); nil offline
	sum   summarize.Summarizer
	th    thought.Thinker
}

// NewSummary returns the iterative-summary baseline.
func NewSummary(cfg SummaryConfig, deps Deps) (*Summary, error) {
	cfg.Agent = cmp.Or(cfg.Agent, AgentAriadne)
	if cfg.SummaryMaxTokens < 0 || !cfg.Actor.valid() || !cfg.Agent.known() {
		return nil, fmt.Errorf("%w: %+v", ErrConfig, cfg)
	}
	cfg.SummaryMaxTokens = cmp.Or(cfg.SummaryMaxTokens, 200)
	cfg.Actor = cfg.Actor.withDefaults()
	s := &Summary{cfg: cfg, chat: deps.Chat}
	if deps.Chat != nil && cfg.Agent == AgentAriadne {
		s.ari = &ariadneAgent{chat: deps.Chat, emb: deps.Embed, temperature: cfg.Actor.Temperature, name: SummaryName}
	} else if deps.Chat != nil {
		s.actor = &actor{chat: deps.Chat, emb: deps.Embed, cfg: cfg.Actor, purpose: SummaryName + ".act"}
	} else if s.sum, s.th = deps.Offline.Summarizer, deps.Offline.Thinker; s.sum == nil || s.th == nil {
		return nil, fmt.Errorf("%w: %s: no model and no offline summariser and thinker", ErrConfig, SummaryName)
	}
	return s, nil
}

// Name implements agent.Method.
func (*Summary) Name() string { return SummaryName }

// Start implements agent.Method.
func (m *Summary) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	e := &summaryEpisode{m: m, start: s}
	if m.chat == nil {
		e.sum = m.sum.Begin(s.Task, s.Style)
		e.th = m.th.Begin(s.Task, s.Style, s.Rand)
	}
	return e, nil
}

type summaryEpisode struct {
	m       *Summary
	start   agent.Start
	summary string // the running summary, "" before the first observation
	last    string // the previous action
	plan    string // Ariadne's plan so far
	sum     summarize.Session
	th      thought.Session
}

// summaryMessages renders the summary update's prompt: the task, the summary
// so far ("" at the start), the latest action ("" at the start) and the
// observation it led to.
func summaryMessages(goal, summary, action, text string) ([]llm.Message, error) {
	sys, err := render("summary-system.tmpl", nil)
	if err != nil {
		return nil, err
	}
	user, err := render("summary-user.tmpl", struct{ Goal, Summary, Action, Text string }{goal, summary, action, text})
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

// update folds the latest action and observation into the summary.
func (e *summaryEpisode) update(ctx context.Context, obs envbridge.Observation) error {
	if e.m.chat == nil {
		s, err := e.sum.Summarize(ctx, e.last, obs)
		if err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		e.summary = s
		return nil
	}
	msgs, err := summaryMessages(e.start.Task.Goal, e.summary, e.last, obs.Text)
	if err != nil {
		return err
	}
	req := llm.Request{Purpose: SummaryName + ".update", Messages: msgs, MaxTokens: e.m.cfg.SummaryMaxTokens, Schema: summarize.Schema}
	var s string
	_, err = replyfmt.Ask(ctx, e.m.chat, req, 0, llm.FellBack, func(a replyfmt.Answer) (repaired bool, err error) {
		s, repaired, err = summarize.ParseAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		// No usable summary within the budget: the summary so far stays.
		return nil
	}
	if err != nil {
		return fmt.Errorf("summary update: %w", err)
	}
	e.summary = s
	return nil
}

// Act implements agent.Episode.
func (e *summaryEpisode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if err := e.update(ctx, obs); err != nil {
		return agent.Decision{}, err
	}
	var d thought.Decision
	var err error
	if e.m.ari != nil {
		d.Thought, d.Action, e.plan, err = e.m.ari.decide(ctx, ariadneView{
			Goal: e.start.Task.Goal, SummaryMode: true, Summary: e.summary,
			LastAction: e.last, Observation: obs.Text, Plan: e.plan, Actions: obs.Admissible,
		}, e.start.Rand)
	} else if e.m.actor != nil {
		d, err = e.m.actor.decide(ctx, e.start.Style, actorView{
			Goal: e.start.Task.Goal, Summary: e.summary,
			Current: Step{Action: e.last, Text: obs.Text}, Admissible: obs.Admissible,
		})
	} else {
		d, err = e.th.Think(ctx, thought.Input{State: e.summary, Obs: obs})
	}
	if err != nil {
		return agent.Decision{}, err
	}
	e.last = d.Action
	var r *agent.Recall
	if e.summary != "" {
		r = &agent.Recall{State: e.summary}
	}
	return agent.Decision{Thought: d.Thought, Action: d.Action, Recall: r}, nil
}

// Observe implements agent.Episode; the summary is updated in Act, which
// sees the observation the action led to.
func (e *summaryEpisode) Observe(context.Context, agent.Transition) error { return nil }

// Finish implements agent.Episode: nothing outlives the episode.
func (e *summaryEpisode) Finish(context.Context, agent.Outcome) error { return nil }
