package thought

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	replyfmt "github.com/samem/trainer/internal/reply"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// PurposeAct is the accounting name of the action call of the two-call
// pipeline (the thought call keeps Purpose).
const PurposeAct = "act"

// twoCallSession is seed 002's pipeline (Sec. 3.1, Eq. 3): the thought is
// generated from the state alone, th_t <- LLM(s_t) (with the stored thought
// as guidance when exploiting, Eq. 6), and the action is then generated from
// that thought: "The LLM agent then generates the corresponding action a_t
// based on reasoning thought th_t". The paper does not show the action
// prompt; here the action call sees the task, the thought, the current
// observation and the admissible actions, which it needs to name an action
// of this scene (a choice where the paper is silent).
type twoCallSession struct {
	cfg   *LLM
	goal  string
	style envbridge.Style
}

// ThoughtMessages renders the first call: the system prompt of Fig. 13-15
// asking for the thought only, and the task, the state and the guidance.
// Neither the raw observation nor the admissible list is shown (Eq. 3).
func ThoughtMessages(style envbridge.Style, goal string, in Input) ([]llm.Message, error) {
	var sys, user bytes.Buffer
	if err := systemPrompt(&sys, style, in.Obs.Admissible, true); err != nil {
		return nil, err
	}
	data := struct {
		Goal, State, Guide string
		GuideIsAction      bool
	}{goal, in.State, in.Guide, in.GuideIsAction}
	if err := prompts.ExecuteTemplate(&user, "think_user.tmpl", data); err != nil {
		return nil, fmt.Errorf("render think_user.tmpl: %w", err)
	}
	return []llm.Message{
		{Role: "system", Content: strings.TrimSpace(sys.String())},
		{Role: "user", Content: strings.TrimSpace(user.String())},
	}, nil
}

// ActMessages renders the second call: the action that carries out thought.
func ActMessages(goal, thought string, obs envbridge.Observation) ([]llm.Message, error) {
	var sys, user bytes.Buffer
	if err := prompts.ExecuteTemplate(&sys, "act_system", struct{ HasAdmissible bool }{obs.Admissible != nil}); err != nil {
		return nil, fmt.Errorf("render act_system: %w", err)
	}
	data := struct {
		Goal, Thought, Observation string
		Admissible                 []string
	}{goal, thought, strings.TrimSpace(obs.Text), obs.Admissible}
	if err := prompts.ExecuteTemplate(&user, "act_user", data); err != nil {
		return nil, fmt.Errorf("render act_user: %w", err)
	}
	return []llm.Message{
		{Role: "system", Content: strings.TrimSpace(sys.String())},
		{Role: "user", Content: strings.TrimSpace(user.String())},
	}, nil
}

// Think implements Session: one thought call, then the action call (retried
// with feedback on an inadmissible action, see Asker.Ask).
func (s *twoCallSession) Think(ctx context.Context, in Input) (Decision, error) {
	msgs, err := ThoughtMessages(s.style, s.goal, in)
	if err != nil {
		return Decision{}, err
	}
	req := llm.Request{Purpose: Purpose, Messages: msgs, Temperature: s.cfg.Temperature, MaxTokens: s.cfg.MaxTokens, Schema: ThoughtSchema}
	var th string
	ans, err := replyfmt.Ask(ctx, s.cfg.chat, req, 0, llm.FellBack, func(a replyfmt.Answer) (bool, error) {
		t, _, repaired, err := ParseAnswer(a)
		if err == nil && t == "" {
			err = fmt.Errorf("reply %q: %w", truncate(a.Text, 80), ErrNoThought)
		}
		th = t
		return repaired, err
	})
	calls := max(ans.Calls, 1)
	if errors.Is(err, replyfmt.ErrUnusable) {
		// No usable thought within the budget: the guidance, when the
		// memory gave one, is the thought; else the step has none (the
		// action call carries out no thought, and SAMem stores nothing
		// for the step).
		th = ""
		if !in.GuideIsAction {
			th = in.Guide
		}
	} else if err != nil {
		return Decision{}, fmt.Errorf("%s: %w", Purpose, err)
	}
	msgs, err = ActMessages(s.goal, th, in.Obs)
	if err != nil {
		return Decision{}, err
	}
	a := Asker{Chat: s.cfg.chat, Embedder: s.cfg.emb, Purpose: PurposeAct, Temperature: s.cfg.Temperature, MaxTokens: s.cfg.MaxTokens, MaxAttempts: s.cfg.MaxAttempts, Schema: ActionSchema}
	d, err := a.Ask(ctx, msgs, in.Obs.Admissible)
	if err != nil {
		return Decision{}, err
	}
	d.Thought = th
	d.Attempts += calls // the thought calls
	return d, nil
}
