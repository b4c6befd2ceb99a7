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
//   - reflect: the status the failed trial ended in, to be handled
//     otherwise next time;
//   - the actor: SAMem's offline thinker (package thought/offline), whose
//     strategy is the first selected guideline's when that guideline is
//     one of this package's and its strategy applies here, else its own
//     random choice; in training its random stream is the task's own until
//     it reaches a status its reflections name (switchSource).
package offline

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
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

// Reflect implements autoguide.Offline: the status the failed trial ended
// in, where something else should be tried next time. The offline actor
// reads it (stuckAt).
func (r Roles) Reflect(task envbridge.Task, steps []autoguide.Step) string {
	if len(steps) < 2 {
		return ""
	}
	// The status after the last action: Step.Context is the status before it.
	return stuckPrefix + r.context(task, steps) + stuckSuffix
}

// context is the household status when the task's goal reads as one, else
// the generic one.
func (r Roles) context(task envbridge.Task, steps []autoguide.Step) string {
	style := envbridge.StyleHousehold
	if !belief.New(task.Goal).GoalOK {
		style = envbridge.StyleFiction
	}
	return r.Context(task, style, steps)
}

const (
	stuckPrefix = "The attempt failed while in this status: "
	stuckSuffix = " Next time, try something other than what was done there."
)

// stuckAt are the statuses the offline reflections name.
func stuckAt(reflections []string) map[string]bool {
	out := map[string]bool{}
	for _, r := range reflections {
		if s, ok := strings.CutPrefix(r, stuckPrefix); ok {
			if s, ok = strings.CutSuffix(s, stuckSuffix); ok {
				out[s] = true
			}
		}
	}
	return out
}

// Begin implements autoguide.Offline.
func (Roles) Begin(s agent.Start) autoguide.Actor {
	h := fnv.New64a()
	h.Write([]byte(s.Task.ID))
	src := &switchSource{task: rand.NewPCG(h.Sum64(), 0x5eed), ep: s.Rand, switched: s.Mode.Evaluates() || s.Rand == nil}
	if src.ep == nil {
		src.ep = rand.New(rand.NewPCG(0, 0))
	}
	return &actor{task: s.Task, style: s.Style, src: src, th: thoughtoff.Thinker{}.Begin(s.Task, s.Style, rand.New(src))}
}

// switchSource is the offline actor's randomness in training: a stream of
// the task's own until the agent first reaches a status its reflections
// name, then the episode's. A task's trials thus share their steps up to
// that status, as the trials of a model at temperature 0 share theirs
// until a reflection makes one act otherwise, and differ from there:
// AutoGuide's pairs then diverge where the failed trial went wrong. In
// evaluation (no reflections) the episode's stream is used throughout.
type switchSource struct {
	task     rand.Source
	ep       rand.Source
	switched bool
}

func (s *switchSource) Uint64() uint64 {
	if s.switched {
		return s.ep.Uint64()
	}
	return s.task.Uint64()
}

type actor struct {
	task  envbridge.Task
	style envbridge.Style
	src   *switchSource
	th    thought.Session
	steps []autoguide.Step
}

// Act implements autoguide.Actor: the thinker follows the first selected
// guideline of this package's form.
func (a *actor) Act(ctx context.Context, obs envbridge.Observation, _ string, guides, reflections []string) (agent.Decision, error) {
	if len(a.steps) == 0 {
		a.steps = append(a.steps, autoguide.Step{Text: obs.Text})
	}
	if !a.src.switched && len(reflections) > 0 && stuckAt(reflections)[Roles{}.Context(a.task, a.style, a.steps)] {
		a.src.switched = true
	}
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

// Observe implements autoguide.Actor.
func (a *actor) Observe(action, text string) {
	a.steps = append(a.steps, autoguide.Step{Action: action, Text: text})
}
