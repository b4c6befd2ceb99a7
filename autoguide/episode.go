package autoguide

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// episode is one trial.
type episode struct {
	m      *Method
	start  agent.Start
	actor  Actor // offline only
	guided bool  // the guidelines are read (eval, or training with Config.Online)

	solved      bool     // training: the task was solved in an earlier trial
	reflections []string // training: the task's last reflections

	steps   []Step // the trajectory: the first observation, then one entry per action
	context string // the context identified for the pending action
}

// Act implements agent.Episode: the context of the trajectory so far, its
// match among the stored contexts and the guidelines selected for it
// (Algorithm 2, when the episode is guided), then the action.
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if len(e.steps) == 0 {
		e.steps = append(e.steps, Step{Text: obs.Text})
	}
	var guides []string
	var recall *agent.Recall
	e.context = ""
	if e.guided {
		var err error
		guides, recall, err = e.guidelines(ctx)
		if err != nil {
			return agent.Decision{}, err
		}
	}
	var d agent.Decision
	var err error
	if e.actor != nil {
		d, err = e.actor.Act(ctx, obs, e.context, guides, e.reflections)
	} else {
		d, err = e.m.roles.(*llmRoles).act(ctx, e.start, actView{
			Goal: e.start.Task.Goal, Guidelines: guides, Reflections: e.reflections, Context: e.context,
			Steps: e.steps, Admissible: obs.Admissible,
		})
	}
	if err != nil {
		return agent.Decision{}, fmt.Errorf("%s: act: %w", Name, err)
	}
	if e.actor == nil {
		// The model is shown the guidelines; the offline actor says
		// whether it followed one.
		d.Guided = len(guides) > 0
	}
	d.Recall = recall
	if d.Guided {
		e.m.count("guided")
	}
	return d, nil
}

// guidelines identifies the context, matches it and selects the guidelines
// for the next action. It sets e.context.
func (e *episode) guidelines(ctx context.Context) ([]string, *agent.Recall, error) {
	r := e.m.roles
	c, err := r.context(ctx, e.start.Task, e.start.Style, e.steps)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: context: %w", Name, err)
	}
	e.context = c
	if c == "" {
		return nil, nil, nil
	}
	rec := &agent.Recall{State: c}
	contexts, book := e.m.book()
	if len(contexts) == 0 {
		return nil, rec, nil
	}
	i, err := r.match(ctx, contexts, c)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: match: %w", Name, err)
	}
	if i < 0 || i >= len(contexts) || len(book[i]) == 0 {
		e.m.count("unmatched")
		return nil, rec, nil
	}
	e.m.count("matched")
	rec.Match = strconv.Itoa(i)
	rec.Notes = []string{"matched context: " + contexts[i]}
	texts := make([]string, len(book[i]))
	for j, g := range book[i] {
		texts[j] = g.Text
	}
	chosen := make([]int, 0, len(texts))
	if len(texts) <= e.m.cfg.K {
		for j := range texts {
			chosen = append(chosen, j)
		}
	} else {
		sel, err := r.selectGuides(ctx, e.start.Task, texts, c, e.steps, e.m.cfg.K)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: select: %w", Name, err)
		}
		for _, j := range sel {
			if j >= 0 && j < len(texts) && !slices.Contains(chosen, j) && len(chosen) < e.m.cfg.K {
				chosen = append(chosen, j)
			}
		}
	}
	for j, t := range texts {
		rec.Items = append(rec.Items, agent.RecallItem{
			ID: rec.Match + "/" + strconv.Itoa(j), Kind: "guideline", Text: t,
			Scores: map[string]float64{"position": float64(j)}, Used: slices.Contains(chosen, j),
		})
	}
	out := make([]string, len(chosen))
	for n, j := range chosen {
		out[n] = texts[j]
	}
	return out, rec, nil
}

