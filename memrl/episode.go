package memrl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	replyfmt "github.com/samem/trainer/internal/reply"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/thought"
)

// Step is one entry of an episode: the action taken (empty for the first
// observation), the observation it led to, and the model's reply that
// chose the action (LLM episodes).
type Step struct {
	Action, Text string
	Reply        string
}

// Start implements agent.Method. Retrieval waits for the first
// observation, which is the task description MemRL's query is made of.
func (m *Method) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	return &episode{m: m, start: s, mergeKey: -1}, nil
}

type episode struct {
	m     *Method
	start agent.Start

	begun      bool
	intent     string
	vector     []float32
	recall     *agent.Recall
	shown      []Shown
	injected   []int64
	candidates []int64
	mergeKey   int64

	steps []Step
	off   Session // nil with a model
}

// IntentText is the query and intent key of a task: its first observation
// (ALFWorld's room description and goal), preceded by the goal when the
// observation does not state it, cut to the paper's 4,096 characters.
func IntentText(t envbridge.Task, first string) string {
	s := strings.TrimSpace(first)
	if g := strings.TrimSpace(t.Goal); g != "" && !strings.Contains(s, strings.TrimRight(g, ".")) {
		s = strings.TrimSpace("Your task is to: " + g + "\n" + s)
	}
	if len(s) > maxIntentChars {
		s = strings.ToValidUTF8(s[:maxIntentChars], "")
	}
	return s
}

// begin retrieves for the episode from its first observation.
func (e *episode) begin(ctx context.Context, obs envbridge.Observation) error {
	m := e.m
	e.intent = IntentText(e.start.Task, obs.Text)
	vs, err := m.emb.Embed(ctx, []string{e.intent})
	if err != nil {
		return fmt.Errorf("memrl: embed the task description: %w", err)
	}
	if len(vs) != 1 {
		return fmt.Errorf("memrl: embedder returned %d vectors for 1 text", len(vs))
	}
	e.vector = vs[0]
	rng := e.start.Rand
	if !e.start.Mode.Explores() {
		rng = nil // evaluation is greedy
	}
	m.mu.Lock()
	res := m.retrieve(e.vector, rng)
	byID := make(map[int64]*Item, len(res.Candidates))
	for i := range m.items {
		byID[m.items[i].ID] = &m.items[i]
	}
	e.recall = &agent.Recall{State: e.intent, Explored: res.Explored}
	var wins, losses []Shown
	for _, c := range res.Candidates {
		it := byID[c.ID]
		e.candidates = append(e.candidates, c.ID)
		e.recall.Items = append(e.recall.Items, agent.RecallItem{
			ID: strconv.FormatInt(c.ID, 10), Kind: "triplet", Text: it.Lesson, Used: c.Injected,
			Scores: map[string]float64{"similarity": c.Sim, "z_similarity": c.ZSim, "q": c.Q, "z_q": c.ZQ, "score": c.Score, "visits": float64(c.Visits)},
		})
		if !c.Injected {
			continue
		}
		e.injected = append(e.injected, c.ID)
		sh := Shown{Success: it.Success, Lesson: it.Lesson, Trajectory: it.Trajectory}
		if it.Success {
			wins = append(wins, sh)
		} else {
			losses = append(losses, sh)
		}
	}
	if len(res.Candidates) > 0 {
		e.recall.Match = "intent " + strconv.FormatInt(res.Candidates[0].Key, 10)
		e.recall.Similarity = res.Candidates[0].Sim
	}
	e.mergeKey = res.MergeKey
	m.mu.Unlock()
	// Successes first, failures apart (spec Sec. 4), each cut to the bound.
	for _, s := range append(wins, losses...) {
		s.Trajectory = cutMiddle(s.Trajectory, max(0, m.cfg.MaxMemoryChars-len(s.Lesson)))
		e.shown = append(e.shown, s)
	}
	if m.chat == nil {
		e.off = m.offline.Begin(e.start, slices.Clone(e.shown))
	}
	return nil
}

// Act implements agent.Episode.
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if !e.begun {
		if err := e.begin(ctx, obs); err != nil {
			return agent.Decision{}, err
		}
		e.begun = true
		e.steps = append(e.steps, Step{Text: obs.Text})
	}
	if e.off != nil {
		d, err := e.off.Act(ctx, obs)
		if err != nil {
			return agent.Decision{}, err
		}
		d.Recall = e.recall
		return d, nil
	}
	msgs, err := actMessages(e.start.Style, e.start.Task.Goal, e.shown, e.steps, obs.Admissible, e.m.cfg.MaxHistory)
	if err != nil {
		return agent.Decision{}, err
	}
	ask := thought.Asker{Chat: e.m.chat, Embedder: e.m.emb, Purpose: e.m.cfg.Name + ".act", Temperature: e.m.cfg.Temperature,
		MaxTokens: e.m.cfg.ActMaxTokens, MaxAttempts: max(1, e.m.cfg.MaxAttempts)}
	d, err := ask.Ask(ctx, msgs, obs.Admissible)
	if err != nil {
		return agent.Decision{}, err
	}
	e.steps[len(e.steps)-1].Reply = "Thought: " + d.Thought + "\nAction: " + d.Action
	return agent.Decision{Thought: d.Thought, Action: d.Action, Guided: len(e.injected) > 0, Recall: e.recall}, nil
}

