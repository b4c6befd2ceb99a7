// Package offline is MemRL's agent without a model: SAMem's offline
// thinker (a library of de-indexicalised strategy thoughts) steered by the
// memories MemRL injects, and the rules that write a won episode's script
// and a failed episode's reflection. It reads only what the agent sees:
// the observations (household progress read from their text by package
// belief), the admissible actions, and its own decisions.
//
// A script is the strategies of the episode that changed the situation, in
// the order first used, one per line; a reflection names the first stage
// of the household task the episode never reached and the strategies that
// stage needs. Shown memories steer the agent through the strategy texts
// they contain: in the household world, the strategy that the situation's
// stage calls for guides the step when some shown memory names it; in
// other worlds, the named strategies guide the steps in turn.
package offline

import (
	"context"
	"slices"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
	"github.com/samem/trainer/memrl"
	"github.com/samem/trainer/thought"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// Agent is MemRL's offline agent (memrl.Offline).
type Agent struct{}

// Begin implements memrl.Offline.
func (Agent) Begin(s agent.Start, shown []memrl.Shown) memrl.Session {
	e := &session{th: thoughtoff.Thinker{}.Begin(s.Task, s.Style, s.Rand), known: map[string]bool{}}
	if s.Style == envbridge.StyleHousehold {
		e.b = belief.New(s.Task.Goal)
	}
	for _, m := range shown {
		for _, st := range strategiesIn(m.Lesson) {
			if !e.known[st] {
				e.known[st] = true
				e.named = append(e.named, st)
			}
		}
	}
	return e
}

type session struct {
	th thought.Session
	b  *belief.Belief // household only
	// known are the strategy thoughts the shown memories name, named in
	// the order first named.
	known map[string]bool
	named []string
	steps int

	lastThought string
	lastKey     string
	used        []string // strategies that changed the situation, first use first
	// household progress, for the reflection
	found, held, processed, lamp, atDest bool
	placed                               int
}

const nothingHappens = "Nothing happens."

// Act implements memrl.Session.
func (e *session) Act(ctx context.Context, obs envbridge.Observation) (agent.Decision, error) {
	if e.steps == 0 {
		e.observe("", obs.Text)
	}
	guide := e.guide()
	d, err := e.th.Think(ctx, thought.Input{Obs: obs, Guide: guide})
	if err != nil {
		return agent.Decision{}, err
	}
	e.steps++
	e.lastThought = d.Thought
	return agent.Decision{Thought: d.Thought, Action: d.Action, Guided: guide != "" && d.Thought == guide}, nil
}

// Observe implements memrl.Session.
func (e *session) Observe(action, text string) { e.observe(action, text) }

func (e *session) observe(action, text string) {
	key := strings.Join(strings.Fields(text), " ")
	if e.b != nil {
		e.b.Observe(action, text)
		key = e.b.Key()
		e.progress()
	}
	changed := action != "" && strings.TrimSpace(text) != nothingHappens && key != e.lastKey
	if changed && e.lastThought != "" && !slices.Contains(e.used, e.lastThought) {
		e.used = append(e.used, e.lastThought)
	}
	e.lastKey = key
}

func (e *session) progress() {
	b := e.b
	if b.HoldingTarget() || b.TargetHere() != "" || b.TargetSeenAt() != "" {
		e.found = true
	}
	if b.HoldingTarget() {
		e.held = true
		if !b.NeedsProcessing() && b.Goal.Type != hhtext.LookInLight {
			e.processed = true
		}
		if b.AtDestination() {
			e.atDest = true
		}
		if b.LampOn {
			e.lamp = true
		}
	}
	e.placed = max(e.placed, len(b.Placed))
}

// guide is the strategy a shown memory names for this step, or "".
func (e *session) guide() string {
	if len(e.named) == 0 {
		return ""
	}
	if e.b == nil {
		return e.named[e.steps%len(e.named)]
	}
	if st := stageStrategy(e.b); e.known[st] {
		return st
	}
	return ""
}

// stageStrategy is the strategy the household task's stage calls for in
// the situation b describes ("" when none does).
func stageStrategy(b *belief.Belief) string {
	switch {
	case b.HoldingTarget() && b.NeedsProcessing():
		if b.AtAppliance() {
			return thoughtoff.UseAppliance
		}
		return thoughtoff.ToAppliance
	case b.HoldingTarget() && b.Goal.Lamp != "" && !b.LampOn:
		if b.Lamp() != "" {
			return thoughtoff.UseLamp
		}
		return thoughtoff.FindLamp
	case b.HoldingTarget() && b.AtDestination():
		if b.AtClosed() {
			return thoughtoff.OpenHere
		}
		return thoughtoff.PlaceHere
	case b.HoldingTarget():
		return thoughtoff.ToDest
	case b.Holding != "":
		return ""
	case b.TargetHere() != "":
		return thoughtoff.TakeHere
	case b.TargetSeenAt() != "":
		return thoughtoff.Return
	case b.AtClosed():
		return thoughtoff.OpenHere
	}
	return thoughtoff.Search
}

// Script implements memrl.Session.
func (e *session) Script() string { return memrl.FormatScript(e.used) }

// Stage lessons of the offline reflection: what went wrong, and the
// strategies the missed stage needs.
var stageLessons = []struct {
	what string
	use  []string
}{
	{"The target object was never found.", []string{thoughtoff.Search, thoughtoff.OpenHere}},
	{"The target object was seen but never picked up.", []string{thoughtoff.Return, thoughtoff.TakeHere}},
	{"No light source was switched on while the object was held.", []string{thoughtoff.FindLamp, thoughtoff.UseLamp}},
	{"The object was never cleaned, heated or cooled as the task asked.", []string{thoughtoff.ToAppliance, thoughtoff.UseAppliance}},
	{"The object was never brought to the final destination.", []string{thoughtoff.ToDest}},
	{"The object reached the final destination but was never put down there.", []string{thoughtoff.OpenHere, thoughtoff.PlaceHere}},
	{"Only one of the two target objects was put in place.", []string{thoughtoff.Search, thoughtoff.TakeHere, thoughtoff.ToDest, thoughtoff.PlaceHere}},
}

// Reflect implements memrl.Session: the first stage of the household task
// the episode never reached, with the strategies it needs; "" elsewhere
// or when every stage was reached.
func (e *session) Reflect() string {
	if e.b == nil || !e.b.GoalOK {
		return ""
	}
	g := e.b.Goal
	i := -1
	switch {
	case !e.found:
		i = 0
	case !e.held:
		i = 1
	case g.Type == hhtext.LookInLight:
		if !e.lamp {
			i = 2
		}
	case !e.processed:
		i = 3
	case !e.atDest:
		i = 4
	case e.placed == 0:
		i = 5
	case e.placed < g.Count:
		i = 6
	}
	if i < 0 {
		return ""
	}
	l := stageLessons[i]
	return l.what + " Next time: " + strings.Join(l.use, " ")
}

// strategiesIn lists the library strategies a memory's text names, in
// the order they appear.
func strategiesIn(text string) []string {
	type at struct {
		i  int
		st string
	}
	var found []at
	for _, st := range allStrategies {
		if i := strings.Index(text, st); i >= 0 {
			found = append(found, at{i, st})
		}
	}
	slices.SortFunc(found, func(a, b at) int { return a.i - b.i })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.st
	}
	return out
}

var allStrategies = func() []string {
	var out []string
	for _, s := range thoughtoff.HouseholdStrategies {
		out = append(out, s.Thought)
	}
	return append(out, thoughtoff.FictionStrategies()...)
}()
