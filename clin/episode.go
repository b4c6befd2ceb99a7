package clin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/samem/trainer/actions"
	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// episode is one trial of CLIN.
type episode struct {
	m      *Method
	start  agent.Start
	memory []Abstraction
	rng    *rand.Rand
	trace  []Step
	goal   string        // the goal behind the pending action
	shown  []Abstraction // the trial's selected items (model path; select.go)
}

// Act implements agent.Episode: select memory items relevant now, ask the
// controller for the next goal, and let the executor turn it into an
// admissible action, retrying with feedback (Sec. 3.3, Alg. 1 lines 6-7).
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	query := e.start.Task.Goal + "\n" + obs.Text
	shown, err := e.selected(ctx, query)
	if err != nil {
		return agent.Decision{}, err
	}
	in := ControllerInput{
		Task: e.start.Task, Style: e.start.Style, Memory: shown,
		Trace: e.trace, Obs: obs, Rand: e.rng,
	}
	for try := 0; try <= e.m.cfg.Retries; try++ {
		p, err := e.m.ctrl.Next(ctx, in)
		if err != nil {
			return agent.Decision{}, fmt.Errorf("clin: controller: %w", err)
		}
		action, ok, err := e.execute(ctx, p, in)
		if err != nil {
			return agent.Decision{}, fmt.Errorf("clin: executor: %w", err)
		}
		if ok {
			e.goal = p.Goal
			return agent.Decision{Thought: p.Goal, Action: action, Guided: len(p.Used) > 0, Recall: recall(shown, p.Used)}, nil
		}
		rejected := p.Action
		if rejected == "" {
			rejected = p.Goal
		}
		in.Rejected = append(in.Rejected, rejected)
	}
	// Out of retries: act rather than stall, with an admissible action the
	// trial has not tried yet when there is one.
	e.goal = "explore (no executable goal after retries)"
	cands := obs.Admissible
	if cands == nil {
		cands = TemplateActions(e.start.Style, obs)
	}
	return agent.Decision{Thought: e.goal, Action: fallback(cands, e.trace, e.rng), Recall: recall(shown, nil)}, nil
}

// recall is what a decision was shown of memory: the selected items,
// numbered from 1 as the controller saw them, with the trial and reward
// each was drawn from; the items the controller said it used are Used.
func recall(shown []Abstraction, used []int) *agent.Recall {
	if len(shown) == 0 {
		return nil
	}
	r := &agent.Recall{Items: make([]agent.RecallItem, len(shown))}
	for i, a := range shown {
		r.Items[i] = agent.RecallItem{
			ID: strconv.Itoa(i + 1), Kind: "abstraction", Text: a.String(),
			Scores: map[string]float64{"trial": float64(a.Trial), "reward": a.Reward},
			Used:   slices.Contains(used, i+1),
		}
	}
	return r
}

// execute is the executor: a candidate action is matched onto the
// admissible list (exact, else the most similar by embedding at >= 0.9); a
// goal without an action is realised by one of the proposal's Actions (the
// admissible ones, or a template world's filled templates), or taken as the
// action where the world offers neither.
func (e *episode) execute(ctx context.Context, p Proposal, in ControllerInput) (string, bool, error) {
	if p.Action == "" && p.Goal == "" {
		return "", false, nil
	}
	if p.Action == "" {
		if len(p.Actions) > 0 {
			return p.Actions[e.intn(len(p.Actions))], true, nil
		}
		if in.Obs.Admissible == nil {
			return p.Goal, true, nil
		}
	}
	cand := p.Action
	if cand == "" {
		cand = p.Goal
	}
	match, _, ok, err := actions.MatchAdmissible(ctx, e.m.emb, cand, in.Obs.Admissible)
	return match, ok, err
}

func (e *episode) intn(n int) int {
	if e.rng == nil || n <= 1 {
		return 0
	}
	return e.rng.IntN(n)
}

// TemplateActions are the concrete actions a world without an admissible
// list offers through its action templates and the objects in view (the
// driver's, else the style's templates: ScienceWorld's), leaving out
// focusing, which ends the task when misused, and waiting; nil where the
// world has no templates (free-form text games).
func TemplateActions(style envbridge.Style, obs envbridge.Observation) []string {
	t := obs.Templates
	if t == nil {
		t = envbridge.Forms(envbridge.Templates(style))
	}
	return envbridge.Fill(t, obs.Objects, []string{"focus on", "wait"}, 0)
}

// fallback picks an action not yet tried in the trial from the candidates
// (at random when rng is set), "look" where there are none.
func fallback(admissible []string, trace []Step, rng *rand.Rand) string {
	if len(admissible) == 0 {
		return "look"
	}
	tried := map[string]bool{}
	for _, s := range trace {
		tried[strings.ToLower(s.Action)] = true
	}
	var fresh []string
	for _, a := range admissible {
		if !tried[strings.ToLower(a)] {
			fresh = append(fresh, a)
		}
	}
	if len(fresh) == 0 {
		fresh = admissible
	}
	if rng == nil {
		return fresh[0]
	}
	return fresh[rng.IntN(len(fresh))]
}

// Observe implements agent.Episode: the step joins the trial so far.
func (e *episode) Observe(_ context.Context, tr agent.Transition) error {
	e.trace = append(e.trace, Step{
		Goal: e.goal, Action: tr.Decision.Action,
		Observation: tr.Result.Text, Reward: tr.Result.Reward,
	})
	return nil
}

// Finish implements agent.Episode: in Train mode the memory generator writes
// the task's next memory (Eq. 2). In an evaluation, only under G+A is a
// held-out task's scratch memory adapted, when the task will be retried:
// the trial was not won, ended without an error, and was not the last
// (Config.Trials). A frozen evaluation leaves the trained memory as it was;
// an online one (agent.Online) also writes the trial's memory as a training
// trial of its task would, so that the meta-memories of the tasks after it
// (GEN-ENV, GEN-TASK) draw on it.
func (e *episode) Finish(ctx context.Context, out agent.Outcome) error {
	if e.start.Mode.Evaluates() {
		if e.start.Mode.Learns() && out.Err == "" {
			learn := e.start
			learn.Mode = agent.Train
			if err := e.m.finish(ctx, learn, e.trace, out); err != nil {
				return err
			}
		}
		if !e.m.cfg.GA || out.Won || out.Err != "" || e.start.Trial+1 >= e.m.cfg.Trials {
			return nil
		}
	}
	return e.m.finish(ctx, e.start, e.trace, out)
}