// Observe implements agent.Episode.
func (e *episode) Observe(_ context.Context, t agent.Transition) error {
	e.steps = append(e.steps, Step{Action: t.Decision.Action, Text: t.Result.Text})
	if e.off != nil {
		e.off.Observe(t.Decision.Action, t.Result.Text)
	}
	return nil
}

// Finish implements agent.Episode: an episode that learns (training,
// online evaluation) and ended without error writes its script (won) or
// reflection (not won) now, outside the lock, and waits for the batch's end
// (EndIteration) with its reward.
func (e *episode) Finish(ctx context.Context, out agent.Outcome) error {
	if !e.start.Mode.Learns() || out.Err != "" || !e.begun {
		return nil
	}
	lesson, err := e.lesson(ctx, out)
	if err != nil {
		return err
	}
	m := e.m
	p := pending{
		Episode: e.start.Episode, Task: e.start.Task.ID, Iteration: e.start.Iteration, Intent: e.intent, Vector: e.vector,
		Success: out.Won, Reward: m.reward(out), Injected: e.injected, Candidates: e.candidates, MergeKey: e.mergeKey,
		Lesson: lesson, Trajectory: Trajectory(e.steps),
	}
	m.mu.Lock()
	m.pend = append(m.pend, p)
	m.mu.Unlock()
	return nil
}

func (e *episode) lesson(ctx context.Context, out agent.Outcome) (string, error) {
	if e.off != nil {
		if out.Won {
			return e.off.Script(), nil
		}
		return e.off.Reflect(), nil
	}
	m := e.m
	traj := cutMiddle(Trajectory(e.steps), 4*m.cfg.MaxMemoryChars)
	if out.Won {
		msgs, err := scriptMessages(e.start.Task.Goal, traj)
		if err != nil {
			return "", err
		}
		var steps []string
		req := llm.Request{Purpose: m.cfg.Name + ".script", Messages: msgs, MaxTokens: m.cfg.ScriptMaxTokens, Temperature: m.cfg.Temperature, Schema: ScriptSchema}
		_, err = replyfmt.Ask(ctx, m.chat, req, 0, llm.FellBack, func(a replyfmt.Answer) (bool, error) {
			var repaired bool
			var err error
			steps, repaired, err = ParseScriptAnswer(a)
			return repaired, err
		})
		if errors.Is(err, replyfmt.ErrUnusable) {
			// No usable script: the memory keeps its trajectory alone.
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("memrl: script: %w", err)
		}
		return FormatScript(steps), nil
	}
	msgs, err := reflectMessages(e.start.Task.Goal, out.Failure(), traj)
	if err != nil {
		return "", err
	}
	var text string
	req := llm.Request{Purpose: m.cfg.Name + ".reflect", Messages: msgs, MaxTokens: m.cfg.ReflectMaxTokens, Temperature: m.cfg.ReflectTemperature, Schema: ReflectionSchema}
	_, err = replyfmt.Ask(ctx, m.chat, req, 0, llm.FellBack, func(a replyfmt.Answer) (bool, error) {
		var repaired bool
		var err error
		text, repaired, err = ParseReflectionAnswer(a)
		return repaired, err
	})
	if errors.Is(err, replyfmt.ErrUnusable) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("memrl: reflect: %w", err)
	}
	return text, nil
}

// Trajectory is the cleaned text of an episode as memories store it: the
// first observation, then each action ("> action") with what it led to.
func Trajectory(steps []Step) string {
	var b strings.Builder
	for i, s := range steps {
		if i > 0 {
			b.WriteString("\n")
		}
		if s.Action != "" {
			b.WriteString("> " + s.Action + "\n")
		}
		b.WriteString(strings.TrimSpace(s.Text))
	}
	return b.String()
}

// cutMiddle bounds s to about n bytes by cutting lines out of its middle,
// keeping its start and its end (spec Sec. 7).
func cutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "\n[... middle of the trajectory left out ...]\n"
	if n <= len(mark)+2 {
		return strings.ToValidUTF8(s[:max(0, n)], "")
	}
	half := (n - len(mark)) / 2
	head, tail := s[:half], s[len(s)-half:]
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	return strings.ToValidUTF8(head, "") + mark + strings.ToValidUTF8(tail, "")
}
