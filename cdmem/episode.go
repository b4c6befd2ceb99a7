package cdmem

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

type episode struct {
	m     *Method
	start agent.Start
	actor Actor // offline only

	solved bool // training: solved in an earlier trial
	view   View // the prompt's memory parts, fixed at the first step
	recall *agent.Recall
	scene  string
	steps  []Step
}

// Start implements agent.Method.
func (m *Method) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	e := &episode{m: m, start: s}
	if m.roles.offline() {
		e.actor = m.off.Begin(s)
	}
	return e, nil
}

// prepare assembles the memory parts of the prompt from the scene of the
// first observation (spec Sec. 4): the scene's knowledge, the type's
// guidance, this task's last reflections (training only) and the
// exemplars. They stay the same for the whole episode.
func (e *episode) prepare(first string) {
	m := e.m
	e.scene = SceneKey(first)
	typ := e.start.Task.Type
	m.mu.Lock()
	defer m.mu.Unlock()
	rec := &agent.Recall{State: e.scene}
	if sc := m.scenes[e.scene]; sc != nil {
		rec.Match = e.scene
		if sc.known != "" {
			e.view.Scene = sc.known
			rec.Items = append(rec.Items, agent.RecallItem{ID: "scene", Kind: "scene", Text: sc.known, Used: true})
		}
	}
	items, outcomes := m.guidance(typ)
	e.view.Guidance = items
	for i, g := range items {
		rec.Items = append(rec.Items, agent.RecallItem{ID: typ + "/" + outcomes[i] + "/" + strconv.Itoa(i), Kind: "guidance_" + outcomes[i], Text: g, Used: true})
	}
	if !e.start.Mode.Evaluates() {
		if l := m.locals[e.start.Task.ID]; l != nil {
			e.solved = l.solved
			e.view.Reflections = lastN(l.reflections, m.cfg.Keep)
			for i, r := range e.view.Reflections {
				rec.Items = append(rec.Items, agent.RecallItem{ID: "reflection/" + strconv.Itoa(i), Kind: "reflection", Text: r, Used: true})
			}
		}
	}
	for _, i := range m.exemplars(e.scene, typ, e.start) {
		r := m.records[i]
		e.view.Exemplars = append(e.view.Exemplars, r.Transcript)
		sameScene := 0.0
		if r.Scene == e.scene {
			sameScene = 1
		}
		rec.Items = append(rec.Items, agent.RecallItem{ID: "episode/" + strconv.Itoa(i), Kind: "exemplar", Text: r.Goal + " (" + r.Task + ")", Scores: map[string]float64{"same_scene": sameScene}, Used: true})
	}
	e.recall = rec
}

func lastN(s []string, n int) []string {
	if len(s) > n {
		s = s[len(s)-n:]
	}
	return slices.Clone(s)
}

// exemplars are up to Exemplars indices of successful records: sampled
// from those of this type in this scene, then from the other successes of
// the type (spec Sec. 4.4); m.mu is held.
func (m *Method) exemplars(sceneKey, typ string, s agent.Start) []int {
	b := m.buckets[bucketKey{typ, Success}]
	if b == nil || m.cfg.Exemplars == 0 {
		return nil
	}
	var inScene, other []int
	var sceneAll []int
	if sc := m.scenes[sceneKey]; sc != nil {
		sceneAll = sc.all
	}
	for _, i := range b.all {
		if slices.Contains(sceneAll, i) {
			inScene = append(inScene, i)
		} else {
			other = append(other, i)
		}
	}
	var out []int
	for _, pool := range [][]int{inScene, other} {
		if s.Rand != nil {
			s.Rand.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		}
		for _, i := range pool {
			if len(out) < m.cfg.Exemplars {
				out = append(out, i)
			}
		}
	}
	return out
}

// Act implements agent.Episode: one act call with the memory parts and
// the transcript so far.
func (e *episode) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if len(e.steps) == 0 {
		e.steps = append(e.steps, Step{Text: obs.Text})
		e.prepare(obs.Text)
	}
	var d agent.Decision
	var err error
	if e.actor != nil {
		d, err = e.actor.Act(ctx, obs, e.view)
	} else {
		d, err = e.m.roles.(*llmRoles).act(ctx, e.start, e.view, e.steps, obs.Admissible)
		d.Guided = e.view.Scene != "" || len(e.view.Guidance) > 0 || len(e.view.Exemplars) > 0
	}
	if err != nil {
		return agent.Decision{}, fmt.Errorf("%s: act: %w", Name, err)
	}
	if e.recall != nil && (e.recall.Match != "" || len(e.recall.Items) > 0) {
		r := *e.recall
		d.Recall = &r
	} else {
		d.Recall = &agent.Recall{State: e.scene}
	}
	if d.Guided {
		e.m.count("guided")
	}
	return d, nil
}

