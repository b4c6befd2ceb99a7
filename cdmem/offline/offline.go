// Package offline holds CDMem's roles without a model: rules over the
// episode's own transcript (household text read by packages belief and
// hhtext), never the environment's hidden state.
//
//   - expert: the locations "X is in Y" seen in the transcript's
//     observations, the functions "a Y <verb>s things" shown by
//     "You heat the X using the Y." answers, and the actions with adjacent
//     repeats merged;
//   - reflect: after a success, the key steps: the strategies (the offline
//     thinker's thoughts) of the actions that changed what the agent knows,
//     each once, in order; after a failure, the kind of failure (search:
//     the object never found; operation: actions that did nothing; else
//     planning) with the stage never reached;
//   - the summaries: the set union of the lines (scene) or items (task
//     type), earlier ones first;
//   - the actor: SAMem's offline thinker (package thought/offline), guided
//     at each household step by the strategy its stage calls for when the
//     type's success guidance names that strategy; it reads neither the
//     scene knowledge, nor the fail guidance, nor the exemplars.
package offline

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/cdmem"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
	"github.com/samem/trainer/thought"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// Roles are CDMem's offline roles.
type Roles struct{}

var _ cdmem.Offline = Roles{}

var reProcess = regexp.MustCompile(`You (clean|heat|cool) the (.+?) using the (.+?)\.`)

// kindOf drops an instance number: "microwave 1" -> "microwave".
func kindOf(name string) string {
	if k, _, ok := hhtext.SplitName(name); ok {
		return k
	}
	return name
}

// Expert implements cdmem.Offline.
func (Roles) Expert(task envbridge.Task, steps []cdmem.Step) cdmem.Expert {
	b := belief.New(task.Goal)
	var funcs []string
	var acts []string
	for _, s := range steps {
		b.Observe(s.Action, s.Text)
		if m := reProcess.FindStringSubmatch(s.Text); m != nil {
			f := "a " + kindOf(m[3]) + " can " + m[1] + " things"
			if !slices.Contains(funcs, f) {
				funcs = append(funcs, f)
			}
		}
		if s.Action != "" && (len(acts) == 0 || acts[len(acts)-1] != s.Action) {
			acts = append(acts, s.Action)
		}
	}
	var locs []string
	for _, r := range b.Receptacles {
		if items := b.Contents[r]; len(items) > 0 {
			locs = append(locs, strings.Join(items, ", ")+" in "+r)
		}
	}
	ex := cdmem.Expert{Locations: strings.Join(locs, "; "), Functions: "None", Actions: strings.Join(acts, ", ")}
	if len(funcs) > 0 {
		ex.Functions = strings.Join(funcs, "; ")
	}
	return ex
}

// keyPrefix starts an offline success reflection; its strategies follow,
// separated by keySep.
const (
	keyPrefix = "Key steps: "
	keySep    = " Then: "
)

// Reflect implements cdmem.Offline.
func (Roles) Reflect(task envbridge.Task, success bool, steps []cdmem.Step, _ cdmem.Expert, _ []string) string {
	if success {
		// The key steps: the strategies of the actions that changed what
		// the agent knows (a new place, an opened receptacle, an object
		// taken, processed or placed), each once, in order.
		b := belief.New(task.Goal)
		var strat []string
		for _, s := range steps {
			before := b.Key()
			b.Observe(s.Action, s.Text)
			th := strings.TrimSpace(s.Thought)
			if s.Action == "" || b.Key() == before || !isStrategy(th) || slices.Contains(strat, th) {
				continue
			}
			strat = append(strat, th)
		}
		if len(strat) == 0 {
			return ""
		}
		return keyPrefix + strings.Join(strat, keySep)
	}
	b := belief.New(task.Goal)
	nothing := 0
	for _, s := range steps {
		b.Observe(s.Action, s.Text)
		if s.Action != "" && strings.Contains(s.Text, "Nothing happens") {
			nothing++
		}
	}
	switch {
	case !b.GoalOK:
		return fmt.Sprintf("Planning failure: the task was not completed in %d steps; try other actions.", len(steps)-1)
	case b.TargetSeenAt() == "" && b.TargetHere() == "" && !b.HoldingTarget() && len(b.Placed) == 0:
		return fmt.Sprintf("Search failure: the object was never found after visiting %d places; search the places not visited, opening closed ones.", len(b.Visited))
	case nothing > 2:
		return fmt.Sprintf("Operation failure: %d actions did nothing; act only where the action can work.", nothing)
	}
	return "Planning failure: the object was found but the task was not completed; take it, process it if the task asks, and put it at the destination."
}

// isStrategy reports a thought of the offline thinker's household library.
func isStrategy(th string) bool {
	for _, s := range thoughtoff.HouseholdStrategies {
		if s.Thought == th {
			return true
		}
	}
	return false
}

// SceneSummary implements cdmem.Offline: the earlier summary's facts and
// the new ones, each once.
func (Roles) SceneSummary(previous string, functions []string) string {
	var facts []string
	add := func(s string) {
		for _, f := range strings.Split(s, ";") {
			if f = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f), ".")); f != "" && !slices.Contains(facts, f) {
				facts = append(facts, f)
			}
		}
	}
	add(previous)
	for _, f := range functions {
		add(f)
	}
	return strings.Join(facts, "; ")
}

// TaskSummary implements cdmem.Offline: the earlier items and the new
// reflections' items, each once. A success reflection's strategies are
// items one by one.
func (Roles) TaskSummary(previous []string, _ bool, reflections []string) []string {
	out := slices.Clone(previous)
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, r := range reflections {
		_, r, _ = strings.Cut(r, "Reflection: ")
		if rest, ok := strings.CutPrefix(r, keyPrefix); ok {
			for _, s := range strings.Split(rest, keySep) {
				add(s)
			}
			continue
		}
		add(r)
	}
	return out
}

// Begin implements cdmem.Offline.
func (Roles) Begin(s agent.Start) cdmem.Actor {
	return &actor{task: s.Task, style: s.Style, th: thoughtoff.Thinker{}.Begin(s.Task, s.Style, s.Rand), b: belief.New(s.Task.Goal)}
}

type actor struct {
	task  envbridge.Task
	style envbridge.Style
	th    thought.Session
	b     *belief.Belief
	seen  bool
}

// Act implements cdmem.Actor.
func (a *actor) Act(ctx context.Context, obs envbridge.Observation, v cdmem.View) (agent.Decision, error) {
	if !a.seen {
		a.b.Observe("", obs.Text)
		a.seen = true
	}
	guide := ""
	if a.style == envbridge.StyleHousehold && a.b.GoalOK {
		if st := stage(a.b); st != "" && slices.Contains(v.Guidance, st) {
			guide = st
		}
	}
	d, err := a.th.Think(ctx, thought.Input{Obs: obs, Guide: guide})
	if err != nil {
		return agent.Decision{}, err
	}
	return agent.Decision{Thought: d.Thought, Action: d.Action, Guided: guide != "" && d.Thought == guide}, nil
}

// Observe implements cdmem.Actor.
func (a *actor) Observe(action, text string) { a.b.Observe(action, text) }

// stage is the strategy the household stage calls for, from what the
// agent has seen.
func stage(b *belief.Belief) string {
	switch {
	case b.HoldingTarget() && b.NeedsProcessing():
		if b.AtAppliance() {
			return thoughtoff.UseAppliance
		}
		return thoughtoff.ToAppliance
	case b.HoldingTarget() && b.Goal.Lamp != "":
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
