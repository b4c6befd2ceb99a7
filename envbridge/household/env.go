package household

import (
	"context"
	"fmt"
	"strings"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
)

// nothingHappens answers every invalid or unparsable action, as ALFWorld does.
const nothingHappens = "Nothing happens."

// op is one admissible action, resolved to indices.
type op struct {
	verb Verb
	o, r int
}

// Env is one household episode runner. It implements envbridge.Env; it is
// not safe for concurrent use (open one per worker). Reusing one Env for many
// episodes is cheapest: the action strings it builds are kept while the task
// stays the same.
type Env struct {
	s                *Suite
	sp               *spec
	closed, over     bool
	steps, maxSteps  int
	score            float64
	at, held         int // receptacle index (-1: middle of the room), object index (-1: none)
	loc              []int16
	opened           []bool
	hot, cold, clean []bool
	lit              []bool
	// ops is parallel to adm, the admissible list of the last observation
	// (handed to the caller, so never written again: each step makes a new one).
	ops []op
	adm []string
	// sub is what the episode has reached of its task (Progress).
	sub subgoals
	// Lazily built action strings for cacheFor, indexed o*len(receps)+r.
	cacheFor                   *spec
	take, put, cln, heat, cool []string
}

var _ envbridge.Env = (*Env)(nil)

// Reset starts an episode of t, looked up by ID: the start state is the
// suite's (fixed by Config.Seed and the ID; t.Seed is informational), and
// t.MaxSteps, when > 0, overrides the suite's limit. Errors: envbridge.ErrClosed,
// envbridge.ErrUnknownTask, or the context's error.
func (e *Env) Reset(ctx context.Context, t envbridge.Task) (envbridge.Observation, error) {
	if e.closed {
		return envbridge.Observation{}, fmt.Errorf("household reset: %w", envbridge.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return envbridge.Observation{}, fmt.Errorf("household reset: %w", err)
	}
	sp, err := e.s.spec(t.ID)
	if err != nil {
		return envbridge.Observation{}, err
	}
	e.sp, e.over, e.steps, e.score = sp, false, 0, 0
	e.maxSteps = sp.task.MaxSteps
	if t.MaxSteps > 0 {
		e.maxSteps = t.MaxSteps
	}
	e.at, e.held = -1, -1
	n, nr := len(sp.objs), len(sp.lay.receps)
	e.loc = append(e.loc[:0], sp.start...)
	e.opened = resetBools(e.opened, nr)
	e.hot = resetBools(e.hot, n)
	e.cold = resetBools(e.cold, n)
	e.clean = resetBools(e.clean, n)
	e.lit = resetBools(e.lit, n)
	e.sub = subgoals{placed: resetBools(e.sub.placed, n)}
	if e.cacheFor != sp {
		e.cacheFor = sp
		for _, c := range []*[]string{&e.take, &e.put, &e.cln, &e.heat, &e.cool} {
			*c = resetStrings(*c, n*nr)
		}
	}
	return envbridge.Observation{Text: sp.first, Admissible: e.admissible()}, nil
}

func resetBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	b = b[:n]
	clear(b)
	return b
}

