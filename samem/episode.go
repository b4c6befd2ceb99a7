package samem

import (
	"context"
	"fmt"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// episode is one trial of SAMem (Algorithm 1, lines 8-29).
type episode struct {
	m   *Method
	s   agent.Start
	sum summarize.Session
	th  thought.Session

	stateText string
	stateVec  []float32
	state     int64 // current state cluster (Train), or matched cluster (Eval)
	matched   bool  // state is a known cluster (always in Train)
	started   bool
	steps     int   // steps taken in this episode (the budget schedule's k)
	thought   int64 // thought cluster of the last Act (Train)
	// unstored marks a step of the last Act with no thought (or, at action
	// level, no action) to store: the model gave no usable one, so the
	// step's transition is not learned (the thought is never made up).
	unstored bool
}

// locate summarises obs into a state and finds its cluster: when the
// episode learns (training, online evaluation) the state joins or creates
// one (Algorithm 1, line 20); in a frozen evaluation the state is only
// matched.
func (e *episode) locate(ctx context.Context, action string, obs envbridge.Observation) error {
	text, err := e.sum.Summarize(ctx, action, obs)
	if err != nil {
		return err
	}
	vec, err := e.m.embed(ctx, text)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	e.stateText, e.stateVec = text, vec
	e.m.mu.Lock()
	defer e.m.mu.Unlock()
	if e.s.Mode.Learns() {
		e.state, err = e.m.states.Assign(vec, text)
		e.matched = err == nil
	} else {
		e.state, e.matched, err = e.m.states.Match(vec, text)
	}
	if err != nil {
		return fmt.Errorf("state cluster: %w", err)
	}
	return nil
}

// Act implements agent.Episode: Eq. 6. With probability epsilon (training
// only: every evaluation, online included, is greedy) the thinker explores
// freely; otherwise it is guided by the
// highest-valued thought of the state's cluster, whatever its value (with
// Config.GuidePositive only a positive one). A state with no stored thought
// that forgetting left, or (in evaluation) a state that matches no cluster,
// gives no guidance: the thinker then acts as it would without memory.
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if !e.started {
		if err := e.locate(ctx, "", obs); err != nil {
			return agent.Decision{}, err
		}
		e.started = true
	}
	explore := e.s.Mode.Explores() && e.s.Rand.Float64() < e.m.epsilonAt(e.s, e.steps)
	guide, guideID, retried := "", int64(-1), false
	if !explore {
		guide, guideID = e.m.guide(e.state, e.stateVec, e.matched, e.s.Mode)
	} else if e.m.cfg.RetryZero && e.s.Rand.Float64() < retryZeroShare {
		guide, guideID = e.m.retryZero(e.state)
		retried = guide != ""
	}
	recall := e.m.recall(e.state, e.stateText, e.stateVec, e.matched, explore, guideID, retried)
	d, err := e.th.Think(ctx, thought.Input{State: e.stateText, Obs: obs, Guide: guide, GuideIsAction: e.m.cfg.ActionLevel})
	if err != nil {
		return agent.Decision{}, err
	}
	e.unstored = false
	if key := memoryKey(e.m.cfg, d); e.s.Mode.Learns() && strings.TrimSpace(key) == "" {
		e.unstored = true
	} else if e.s.Mode.Learns() {
		vec, err := e.m.embed(ctx, key)
		if err != nil {
			return agent.Decision{}, fmt.Errorf("thought: %w", err)
		}
		e.m.mu.Lock()
		e.thought, err = e.m.thoughts.Assign(vec, key)
		e.m.mu.Unlock()
		if err != nil {
			return agent.Decision{}, fmt.Errorf("thought cluster: %w", err)
		}
	}
	return agent.Decision{Thought: d.Thought, Action: d.Action, Guided: guide != "", Recall: recall}, nil
}

// Observe implements agent.Episode: summarise the new observation into the
// next state and, when the episode learns (training, online evaluation),
// apply the Q update of the transition
// (Algorithm 1, lines 17-25). A step that ends the episode by winning or
// losing is terminal (no bootstrap); truncation at the step limit is not a
// property of the state, so it bootstraps as usual.
func (e *episode) Observe(ctx context.Context, tr agent.Transition) error {
	prev, prevThought := e.state, e.thought
	e.steps++
	if err := e.locate(ctx, tr.Decision.Action, tr.Result.Observation); err != nil {
		return err
	}
	if !e.s.Mode.Learns() || e.unstored {
		return nil
	}
	terminal := tr.Result.Done && !tr.Result.Truncated
	m := e.m
	m.mu.Lock()
	defer m.mu.Unlock()
	m.step++
	if _, err := m.table.Update(prev, prevThought, tr.Result.Reward, e.state, terminal, m.step); err != nil {
		return fmt.Errorf("q update: %w", err)
	}
	return nil
}