// Observe implements agent.Episode: the step joins the trajectory with the
// context it was taken in.
func (e *episode) Observe(_ context.Context, tr agent.Transition) error {
	e.steps = append(e.steps, Step{Context: e.context, Thought: tr.Decision.Thought, Action: tr.Decision.Action, Text: tr.Result.Text})
	if e.actor != nil {
		e.actor.Observe(tr.Decision.Action, tr.Result.Text)
	}
	return nil
}

// Finish implements agent.Episode: a trial that learns (training, or an
// online evaluation, agent.Online) of a task not solved yet is kept; a failed one is reflected on; one better than every earlier
// trial of its task is paired with each of them that did worse and a
// guideline is extracted from each pair (Algorithm 1).
func (e *episode) Finish(ctx context.Context, out agent.Outcome) error {
	if !e.start.Mode.Learns() || e.solved || out.Err != "" {
		return nil
	}
	task := e.start.Task
	tr := Trajectory{Task: task.ID, Won: out.Won, Score: out.Score, Steps: e.steps}
	m := e.m
	m.mu.Lock()
	tm := m.tasks[task.ID]
	if tm == nil {
		tm = &taskMemory{}
		m.tasks[task.ID] = tm
	}
	tr.Trial = tm.trials
	tm.trials++
	best := true
	var worse []Trajectory
	for _, a := range tm.attempts {
		if !better(tr, a) {
			best = false
		} else {
			worse = append(worse, a)
		}
	}
	if !best {
		worse = nil
	}
	if out.Won {
		tm.solved, tm.attempts = true, nil
	} else {
		tm.attempts = append(tm.attempts, tr)
	}
	m.mu.Unlock()

	for _, neg := range worse {
		if err := e.extract(ctx, tr, neg); err != nil {
			return err
		}
	}
	if !out.Won {
		text, err := m.roles.reflect(ctx, task, out, e.steps)
		if err != nil {
			return fmt.Errorf("%s: reflect: %w", Name, err)
		}
		if text != "" {
			m.mu.Lock()
			tm.reflections = append(tm.reflections, text)
			if n := len(tm.reflections) - m.cfg.Keep; n > 0 {
				tm.reflections = slices.Delete(tm.reflections, 0, n)
			}
			m.mu.Unlock()
		}
	}
	return nil
}

// extract turns one pair into a guideline: the deviation step, the context
// of the shared prefix, its match and the guideline.
func (e *episode) extract(ctx context.Context, pos, neg Trajectory) error {
	t := Deviation(pos.Steps, neg.Steps)
	r := e.m.roles
	prefix := pos.Steps[:min(t+1, len(pos.Steps))]
	c, err := r.context(ctx, e.start.Task, e.start.Style, prefix)
	if err != nil {
		return fmt.Errorf("%s: context: %w", Name, err)
	}
	if c == "" {
		return nil
	}
	contexts, _ := e.m.book()
	match := -1
	if len(contexts) > 0 {
		if match, err = r.match(ctx, contexts, c); err != nil {
			return fmt.Errorf("%s: match: %w", Name, err)
		}
	}
	g, err := r.extract(ctx, e.start.Task, c, pos, neg, t)
	if err != nil {
		return fmt.Errorf("%s: extract: %w", Name, err)
	}
	if g == "" {
		return nil
	}
	e.m.addGuideline(c, match, Guideline{Text: g, Task: e.start.Task.ID, Iteration: e.start.Iteration})
	e.m.count("pairs")
	return nil
}

// Deviation is the index t of the first action where two trajectories
// differ (actions compared after folding case and white space; thoughts
// are not actions), or the length of the shorter action list when one is a
// prefix of the other. Steps[0] is the first observation; the action at
// index t is Steps[t+1].Action, and the shared prefix is Steps[:t+1].
func Deviation(a, b []Step) int {
	n := min(len(a), len(b)) - 1
	for i := 0; i < n; i++ {
		if norm(a[i+1].Action) != norm(b[i+1].Action) {
			return i
		}
	}
	return max(n, 0)
}

func norm(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