func resetStrings(b []string, n int) []string {
	if cap(b) < n {
		return make([]string, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// Step applies an action. Actions outside the admissible list (after
// normalising case, spacing and the place action's form) are answered
// "Nothing happens." and count as a step. Errors: envbridge.ErrClosed,
// envbridge.ErrEpisodeOver (after the end or before any Reset), or the
// context's error.
func (e *Env) Step(ctx context.Context, action string) (envbridge.StepResult, error) {
	if e.closed {
		return envbridge.StepResult{}, fmt.Errorf("household step: %w", envbridge.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return envbridge.StepResult{}, fmt.Errorf("household step: %w", err)
	}
	if e.sp == nil || e.over {
		return envbridge.StepResult{}, fmt.Errorf("household step %q: %w", action, envbridge.ErrEpisodeOver)
	}
	e.steps++
	text := nothingHappens
	if i := e.find(action); i >= 0 {
		text = e.apply(e.ops[i])
		e.noteApplied(e.ops[i])
	}
	res := envbridge.StepResult{MaxScore: 1}
	if e.goalHolds() {
		res.Reward, res.Won = 1, true
		e.sub.won = true
	} else if e.steps >= e.maxSteps {
		res.Truncated = true
	}
	e.score += res.Reward
	res.Score = e.score
	res.Done = res.Won || res.Truncated
	e.over = res.Done
	res.Observation = envbridge.Observation{Text: text, Admissible: e.admissible()}
	return res, nil
}

// Close ends the environment; it is idempotent.
func (e *Env) Close() error {
	e.closed = true
	return nil
}

// find returns the index of action in the current admissible list, or -1.
func (e *Env) find(action string) int {
	for i, a := range e.adm {
		if a == action {
			return i
		}
	}
	c := canonicalSpace(action)
	if c != action {
		for i, a := range e.adm {
			if a == c {
				return i
			}
		}
	}
	p, ok := ParseAction(c)
	if !ok {
		return -1
	}
	c = p.String(e.s.cfg.Grammar)
	for i, a := range e.adm {
		if a == c {
			return i
		}
	}
	return -1
}

// cached returns the action string for (o, r) from a lazy table.
func (e *Env) cached(tab []string, o, r int, build func() string) string {
	i := o*len(e.sp.lay.receps) + r
	if tab[i] == "" {
		tab[i] = build()
	}
	return tab[i]
}

// admissible builds the list of actions that do something now, in a fixed
// order: go to every other receptacle, open/close, take, put, clean/heat/cool,
// use, examine, inventory, look. It returns a new slice each time.
func (e *Env) admissible() []string {
	sp := e.sp
	l := sp.lay
	adm := make([]string, 0, len(l.receps)+8)
	e.ops = e.ops[:0]
	add := func(s string, v Verb, o, r int) {
		adm = append(adm, s)
		e.ops = append(e.ops, op{v, o, r})
	}
	for i := range l.receps {
		if i != e.at {
			add(l.receps[i].goTo, VerbGoTo, -1, i)
		}
	}
	if e.at >= 0 {
		r := e.at
		rc := &l.receps[r]
		visible := !rc.openable || e.opened[r]
		if rc.openable {
			if e.opened[r] {
				add(rc.close, VerbClose, -1, r)
			} else {
				add(rc.open, VerbOpen, -1, r)
			}
		}
		if visible && e.held < 0 {
			for o := range sp.objs {
				if int(e.loc[o]) == r && sp.objs[o].takeable {
					add(e.cached(e.take, o, r, func() string {
						return Action{Verb: VerbTake, Object: sp.objs[o].name, Target: rc.name}.String(e.s.cfg.Grammar)
					}), VerbTake, o, r)
				}
			}
		}
		if h := e.held; h >= 0 {
			ob := &sp.objs[h]
			if visible && CanHold(rc.kind, ob.kind) {
				add(e.cached(e.put, h, r, func() string {
					return Action{Verb: VerbPut, Object: ob.name, Target: rc.name}.String(e.s.cfg.Grammar)
				}), VerbPut, h, r)
			}
			switch {
			case rc.kind == "sinkbasin" && ob.cleanable:
				add(e.cached(e.cln, h, r, func() string { return "clean " + ob.name + " with " + rc.name }), VerbClean, h, r)
			case rc.kind == "microwave" && ob.heatable:
				add(e.cached(e.heat, h, r, func() string { return "heat " + ob.name + " with " + rc.name }), VerbHeat, h, r)
			case rc.kind == "fridge" && ob.coolable:
				add(e.cached(e.cool, h, r, func() string { return "cool " + ob.name + " with " + rc.name }), VerbCool, h, r)
			}
		}
		if visible && sp.lampObj >= 0 && int(e.loc[sp.lampObj]) == r && !e.lit[sp.lampObj] {
			add(sp.objs[sp.lampObj].use, VerbUse, sp.lampObj, r)
		}
		add(rc.examine, VerbExamine, -1, r)
	}
	if e.held >= 0 {
		add(sp.objs[e.held].examine, VerbExamine, e.held, -1)
	}
	add("inventory", VerbInventory, -1, -1)
	add("look", VerbLook, -1, -1)
	e.adm = adm
	return adm
}

// apply carries out an admissible action and returns the feedback text.
func (e *Env) apply(p op) string {
	sp := e.sp
	l := sp.lay
	var b strings.Builder
	b.Grow(96)
	switch p.verb {
	case VerbGoTo:
		e.at = p.r
		b.WriteString("You arrive at ")
		b.WriteString(l.receps[p.r].name)
		b.WriteString(". ")
		e.writeContents(&b, p.r)
	case VerbOpen:
		e.opened[p.r] = true
		b.WriteString("You open the ")
		b.WriteString(l.receps[p.r].name)
		b.WriteString(". ")
		e.writeContents(&b, p.r)
	case VerbClose:
		e.opened[p.r] = false
		return "You close the " + l.receps[p.r].name + "."
	case VerbTake:
		e.held, e.loc[p.o] = p.o, -1
		return "You pick up the " + sp.objs[p.o].name + " from the " + l.receps[p.r].name + "."
	case VerbPut:
		e.held, e.loc[p.o] = -1, int16(p.r)
		if e.s.cfg.Grammar == Grammar04 {
			return "You move the " + sp.objs[p.o].name + " to the " + l.receps[p.r].name + "."
		}
		return "You put the " + sp.objs[p.o].name + " in/on the " + l.receps[p.r].name + "."
	case VerbClean:
		e.clean[p.o] = true
		return "You clean the " + sp.objs[p.o].name + " using the " + l.receps[p.r].name + "."
	case VerbHeat:
		e.hot[p.o], e.cold[p.o] = true, false
		return "You heat the " + sp.objs[p.o].name + " using the " + l.receps[p.r].name + "."
	case VerbCool:
		e.cold[p.o], e.hot[p.o] = true, false
		return "You cool the " + sp.objs[p.o].name + " using the " + l.receps[p.r].name + "."
	case VerbUse:
		e.lit[p.o] = true
		return "You turn on the " + sp.objs[p.o].name + "."
	case VerbExamine:
		if p.o >= 0 {
			return "There's nothing special about " + sp.objs[p.o].name + "."
		}
		e.writeContents(&b, p.r)
	case VerbInventory:
		if e.held < 0 {
			return "You are not carrying anything."
		}
		return "You are carrying: a " + sp.objs[e.held].name + "."
	case VerbLook:
		if e.at < 0 {
			return l.roomText
		}
		return "You are facing the " + l.receps[e.at].name + ". Next to it, you see nothing."
	}
	return b.String()
}

// writeContents writes what is seen at receptacle r: "On the X, you see ...",
// "The X is closed." or "The X is open. In it, you see ...".
func (e *Env) writeContents(b *strings.Builder, r int) {
	rc := &e.sp.lay.receps[r]
	if rc.openable && !e.opened[r] {
		b.WriteString("The ")
		b.WriteString(rc.name)
		b.WriteString(" is closed.")
		return
	}
	e.noteSeen(r)
	if rc.openable {
		b.WriteString("The ")
		b.WriteString(rc.name)
		b.WriteString(" is open. In it, you see ")
	} else {
		b.WriteString("On the ")
		b.WriteString(rc.name)
		b.WriteString(", you see ")
	}
	n := 0
	for o := range e.sp.objs {
		if int(e.loc[o]) == r {
			if n > 0 {
				b.WriteString(", ")
				if e.lastAt(o, r) {
					b.WriteString("and ")
				}
			}
			b.WriteString("a ")
			b.WriteString(e.sp.objs[o].name)
			n++
		}
	}
	if n == 0 {
		b.WriteString("nothing")
	}
	b.WriteString(".")
}

// lastAt reports whether o is the last object at r in object order.
func (e *Env) lastAt(o, r int) bool {
	for k := o + 1; k < len(e.loc); k++ {
		if int(e.loc[k]) == r {
			return false
		}
	}
	return true
}

// goalHolds checks the task's goal against the current state.
func (e *Env) goalHolds() bool {
	sp := e.sp
	switch sp.goal.Type {
	case hhtext.LookInLight:
		return e.held >= 0 && sp.goalObj[e.held] && sp.lampObj >= 0 && e.lit[sp.lampObj] && e.at == int(e.loc[sp.lampObj])
	case hhtext.PickTwo:
		for r, dest := range sp.destRec {
			if !dest {
				continue
			}
			n := 0
			for o, at := range e.loc {
				if int(at) == r && sp.goalObj[o] {
					n++
				}
			}
			if n >= 2 {
				return true
			}
		}
		return false
	}
	for o, at := range e.loc {
		if at < 0 || !sp.goalObj[o] || !sp.destRec[at] {
			continue
		}
		switch sp.goal.Type {
		case hhtext.PickClean:
			if e.clean[o] {
				return true
			}
		case hhtext.PickHeat:
			if e.hot[o] {
				return true
			}
		case hhtext.PickCool:
			if e.cold[o] {
				return true
			}
		default:
			return true
		}
	}
	return false
}