// Finish implements agent.Episode. SAMem learns step by step; nothing is left to do.
func (e *episode) Finish(context.Context, agent.Outcome) error { return nil }

// guide is the thought to follow in state s and its cluster id, or ""
// and -1 (see Act).
func (m *Method) guide(s int64, vec []float32, matched bool, mode agent.Mode) (string, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := &m.stats
	if mode.Evaluates() {
		st = &m.evalStats
	}
	count := func(guided bool) {
		if guided {
			st.Guided++
		} else {
			st.Free++
		}
	}
	if !matched {
		if mode.Evaluates() {
			st.Unmatched++
		}
		count(false)
		return "", -1
	}
	// The rule of a guided step is one for every variant: a matched state
	// with a stored thought that forgetting left (and, with GuidePositive,
	// whose best such thought has Q > 0). Which thought guides is the
	// variant's: the argmax of Eq. 6, or without Q-learning the most
	// similar one.
	margin := 0.0
	if mode.Evaluates() {
		margin = m.cfg.TieMargin
	}
	th, q, ok := m.bestUnpruned(s, margin)
	if ok && m.cfg.GuidePositive && q <= 0 {
		ok = false
	}
	if ok && m.cfg.NoQ {
		th, ok = m.mostSimilar(s, vec)
	}
	if !ok {
		count(false)
		return "", -1
	}
	count(true)
	return m.thoughts.Text(th), th
}

// retryZero is the thought an exploring step retries in state s, or "":
// when the state has a thought of positive value, then of its thoughts that
// were tried and still have Q = 0 (and that no forgetting check rejected),
// the least visited (ties: the smaller id). A state with no positive
// thought has nothing to retry: a thought at 0 there is already as good as
// the argmax.
//
// Why: rewards are sparse, so a thought tried while its successor state had
// no value yet gets Q = 0 (Eq. 4-5 with r = 0 and max Q(s') = 0) however
// good it is, and under Eq. 6 the argmax then prefers any positive thought
// for ever, even one worth little ("process the item with the appliance"
// tried once at 0, never again; 0.44 success on world seed 13, measured
// with the suite's task order: docs/results/2026-11-24-samem-sweep.md).
// Exploring steps retry such thoughts so that their value is learned once
// the successor's value is known. Unexplored thoughts the model has not
// proposed here are still found by the free exploration of Eq. 6.
func (m *Method) retryZero(s int64) (string, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, q, ok := m.table.Best(s); !ok || q <= 0 {
		return "", -1
	}
	th, ok := int64(0), false
	var least int64
	for _, e := range m.table.Row(s) {
		if e.Q != 0 || e.Visits == 0 || m.pruned[[2]int64{s, e.Thought}] {
			continue
		}
		if !ok || e.Visits < least || (e.Visits == least && e.Thought < th) {
			th, least, ok = e.Thought, e.Visits, true
		}
	}
	if !ok {
		return "", -1
	}
	return m.thoughts.Text(th), th
}

// bestUnpruned is the argmax of Eq. 6 over the thoughts of state s that no
// forgetting check rejected (Sec. 3.2 removes those from memory; here they
// stay in the table at Q = 0): qlearn.Table.BestWithin, or when that is a
// pruned thought the best of the others. Caller holds m.mu.
func (m *Method) bestUnpruned(s int64, margin float64) (int64, float64, bool) {
	th, q, ok := m.table.BestWithin(s, margin)
	if !ok || !m.pruned[[2]int64{s, th}] {
		return th, q, ok
	}
	for _, e := range m.table.Row(s) {
		if !m.pruned[[2]int64{s, e.Thought}] {
			return e.Thought, e.Q, true
		}
	}
	return 0, 0, false
}

// mostSimilar is the "w/o Q-learning" retrieval of seed 002 Table 2: of
// the thoughts stored for the matched state, the one whose embedding is the
// most similar to the current state's, with no value involved (ties: the
// smaller thought id).
func (m *Method) mostSimilar(s int64, vec []float32) (int64, bool) {
	best, bestSim, ok := int64(0), float32(-2), false
	for _, e := range m.table.Row(s) {
		if m.pruned[[2]int64{s, e.Thought}] {
			continue
		}
		tv := m.thoughts.Vector(e.Thought)
		if len(tv) != len(vec) {
			continue
		}
		var sim float32
		for i := range vec {
			sim += vec[i] * tv[i]
		}
		if !ok || sim > bestSim || (sim == bestSim && e.Thought < best) {
			best, bestSim, ok = e.Thought, sim, true
		}
	}
	return best, ok
}
