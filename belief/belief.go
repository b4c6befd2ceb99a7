// Package belief keeps what an agent knows about one household episode from
// the text it has seen: the goal, the receptacles of the room, where it is,
// what it saw where, what it carries, what it has cleaned, heated or cooled,
// and what it has put in place. It reads only observation and goal text
// (through envbridge/household/hhtext), never the environment's hidden
// state, so the offline agent roles built on it see what an LLM would see.
package belief

import (
	"fmt"
	"strings"

	"github.com/samem/trainer/envbridge/household/hhtext"
)

// Belief is an agent's knowledge of one household episode. The zero value is
// not usable: call New.
type Belief struct {
	Goal   hhtext.Goal
	GoalOK bool // the goal matched one of the six templates

	Receptacles []string // in the order the room listed them
	At          string   // current receptacle; "" in the middle of the room
	Holding     string   // object carried; "" when nothing

	Visited  map[string]bool     // receptacles arrived at
	Closed   map[string]bool     // receptacles known to be closed now
	Contents map[string][]string // last seen contents of each receptacle
	// Processed maps an object to the verb done to it ("clean", "heat", "cool").
	Processed map[string]string
	// Placed lists target objects put at a destination-type receptacle and not taken back.
	Placed []string
	LampOn bool
	Steps  int // observations seen after the first
}

// New starts a belief for an episode whose goal is goal.
func New(goal string) *Belief {
	g, ok := hhtext.ParseGoal(goal)
	return &Belief{
		Goal: g, GoalOK: ok,
		Visited: map[string]bool{}, Closed: map[string]bool{},
		Contents: map[string][]string{}, Processed: map[string]string{},
	}
}

// Observe updates the belief with the observation that action (empty for the
// first observation) led to.
func (b *Belief) Observe(action, text string) {
	ev := hhtext.ParseObservation(text)
	if action != "" {
		b.Steps++
	}
	if ev.Task != "" && !b.GoalOK {
		b.Goal, b.GoalOK = hhtext.ParseGoal(ev.Task)
	}
	switch ev.Kind {
	case hhtext.Start:
		b.Receptacles = append(b.Receptacles[:0], ev.Items...)
	case hhtext.Arrive:
		b.At = ev.Target
		b.Visited[ev.Target] = true
		b.Closed[ev.Target] = ev.Closed
		if !ev.Closed {
			b.Contents[ev.Target] = ev.Items
		}
	case hhtext.Open:
		b.At = ev.Target
		b.Closed[ev.Target] = false
		b.Contents[ev.Target] = ev.Items
	case hhtext.Close:
		b.Closed[ev.Target] = true
	case hhtext.Take:
		b.Holding = ev.Object
		b.Contents[ev.Target] = remove(b.Contents[ev.Target], ev.Object)
		b.Placed = remove(b.Placed, ev.Object)
	case hhtext.Put:
		b.Contents[ev.Target] = append(b.Contents[ev.Target], ev.Object)
		if b.isTarget(ev.Object) && b.IsDestination(ev.Target) {
			b.Placed = append(b.Placed, ev.Object)
		}
		b.Holding = ""
	case hhtext.Clean, hhtext.Heat, hhtext.Cool:
		b.Processed[ev.Object] = strings.ToLower(ev.Kind.String())
	case hhtext.TurnOn:
		b.LampOn = true
	case hhtext.Inventory:
		if len(ev.Items) == 0 {
			b.Holding = ""
		} else {
			b.Holding = ev.Items[0]
		}
	}
}

