// Package offline holds ExpeL's roles without a model: an actor, a
// reflection and an insight extractor made of rules over what the agent
// sees (the household text read by package belief, its own thoughts and
// actions), never the environment's hidden state.
//
// The three share one vocabulary: a *situation* of a household task read
// from the text (the target object not found yet, carried to the right
// appliance, ...) and a strategy thought of SAMem's offline thinker. A rule
// is "When <situation>: <thought>". The reflection names the situation a
// failed trial stalled in with the thought that moves it on; the extractor
// writes, for the situation a failure stalled in, the thought the task's
// success used there (compare phase), and for each situation the thought
// most successes used to make progress (success phase), as ADD, EDIT, AGREE
// and REMOVE operations. The actor follows the rule of its situation (the
// most important insight first, then a retrieved trajectory's thought in
// that situation, then the task's reflections) through the offline
// thinker, which still explores where the rule has no action.
//
// Outside the household world (no situation can be read) the actor is the
// offline thinker alone and the reflection and extraction say nothing.
package offline

import (
	"context"
	"slices"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/expel"
	"github.com/samem/trainer/thought"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// Roles are ExpeL's offline roles.
func Roles() expel.Roles {
	return expel.Roles{Actor: Actor{}, Reflector: Reflector{}, Extractor: Extractor{}}
}

// The situations of a household task (belief.Situations), as the rules
// name them.
const (
	sitSearchClosed = belief.SitSearchClosed
	sitSearch       = belief.SitSearch
	sitSeen         = belief.SitSeen
	sitHere         = belief.SitHere
	sitAtAppliance  = belief.SitAtAppliance
	sitProcess      = belief.SitProcess
	sitLampHere     = belief.SitLampHere
	sitLamp         = belief.SitLamp
	sitDestClosed   = belief.SitDestClosed
	sitDest         = belief.SitDest
	sitCarry        = belief.SitCarry
)

var situations = belief.Situations

func situation(b *belief.Belief) string { return b.Situation() }

// progress is the thought that moves a stalled situation on, for the
// reflection: what a reader of the task's text would plan.
var progress = map[string]string{
	sitSearchClosed: thoughtoff.OpenHere,
	sitSearch:       thoughtoff.Search,
	sitSeen:         thoughtoff.Return,
	sitHere:         thoughtoff.TakeHere,
	sitAtAppliance:  thoughtoff.UseAppliance,
	sitProcess:      thoughtoff.ToAppliance,
	sitLampHere:     thoughtoff.UseLamp,
	sitLamp:         thoughtoff.FindLamp,
	sitDestClosed:   thoughtoff.OpenHere,
	sitDest:         thoughtoff.PlaceHere,
	sitCarry:        thoughtoff.ToDest,
}

const rulePrefix = "When "

// Rule writes the rule "When <situation>: <thought>".
func Rule(sit, th string) string { return rulePrefix + sit + ": " + th }

// readRule splits a rule into its situation and thought; ok is false for a
// text that is not one (a model's insight).
func readRule(text string) (sit, th string, ok bool) {
	rest, found := strings.CutPrefix(text, rulePrefix)
	if !found {
		return "", "", false
	}
	sit, th, found = strings.Cut(rest, ": ")
	if !found || !slices.Contains(situations, sit) {
		return "", "", false
	}
	return sit, th, true
}

// step is one step of a trajectory read again: the situation before it,
// its thought, and whether what the agent knows changed after it.
type step struct {
	sit, thought string
	progress     bool
}

// read replays a trajectory's text through a belief.
func read(t expel.Trajectory) []step {
	b := belief.New(t.Goal)
	b.Observe("", t.Start)
	out := make([]step, 0, len(t.Steps))
	for _, s := range t.Steps {
		sit, key := situation(b), b.Key()
		b.Observe(s.Action, s.Text)
		out = append(out, step{sit: sit, thought: s.Thought, progress: b.Key() != key && sit != ""})
	}
	return out
}

// stall is the situation a trajectory ended in.
func stall(t expel.Trajectory) string {
	b := belief.New(t.Goal)
	b.Observe("", t.Start)
	for _, s := range t.Steps {
		b.Observe(s.Action, s.Text)
	}
	return situation(b)
}

// Reflector is the offline reflection: the situation the failed trial
// ended in, with the thought that moves it on, as a rule.
type Reflector struct{}

// Reflect implements expel.Reflector.
func (Reflector) Reflect(_ context.Context, in expel.ReflectInput) (string, error) {
	if in.Style != envbridge.StyleHousehold {
		return "", nil
	}
	sit := stall(in.Trajectory)
	th, ok := progress[sit]
	if !ok {
		return "", nil
	}
	return Rule(sit, th), nil
}

// Actor is the offline actor: SAMem's offline thinker guided by the rule
// of the situation it is in.
type Actor struct{}

// guide is one rule the actor may follow and the recall ID it came from.
type guide struct{ thought, id string }

// Begin implements expel.Actor. The rules are gathered by situation: the
// insights in importance order, then each retrieved trajectory's first
// thought that made progress in a situation, then the reflections; the
// first for a situation wins.
func (Actor) Begin(s agent.Start, g expel.Guidance) expel.Session {
	rules := map[string]guide{}
	put := func(sit, th, id string) {
		if _, ok := rules[sit]; !ok && sit != "" && th != "" {
			rules[sit] = guide{th, id}
		}
	}
	for i, x := range g.Insights {
		if sit, th, ok := readRule(x.Text); ok {
			put(sit, th, expel.InsightID(i+1))
		}
	}
	for _, ex := range g.Examples {
		for _, st := range read(ex.Trajectory) {
			if st.progress {
				put(st.sit, st.thought, expel.ExampleID(ex.Trajectory.TaskID))
			}
		}
	}
	for i, r := range g.Reflections {
		if sit, th, ok := readRule(r); ok {
			put(sit, th, expel.ReflectionID(i+1))
		}
	}
	se := &session{th: thoughtoff.Thinker{}.Begin(s.Task, s.Style, s.Rand), rules: rules}
	if s.Style == envbridge.StyleHousehold {
		se.b = belief.New(s.Task.Goal)
	}
	return se
}

type session struct {
	th      thought.Session
	b       *belief.Belief // nil outside the household world
	rules   map[string]guide
	started bool
}

// Act implements expel.Session.
func (e *session) Act(ctx context.Context, obs envbridge.Observation) (expel.Decision, error) {
	if e.b != nil && !e.started {
		e.b.Observe("", obs.Text)
	}
	e.started = true
	var g guide
	if e.b != nil {
		g = e.rules[situation(e.b)]
	}
	d, err := e.th.Think(ctx, thought.Input{Obs: obs, Guide: g.thought})
	if err != nil {
		return expel.Decision{}, err
	}
	out := expel.Decision{Decision: agent.Decision{Thought: d.Thought, Action: d.Action}}
	if g.thought != "" && d.Thought == g.thought {
		out.Used = []string{g.id}
	}
	return out, nil
}

// Observe implements expel.Session.
func (e *session) Observe(action, text string) {
	e.started = true
	if e.b != nil {
		e.b.Observe(action, text)
	}
}

// Extractor is the offline insight extractor.
type Extractor struct{}

// maxOps is the most operations of one call (the prompt's "at most 4").
const maxOps = 4

// edits collects operations, at most maxOps and one per existing insight.
type edits struct {
	list    []expel.Insight
	touched map[int]bool
	ops     []expel.Op
}

func newEdits(list []expel.Insight) *edits { return &edits{list: list, touched: map[int]bool{}} }

// find is the 1-based number of the insight for sit, and its thought; 0
// when none.
func (e *edits) find(sit string) (int, string) {
	for i, x := range e.list {
		if s, th, ok := readRule(x.Text); ok && s == sit {
			return i + 1, th
		}
	}
	return 0, ""
}

func (e *edits) add(kind expel.OpKind, n int, text string) {
	if len(e.ops) >= maxOps || (n > 0 && e.touched[n]) {
		return
	}
	if n > 0 {
		e.touched[n] = true
	}
	e.ops = append(e.ops, expel.Op{Kind: kind, Number: n, Text: text})
}

// propose writes, for situation sit and the thought that worked there, an
// AGREE when the insight of sit says so, an EDIT when it says otherwise,
// and an ADD when none covers sit.
func (e *edits) propose(sit, th string) {
	rule := Rule(sit, th)
	switch n, had := e.find(sit); {
	case n > 0 && had == th:
		e.add(expel.OpAgree, n, rule)
	case n > 0:
		e.add(expel.OpEdit, n, rule)
	default:
		e.add(expel.OpAdd, len(e.list)+1+countAdds(e.ops), rule)
	}
}

func countAdds(ops []expel.Op) int {
	n := 0
	for _, o := range ops {
		if o.Kind == expel.OpAdd {
			n++
		}
	}
	return n
}

// Compare implements expel.Extractor: the situation the failure stalled
// in, with the thought the success made progress with there.
func (Extractor) Compare(_ context.Context, in expel.CompareInput) ([]expel.Op, error) {
	if in.Style != envbridge.StyleHousehold {
		return nil, nil
	}
	sit := stall(in.Failure)
	e := newEdits(in.Insights)
	for _, st := range read(in.Success) {
		if st.progress && st.sit == sit && isStrategy(st.thought) {
			e.propose(sit, st.thought)
			break
		}
	}
	return e.ops, nil
}

// Successes implements expel.Extractor: for each situation, the thought
// most of the successes made progress with there (ties: the first seen).
// A situation's insight is agreed with when its thought made progress
// there in one of them, and removed otherwise; a situation with no insight
// gets one with the most used thought, unless the list is full.
func (Extractor) Successes(_ context.Context, in expel.SuccessInput) ([]expel.Op, error) {
	if in.Style != envbridge.StyleHousehold {
		return nil, nil
	}
	counts := map[string]map[string]int{}
	var order []string // thoughts in the order first seen, per situation below
	for _, t := range in.Successes {
		for _, st := range read(t) {
			if !st.progress || !isStrategy(st.thought) {
				continue
			}
			if counts[st.sit] == nil {
				counts[st.sit] = map[string]int{}
			}
			if counts[st.sit][st.thought] == 0 {
				order = append(order, st.thought)
			}
			counts[st.sit][st.thought]++
		}
	}
	e := newEdits(in.Insights)
	for _, sit := range situations {
		c := counts[sit]
		if len(c) == 0 {
			continue
		}
		best := ""
		for _, th := range order {
			if c[th] > c[best] {
				best = th
			}
		}
		switch n, had := e.find(sit); {
		case n > 0 && c[had] > 0:
			e.add(expel.OpAgree, n, e.list[n-1].Text)
		case n > 0:
			e.add(expel.OpRemove, n, e.list[n-1].Text)
		case !in.Full:
			e.add(expel.OpAdd, len(e.list)+1+countAdds(e.ops), Rule(sit, best))
		}
	}
	return e.ops, nil
}

// isStrategy reports whether th is one of the offline thinker's thoughts:
// the rules know no others.
func isStrategy(th string) bool {
	for _, s := range thoughtoff.HouseholdStrategies {
		if s.Thought == th {
			return true
		}
	}
	return false
}
