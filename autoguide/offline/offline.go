// Package offline holds AutoGuide's roles without a model: rules over what
// the agent has seen (its trajectory's text, read by package belief on the
// household world), never the environment's hidden state.
//
//   - context: the agent's status from its trajectory, worded in the
//     paper's abstract way (the object is found here; the searched
//     receptacle is closed; ...), no object or place names;
//   - match: the same status text after folding case and white space;
//   - extract: a template built from the better trial's step at the first
//     differing action: "When <context>, you should <its strategy>", the
//     strategy being the offline thinker's thought behind that action;
//   - select: the guidelines written most often for the context (the same
//     text extracted from several pairs), up to k;
//   - reflect: a template naming how many actions had no effect;
//   - the actor: SAMem's offline thinker (package thought/offline), whose
//     strategy is the first selected guideline's when that guideline is
//     one of this package's and its strategy applies here, else its own
//     random choice. It does not read reflections.
package offline

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/autoguide"
	"github.com/samem/trainer/belief"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/thought"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// Roles are AutoGuide's offline roles.
type Roles struct{}

var _ autoguide.Offline = Roles{}

// Household statuses of the offline context rule, general as the paper's
// (no names of objects or places).
const (
	StatusStart       = "At the start of the task; nothing has been searched yet."
	StatusSearching   = "Searching for the object; it is not at this location."
	StatusClosed      = "The searched receptacle is closed; it has to be opened to see inside."
	StatusFound       = "The object is found here; it has not been taken yet."
	StatusSeen        = "The object was seen at another place earlier; it is not here."
	StatusOther       = "Carrying something that is not the object of the task."
	StatusToProcess   = "The object was taken; it still has to be cleaned, heated or cooled before it is placed."
	StatusAtAppliance = "Holding the object at a place that can clean, heat or cool it; it is not done yet."
	StatusNeedLight   = "Holding the object; a light source has to be found and switched on."
	StatusAtLight     = "Holding the object where a light source is."
	StatusToDest      = "The object is ready; looking for where to put it."
	StatusDestClosed  = "At the destination with the object ready, but the destination is closed."
	StatusAtDest      = "At the destination with the object ready to be placed."
)

// Statuses outside the household world, read from the last observation.
const (
	StatusFirst    = "At the start of the task."
	StatusNoEffect = "The last action had no effect."
	StatusProgress = "The last action changed something; exploring further."
)

// Context implements autoguide.Offline.
func (Roles) Context(task envbridge.Task, style envbridge.Style, steps []autoguide.Step) string {
	if len(steps) == 0 {
		return ""
	}
	if style != envbridge.StyleHousehold {
		return generic(steps)
	}
	b := belief.New(task.Goal)
	for _, s := range steps {
		b.Observe(s.Action, s.Text)
	}
	if !b.GoalOK {
		return generic(steps)
	}
	switch {
	case b.HoldingTarget() && b.NeedsProcessing() && b.AtAppliance():
		return StatusAtAppliance
	case b.HoldingTarget() && b.NeedsProcessing():
		return StatusToProcess
	case b.HoldingTarget() && b.Goal.Lamp != "":
		if b.Lamp() != "" {
			return StatusAtLight
		}
		return StatusNeedLight
	case b.HoldingTarget() && b.AtDestination():
		if b.AtClosed() {
			return StatusDestClosed
		}
		return StatusAtDest
	case b.HoldingTarget():
		return StatusToDest
	case b.Holding != "":
		return StatusOther
	case b.TargetHere() != "":
		return StatusFound
	case b.AtClosed():
		return StatusClosed
	case b.TargetSeenAt() != "":
		return StatusSeen
	case b.At != "":
		return StatusSearching
	}
	return StatusStart
}

// generic is the status outside the household world: whether the last
// action had an effect, read from its answer.
func generic(steps []autoguide.Step) string {
	if len(steps) == 1 {
		return StatusFirst
	}
	if noEffect(steps[len(steps)-1].Text) {
		return StatusNoEffect
	}
	return StatusProgress
}