func remove(list []string, x string) []string {
	out := list[:0:0]
	for _, v := range list {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// kind is the type of an instance name ("apple 1" -> "apple").
func kind(name string) string {
	k, _, ok := hhtext.SplitName(name)
	if !ok {
		return name
	}
	return k
}

func (b *Belief) isTarget(obj string) bool { return b.GoalOK && kind(obj) == b.Goal.Object }

// IsDestination reports whether recep is of the goal's destination type.
func (b *Belief) IsDestination(recep string) bool {
	return b.GoalOK && b.Goal.Receptacle != "" && kind(recep) == b.Goal.Receptacle
}

// Process is the verb the goal asks for ("clean", "heat", "cool"), or "".
func (b *Belief) Process() string {
	switch b.Goal.Type {
	case hhtext.PickClean:
		return "clean"
	case hhtext.PickHeat:
		return "heat"
	case hhtext.PickCool:
		return "cool"
	}
	return ""
}

// Appliance is the receptacle type the goal's processing needs, or "".
func (b *Belief) Appliance() string {
	switch b.Process() {
	case "clean":
		return "sinkbasin"
	case "heat":
		return "microwave"
	case "cool":
		return "fridge"
	}
	return ""
}

// HoldingTarget reports whether the carried object is of the goal's type.
func (b *Belief) HoldingTarget() bool { return b.Holding != "" && b.isTarget(b.Holding) }

// NeedsProcessing reports whether the carried target still needs the goal's processing.
func (b *Belief) NeedsProcessing() bool {
	p := b.Process()
	return p != "" && b.HoldingTarget() && b.Processed[b.Holding] != p
}

// AtClosed reports whether the current receptacle is known to be closed.
func (b *Belief) AtClosed() bool { return b.At != "" && b.Closed[b.At] }

// AtDestination reports whether the agent is at a receptacle of the destination type.
func (b *Belief) AtDestination() bool { return b.At != "" && b.IsDestination(b.At) }

// AtAppliance reports whether the agent is at the appliance the goal needs.
func (b *Belief) AtAppliance() bool {
	a := b.Appliance()
	return a != "" && b.At != "" && kind(b.At) == a
}

// placed reports whether obj was put in place by this agent.
func (b *Belief) placed(obj string) bool {
	for _, p := range b.Placed {
		if p == obj {
			return true
		}
	}
	return false
}

// TargetsAt lists target objects seen at recep that are not already in place.
func (b *Belief) TargetsAt(recep string) []string {
	var out []string
	for _, o := range b.Contents[recep] {
		if b.isTarget(o) && !b.placed(o) {
			out = append(out, o)
		}
	}
	return out
}

// TargetHere is a target object visible at the current receptacle, or "".
func (b *Belief) TargetHere() string {
	if b.At == "" || b.Closed[b.At] {
		return ""
	}
	if t := b.TargetsAt(b.At); len(t) > 0 {
		return t[0]
	}
	return ""
}

// TargetSeenAt is a receptacle other than the current one where a target
// object was seen, in room order, or "".
func (b *Belief) TargetSeenAt() string {
	for _, r := range b.order() {
		if r != b.At && len(b.TargetsAt(r)) > 0 {
			return r
		}
	}
	return ""
}

// LampSeenAt is where a light source of the goal's type was seen (a lamp
// listed as a receptacle is its own place), or "".
func (b *Belief) LampSeenAt() string {
	if b.Goal.Lamp == "" {
		return ""
	}
	for _, r := range b.order() {
		if kind(r) == b.Goal.Lamp {
			return r
		}
		for _, o := range b.Contents[r] {
			if kind(o) == b.Goal.Lamp {
				return r
			}
		}
	}
	return ""
}

// Lamp is the instance name of a light source visible here, or "".
func (b *Belief) Lamp() string {
	if b.Goal.Lamp == "" || b.At == "" {
		return ""
	}
	if kind(b.At) == b.Goal.Lamp {
		return b.At
	}
	for _, o := range b.Contents[b.At] {
		if kind(o) == b.Goal.Lamp {
			return o
		}
	}
	return ""
}

// Unvisited lists receptacles not yet arrived at, in room order.
func (b *Belief) Unvisited() []string {
	var out []string
	for _, r := range b.Receptacles {
		if !b.Visited[r] {
			out = append(out, r)
		}
	}
	return out
}

// FirstOfKind is the first receptacle of type k in room order, or "".
func (b *Belief) FirstOfKind(k string) string {
	for _, r := range b.Receptacles {
		if kind(r) == k {
			return r
		}
	}
	return ""
}

// order is the room's receptacles followed by any others seen.
func (b *Belief) order() []string {
	if len(b.Contents) == 0 {
		return b.Receptacles
	}
	seen := make(map[string]bool, len(b.Receptacles))
	out := append([]string(nil), b.Receptacles...)
	for _, r := range b.Receptacles {
		seen[r] = true
	}
	var extra []string
	for r := range b.Contents {
		if !seen[r] {
			extra = append(extra, r)
		}
	}
	sortStrings(extra)
	return append(out, extra...)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Key summarises what the agent knows, so that a step that taught it
// nothing can be told from one that did: the same key before and after.
func (b *Belief) Key() string {
	var sb strings.Builder
	sb.WriteString(b.At)
	sb.WriteByte('|')
	sb.WriteString(b.Holding)
	sb.WriteByte('|')
	if b.Closed[b.At] {
		sb.WriteByte('c')
	}
	if b.LampOn {
		sb.WriteByte('l')
	}
	fmt.Fprintf(&sb, "|%d|%d|%d|%s", len(b.Visited), len(b.Placed), len(b.Contents[b.At]), b.Processed[b.Holding])
	return sb.String()
}
