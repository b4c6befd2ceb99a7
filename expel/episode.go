package expel

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// Trajectory is one gathering trial: the task, its first observation (the
// text retrieval embeds) and every step.
type Trajectory struct {
	TaskID, Type, Goal, Split string
	Trial                     int
	Won                       bool
	Score, MaxScore           float64
	Start                     string
	Steps                     []Step
}

// Step is one step of a trajectory: the thought and action decided and the
// observation they led to.
type Step struct {
	Thought, Action, Text string
}

// Render writes a trajectory as ReAct's examples read: the first
// observation, then each step as "> think: ...", "OK.", "> action" and the
// observation.
func (t Trajectory) Render() string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(t.Start))
	for _, s := range t.Steps {
		if s.Thought != "" {
			b.WriteString("\n> think: " + oneLine(s.Thought) + "\nOK.")
		}
		b.WriteString("\n> " + oneLine(s.Action) + "\n" + strings.TrimSpace(s.Text))
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func sqrt(x float64) float64 { return math.Sqrt(x) }

// replayThought is the thought of a step that replays a solved task's
// successful trajectory in gathering.
const replayThought = "Replay the successful trial of this task."

type episode struct {
	m       *Method
	start   agent.Start
	guide   Guidance
	session Session // nil until the first Act at evaluation
	replay  []Step  // a solved task's success, replayed while it fits
	spent   bool    // a task given up after Retries failures: nothing stored
	first   string
	steps   []Step
	off     bool // the replay left the recorded path
}

// Act implements agent.Episode.
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if e.first == "" && len(e.steps) == 0 {
		e.first = obs.Text
		if e.session == nil {
			g, err := e.m.guidance(ctx, e.start.Task, obs.Text)
			if err != nil {
				return agent.Decision{}, err
			}
			e.guide = g
			e.session = e.m.roles.Actor.Begin(e.start, g)
		}
	}
	if i := len(e.steps); e.replay != nil && !e.off && i < len(e.replay) {
		a := e.replay[i].Action
		if obs.Admissible == nil || slices.Contains(obs.Admissible, a) {
			return agent.Decision{Thought: replayThought, Action: a, Recall: &agent.Recall{Notes: []string{"replaying the successful trial of " + e.start.Task.ID}}}, nil
		}
		e.off = true
	}
	d, err := e.session.Act(ctx, obs)
	if err != nil {
		return agent.Decision{}, err
	}
	out := d.Decision
	out.Guided = len(d.Used) > 0
	out.Recall = e.recall(d.Used)
	return out, nil
}

// recall lists what the decision was shown from memory.
func (e *episode) recall(used []string) *agent.Recall {
	var items []agent.RecallItem
	for i, x := range e.guide.Insights {
		id := InsightID(i + 1)
		items = append(items, agent.RecallItem{ID: id, Kind: "insight", Text: x.Text, Scores: map[string]float64{"votes": float64(x.Count)}, Used: slices.Contains(used, id)})
	}
	for _, x := range e.guide.Examples {
		id := ExampleID(x.Trajectory.TaskID)
		items = append(items, agent.RecallItem{ID: id, Kind: "trajectory", Text: x.Trajectory.Goal, Scores: map[string]float64{"similarity": x.Similarity}, Used: slices.Contains(used, id)})
	}
	for i, x := range e.guide.Reflections {
		id := ReflectionID(i + 1)
		items = append(items, agent.RecallItem{ID: id, Kind: "reflection", Text: x, Used: slices.Contains(used, id)})
	}
	if len(items) == 0 {
		return nil
	}
	return &agent.Recall{Items: items}
}

// ReflectionID is the recall ID of the task's n-th reflection (1-based).
func ReflectionID(n int) string { return fmt.Sprintf("reflection-%d", n) }

// Observe implements agent.Episode.
func (e *episode) Observe(_ context.Context, t agent.Transition) error {
	e.steps = append(e.steps, Step{Thought: t.Decision.Thought, Action: t.Decision.Action, Text: t.Result.Text})
	if e.session != nil {
		e.session.Observe(t.Decision.Action, t.Result.Text)
	}
	if i := len(e.steps) - 1; e.replay != nil && !e.off && (i >= len(e.replay) || e.replay[i].Text != t.Result.Text) {
		e.off = true // the world answered otherwise: the actor takes over
	}
	return nil
}

// Finish implements agent.Episode: a gathering trial, or an online
// evaluation trial, goes into the pool (a failure is reflected on); a
// frozen evaluation stores nothing, and neither do a
// replay of a solved task, a trial of a task given up, or an errored one.
func (e *episode) Finish(ctx context.Context, out agent.Outcome) error {
	if !e.start.Mode.Learns() || out.Err != "" || e.replay != nil || e.spent {
		return nil
	}
	t := e.start.Task
	tr := Trajectory{TaskID: t.ID, Type: t.Type, Goal: t.Goal, Split: t.Split, Trial: e.start.Trial, Won: success(out),
		Score: out.Score, MaxScore: out.MaxScore, Start: e.first, Steps: e.steps}
	return e.m.record(ctx, e.start, tr, e.guide.Reflections)
}