// Observe implements agent.Episode.
func (e *episode) Observe(_ context.Context, tr agent.Transition) error {
	e.steps = append(e.steps, Step{Thought: tr.Decision.Thought, Action: tr.Decision.Action, Text: tr.Result.Text})
	if e.actor != nil {
		e.actor.Observe(tr.Decision.Action, tr.Result.Text)
	}
	return nil
}

// Finish implements agent.Episode: after a trial that learns (training,
// or online evaluation: CDMem's own setting, spec Sec. 8) of a task not
// solved yet, the expert encoding, the reflection, the registration under
// the scene and the (type, outcome) bucket, and the summaries whose batch
// rule fires (spec Sec. 3).
func (e *episode) Finish(ctx context.Context, out agent.Outcome) error {
	if !e.start.Mode.Learns() || e.solved || out.Err != "" || len(e.steps) == 0 {
		return nil
	}
	m, task := e.m, e.start.Task
	ex, err := m.roles.expert(ctx, task, e.steps)
	if err != nil {
		return fmt.Errorf("%s: expert: %w", Name, err)
	}
	m.mu.Lock()
	var earlier []string
	if l := m.locals[task.ID]; l != nil {
		earlier = lastN(l.reflections, m.cfg.Keep)
	}
	m.mu.Unlock()
	refl, err := m.roles.reflect(ctx, task, out.Won, out, e.steps, ex, earlier)
	if err != nil {
		return fmt.Errorf("%s: reflect: %w", Name, err)
	}

	m.enc.Lock()
	defer m.enc.Unlock()
	m.mu.Lock()
	l := m.locals[task.ID]
	if l == nil {
		l = &local{}
		m.locals[task.ID] = l
	}
	rec := Record{Trial: l.trials, Task: task.ID, Type: task.Type, Scene: e.scene, Goal: task.Goal, Expert: ex, Reflection: refl, Success: out.Won}
	if out.Won {
		rec.Transcript = slices.Clone(e.steps)
	}
	l.trials++
	l.solved = out.Won
	if refl != "" {
		l.reflections = lastN(append(l.reflections, refl), m.cfg.Keep)
	}
	idx := len(m.records)
	m.records = append(m.records, rec)
	sc := m.scenes[e.scene]
	if sc == nil {
		sc = &scene{}
		m.scenes[e.scene] = sc
	}
	sc.pending, sc.all = append(sc.pending, idx), append(sc.all, idx)
	outcome := Fail
	if out.Won {
		outcome = Success
	}
	key := bucketKey{task.Type, outcome}
	b := m.buckets[key]
	if b == nil {
		b = &bucket{}
		m.buckets[key] = b
	}
	b.pending, b.all = append(b.pending, idx), append(b.all, idx)
	sceneFires := !sc.summed || len(sc.pending) > m.cfg.EnvBatch
	taskFires := !b.summed || len(b.pending) > m.cfg.TaskBatch
	prevKnown, prevGuidance := sc.known, slices.Clone(b.guidance)
	var functions, reflections []string
	for _, i := range sc.pending {
		if f := strings.TrimSpace(m.records[i].Expert.Functions); f != "" && !strings.EqualFold(strings.Trim(f, ". "), "none") {
			functions = append(functions, f)
		}
	}
	for _, i := range b.pending {
		if r := m.records[i]; r.Reflection != "" {
			reflections = append(reflections, "Task: "+r.Goal+"\nReflection: "+r.Reflection)
		}
	}
	m.mu.Unlock()

	// The summaries: model calls outside m.mu (episodes keep acting), under
	// m.enc (no other encoding reads or writes these memories meanwhile).
	if sceneFires {
		known := prevKnown
		if len(functions) > 0 {
			if known, err = m.roles.sceneSummary(ctx, prevKnown, functions); err != nil {
				return fmt.Errorf("%s: scene summary: %w", Name, err)
			}
			m.count("scene_summaries")
		}
		m.mu.Lock()
		sc.known, sc.summed, sc.pending = known, true, nil
		m.mu.Unlock()
	}
	if taskFires {
		items := prevGuidance
		if len(reflections) > 0 {
			if items, err = m.roles.taskSummary(ctx, prevGuidance, out.Won, reflections); err != nil {
				return fmt.Errorf("%s: task summary: %w", Name, err)
			}
			m.count("task_summaries")
		}
		m.mu.Lock()
		b.guidance, b.summed, b.pending = items, true, nil
		m.mu.Unlock()
	}
	return nil
}
