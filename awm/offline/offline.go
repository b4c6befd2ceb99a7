// Package offline holds AWM's roles without a model, rules over what the
// agent sees (the household text read by package belief, its own thoughts
// and actions), never the environment's hidden state.
//
// The inducer is AWM's rule-based induction (the code's induce_rule.py):
// each success is reduced to the steps that changed what the agent knows,
// each written as the situation before it (belief.Situation), the offline
// thinker's thought that took it and the action with the task's values
// replaced by variables ({target object}, {destination}, {appliance},
// {light source}, {receptacle}); runs of steps with the same situation and
// thought are one step; trajectories with the same abstract action
// sequence give one workflow. The actor follows the shown workflows step by
// step where its situation matches (Actor), through SAMem's offline
// thinker (which explores where the step has no action). Outside the
// household world no situation can be read: the inducer writes nothing and
// the actor is the offline thinker alone.
package offline

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/awm"
	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/thought"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// Roles are AWM's offline roles.
func Roles() awm.Roles { return awm.Roles{Actor: Actor{}, Inducer: Inducer{}} }

// Inducer is the rule-based induction.
type Inducer struct{}

// instance is an object or receptacle name of the household world.
var instance = regexp.MustCompile(`\b([a-z]+) \d+\b`)

// abstract replaces the task's values in an action by variables.
func abstract(b *belief.Belief, action string) string {
	return instance.ReplaceAllStringFunc(action, func(name string) string {
		kind := strings.Fields(name)[0]
		switch {
		case kind == b.Goal.Object:
			return "{target object}"
		case kind == b.Goal.Receptacle:
			return "{destination}"
		case kind == b.Appliance():
			return "{appliance}"
		case b.Goal.Lamp != "" && kind == b.Goal.Lamp:
			return "{light source}"
		}
		return "{receptacle}"
	})
}

// isStrategy reports whether th is one of the offline thinker's thoughts.
func isStrategy(th string) bool {
	for _, s := range thoughtoff.HouseholdStrategies {
		if s.Thought == th {
			return true
		}
	}
	return false
}

// advanced reports whether a step moved the task on: it changed the
// situation, or, while searching, what the agent knows (a receptacle seen).
// A step that only changed what the agent knows elsewhere (searching while
// carrying the target) is a detour, not a step of the workflow.
func advanced(before, after string, learned bool) bool {
	if before != after {
		return true
	}
	return learned && (before == belief.SitSearch || before == belief.SitSearchClosed)
}

// steps reduces a success to its workflow steps.
func steps(t awm.Trajectory) []awm.WStep {
	b := belief.New(t.Goal)
	b.Observe("", t.Start)
	var out []awm.WStep
	for _, s := range t.Steps {
		sit, key := b.Situation(), b.Key()
		act := abstract(b, s.Action)
		b.Observe(s.Action, s.Text)
		if sit == "" || !isStrategy(s.Thought) || !advanced(sit, b.Situation(), key != b.Key()) {
			continue
		}
		if n := len(out); n > 0 && out[n-1].State == sit && out[n-1].Reasoning == s.Thought {
			continue
		}
		out = append(out, awm.WStep{State: sit, Reasoning: s.Thought, Action: act})
	}
	return out
}

// Induce implements awm.Inducer.
func (Inducer) Induce(_ context.Context, in awm.InduceInput) ([]awm.Workflow, error) {
	if in.Style != envbridge.StyleHousehold {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []awm.Workflow
	for _, t := range in.Examples {
		st := steps(t)
		if len(st) < awm.MinSteps {
			continue
		}
		var key []string
		for _, s := range st {
			key = append(key, s.Action)
		}
		k := strings.Join(key, "|")
		if seen[k] {
			continue
		}
		seen[k] = true
		n := len(out) + 1
		out = append(out, awm.Workflow{
			Name:        in.Group + " workflow " + strconv.Itoa(n),
			Description: "Given a " + in.Group + " task, this workflow takes the target object from where it is found to the destination in " + strconv.Itoa(len(st)) + " stages.",
			Steps:       st,
		})
	}
	return out, nil
}

// Actor is the offline actor: the offline thinker, guided by the shown
// workflows. It follows them in order: in a situation, the next step
// written for it after the last step it followed in the same workflow;
// when no workflow has one ahead, the thought the steps give the situation
// most often (ties: the first shown).
type Actor struct{}

type guide struct {
	thought, id string
	wf, step    int // the workflow (index in the shown list) and step
}

// Begin implements awm.Actor.
func (Actor) Begin(s agent.Start, ws []awm.Shown) awm.Session {
	type vote struct {
		g     guide
		count int
		order int
	}
	votes := map[string]map[string]*vote{}
	steps := map[string][]guide{} // by situation, in workflow and step order
	n := 0
	for i, w := range ws {
		for j, st := range w.Workflow.Steps {
			if st.State == "" || !isStrategy(st.Reasoning) {
				continue
			}
			g := guide{st.Reasoning, w.ID, i, j}
			steps[st.State] = append(steps[st.State], g)
			if votes[st.State] == nil {
				votes[st.State] = map[string]*vote{}
			}
			v := votes[st.State][st.Reasoning]
			if v == nil {
				v = &vote{g: g, order: n}
				votes[st.State][st.Reasoning] = v
				n++
			}
			v.count++
		}
	}
	rules := map[string]guide{}
	for sit, vs := range votes {
		var best *vote
		for _, v := range vs {
			if best == nil || v.count > best.count || v.count == best.count && v.order < best.order {
				best = v
			}
		}
		rules[sit] = best.g
	}
	se := &session{th: thoughtoff.Thinker{}.Begin(s.Task, s.Style, s.Rand), rules: rules, steps: steps, last: make([]int, len(ws))}
	for i := range se.last {
		se.last[i] = -1
	}
	if s.Style == envbridge.StyleHousehold {
		se.b = belief.New(s.Task.Goal)
	}
	return se
}

type session struct {
	th      thought.Session
	b       *belief.Belief
	rules   map[string]guide
	steps   map[string][]guide
	last    []int // per shown workflow, the last step followed
	started bool
}

// next is the guide for situation sit: the nearest step ahead in a
// workflow, else the situation's most given thought.
func (e *session) next(sit string) guide {
	best, found := guide{}, false
	for _, g := range e.steps[sit] {
		if g.step > e.last[g.wf] && (!found || g.step-e.last[g.wf] < best.step-e.last[best.wf]) {
			best, found = g, true
		}
	}
	if found {
		return best
	}
	return e.rules[sit]
}

// Act implements awm.Session.
func (e *session) Act(ctx context.Context, obs envbridge.Observation) (awm.Decision, error) {
	if e.b != nil && !e.started {
		e.b.Observe("", obs.Text)
	}
	e.started = true
	var g guide
	if e.b != nil {
		g = e.next(e.b.Situation())
	}
	d, err := e.th.Think(ctx, thought.Input{Obs: obs, Guide: g.thought})
	if err != nil {
		return awm.Decision{}, err
	}
	out := awm.Decision{Decision: agent.Decision{Thought: d.Thought, Action: d.Action}}
	if g.thought != "" && d.Thought == g.thought {
		out.Used = []string{g.id}
		e.last[g.wf] = max(e.last[g.wf], g.step)
	}
	return out, nil
}

// Observe implements awm.Session.
func (e *session) Observe(action, text string) {
	e.started = true
	if e.b != nil {
		e.b.Observe(action, text)
	}
}
