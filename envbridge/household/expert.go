package household

import (
	"errors"

	"github.com/samem/trainer/envbridge/household/hhtext"
)

// The expert plans with full knowledge of the start state. Every "go to" is
// one step wherever it leads, so a plan's length is the number of visits,
// openings and object actions; the expert tries every choice of target
// object(s), appliance and destination instance and keeps the shortest plan
// (ties: the first in object and receptacle order). Its length is the task's
// OracleSteps, the P of SPL (seed 002 Eq. 8).

// planner writes one candidate plan.
type planner struct {
	sp     *spec
	g      Grammar
	at     int
	opened []bool
	out    []string
}

func newPlanner(sp *spec, g Grammar) *planner {
	return &planner{sp: sp, g: g, at: -1, opened: make([]bool, len(sp.lay.receps))}
}

// goTo walks to r unless already there, and opens it when its contents are
// needed and it is closed.
func (p *planner) goTo(r int, needOpen bool) {
	rc := &p.sp.lay.receps[r]
	if p.at != r {
		p.out = append(p.out, rc.goTo)
		p.at = r
	}
	if needOpen && rc.openable && !p.opened[r] {
		p.out = append(p.out, rc.open)
		p.opened[r] = true
	}
}

func (p *planner) do(v Verb, o, r int) {
	a := Action{Verb: v, Object: p.sp.objs[o].name, Target: p.sp.lay.receps[r].name}
	p.out = append(p.out, a.String(p.g))
}

// errNoPlan means the start state admits no solution (a generator bug).
var errNoPlan = errors.New("no plan found")

// plan returns the shortest expert plan for sp.
func plan(sp *spec, g Grammar) ([]string, error) {
	var best []string
	keep := func(p *planner) {
		if best == nil || len(p.out) < len(best) {
			best = p.out
		}
	}
	var targets, dests, appls []int
	for o, ok := range sp.goalObj {
		if ok && sp.objs[o].takeable {
			targets = append(targets, o)
		}
	}
	for r := range sp.lay.receps {
		if sp.destRec[r] {
			dests = append(dests, r)
		}
		if sp.applRec[r] {
			appls = append(appls, r)
		}
	}
	verb := map[string]Verb{hhtext.PickClean: VerbClean, hhtext.PickHeat: VerbHeat, hhtext.PickCool: VerbCool}[sp.goal.Type]
	switch sp.goal.Type {
	case hhtext.LookInLight:
		if sp.lampObj < 0 {
			return nil, errNoPlan
		}
		lr := int(sp.start[sp.lampObj])
		for _, o := range targets {
			p := newPlanner(sp, g)
			from := int(sp.start[o])
			p.goTo(from, true)
			p.do(VerbTake, o, from)
			p.goTo(lr, true)
			p.out = append(p.out, sp.objs[sp.lampObj].use)
			keep(p)
		}
	case hhtext.PickTwo:
		for _, a := range targets {
			for _, b := range targets {
				if a == b {
					continue
				}
				for _, d := range dests {
					p := newPlanner(sp, g)
					for _, o := range []int{a, b} {
						from := int(sp.start[o])
						p.goTo(from, true)
						p.do(VerbTake, o, from)
						p.goTo(d, true)
						p.do(VerbPut, o, d)
					}
					keep(p)
				}
			}
		}
	default:
		if verb == VerbNone {
			appls = []int{-1}
		}
		for _, o := range targets {
			for _, a := range appls {
				for _, d := range dests {
					p := newPlanner(sp, g)
					from := int(sp.start[o])
					p.goTo(from, true)
					p.do(VerbTake, o, from)
					if a >= 0 {
						p.goTo(a, false)
						p.do(verb, o, a)
					}
					p.goTo(d, true)
					p.do(VerbPut, o, d)
					keep(p)
				}
			}
		}
	}
	if best == nil {
		return nil, errNoPlan
	}
	return best, nil
}