// noEffect reports an answer of the kind environments give to an action
// that changed nothing.
func noEffect(text string) bool {
	t := strings.ToLower(text)
	for _, p := range []string{"nothing happens", "you can't", "you cannot", "i don't", "i didn't understand", "that's not a verb", "no known action", "not possible"} {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

// Match implements autoguide.Offline: the first stored context equal to c
// after folding case and white space, or -1.
func (Roles) Match(known []string, c string) int {
	for i, k := range known {
		if fold(k) == fold(c) {
			return i
		}
	}
	return -1
}

func fold(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// shouldSep separates a guideline's status clause from its advice.
const shouldSep = ", you should "

// Guideline is the offline guideline for a status and a strategy thought.
func Guideline(status, strategy string) string {
	return "When " + lowerFirst(strings.TrimRight(status, ".")) + shouldSep + lowerFirst(strategy)
}

// Strategy is the strategy thought of an offline guideline ("" for a
// guideline written otherwise).
func Strategy(guideline string) string {
	_, adv, ok := strings.Cut(guideline, shouldSep)
	if !ok || !strings.HasPrefix(guideline, "When ") || adv == "" {
		return ""
	}
	return strings.ToUpper(adv[:1]) + adv[1:]
}

func lowerFirst(s string) string {
	if s == "" || strings.HasPrefix(s, "I ") {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// Extract implements autoguide.Offline: the better trial's thought behind
// its action at the divergence, as the advice for the status there.
func (Roles) Extract(_ envbridge.Task, c string, pos, _ autoguide.Trajectory, t int) string {
	if t+1 >= len(pos.Steps) {
		return ""
	}
	th := strings.TrimSpace(pos.Steps[t+1].Thought)
	if th == "" {
		return ""
	}
	return Guideline(c, th)
}

// Select implements autoguide.Offline: the k guidelines written most often
// (ties: the earlier first), one index per distinct text.
func (Roles) Select(guides []string, _ string, _ []autoguide.Step, k int) []int {
	first := map[string]int{}
	count := map[string]int{}
	var order []int
	for i, g := range guides {
		if _, ok := first[g]; !ok {
			first[g] = i
			order = append(order, i)
		}
		count[g]++
	}
	sort.SliceStable(order, func(a, b int) bool { return count[guides[order[a]]] > count[guides[order[b]]] })
	if len(order) > k {
		order = order[:k]
	}
	return order
}

// Reflect implements autoguide.Offline: how many actions of the failed
// trial had no effect, and the advice to try what was not tried.
func (Roles) Reflect(_ envbridge.Task, steps []autoguide.Step) string {
	n, wasted := 0, 0
	for _, s := range steps {
		if s.Action == "" {
			continue
		}
		n++
		if noEffect(s.Text) {
			wasted++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("The attempt failed after %d actions, %d of which had no effect. Next time, check the places not visited yet and do not repeat actions that changed nothing.", n, wasted)
}

// Begin implements autoguide.Offline.
func (Roles) Begin(s agent.Start) autoguide.Actor {
	return &actor{th: thoughtoff.Thinker{}.Begin(s.Task, s.Style, s.Rand)}
}

type actor struct {
	th thought.Session
}

// Act implements autoguide.Actor: the thinker follows the first selected
// guideline of this package's form.
func (a *actor) Act(ctx context.Context, obs envbridge.Observation, _ string, guides, _ []string) (agent.Decision, error) {
	guide := ""
	for _, g := range guides {
		if guide = Strategy(g); guide != "" {
			break
		}
	}
	d, err := a.th.Think(ctx, thought.Input{Obs: obs, Guide: guide})
	if err != nil {
		return agent.Decision{}, err
	}
	return agent.Decision{Thought: d.Thought, Action: d.Action, Guided: guide != "" && d.Thought == guide}, nil
}

// Observe implements autoguide.Actor; the thinker reads each observation
// when it thinks.
func (a *actor) Observe(string, string) {}
