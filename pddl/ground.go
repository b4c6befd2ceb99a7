package pddl

import (
	"fmt"
	"strings"
)

// goalAction and goalFact name the synthetic action that the goal is compiled
// into: the goal becomes that action's precondition (so existential goals
// ground like existential preconditions), and the search goal is goalFact.
// The synthetic action costs 0 and is dropped from plans.
const (
	goalAction = "__goal"
	goalFact   = "__goal-reached"
)

// groundAction is one applicable-in-principle ground action over fluent facts.
type groundAction struct {
	step Step
	cost int
	pre  []int // fluent facts that must hold
	neg  []int // fluent facts that must not hold
	add  []int
	del  []int
}

// grounded is a problem compiled to fluent facts and ground actions.
type grounded struct {
	facts   []string // fact id -> key "pred a b"
	actions []groundAction
	init    []int
	goal    int // id of goalFact
}

func atomKey(pred string, args []string) string {
	if len(args) == 0 {
		return pred
	}
	return pred + " " + strings.Join(args, " ")
}

// ground compiles p over d. Static predicates (in no effect) are evaluated
// while binding parameters, so actions whose static preconditions fail are
// never built; then actions unreachable in the delete relaxation are dropped.
func ground(d *Domain, p *Problem) (*grounded, error) {
	if err := p.Check(d); err != nil {
		return nil, err
	}
	fluent := map[string]bool{}
	for _, a := range d.Actions {
		for _, e := range a.Effect {
			fluent[e.Pred] = true
		}
	}
	static := map[string]bool{}
	g := &grounded{}
	ids := map[string]int{}
	factID := func(key string) int {
		if id, ok := ids[key]; ok {
			return id
		}
		ids[key] = len(g.facts)
		g.facts = append(g.facts, key)
		return len(g.facts) - 1
	}
	for _, a := range p.Init {
		k := atomKey(a.Pred, a.Args)
		if fluent[a.Pred] {
			g.init = append(g.init, factID(k))
		} else {
			static[k] = true
		}
	}
	var objects []Param
	objects = append(objects, d.Constants...)
	objects = append(objects, p.Objects...)
	byType := map[string][]string{}
	ofType := func(t string) []string {
		if l, ok := byType[t]; ok {
			return l
		}
		l := []string{}
		for _, o := range objects {
			if d.IsA(o.Type, t) {
				l = append(l, o.Name)
			}
		}
		byType[t] = l
		return l
	}

	schemas := append([]Action{}, d.Actions...)
	schemas = append(schemas, Action{
		Name:   goalAction,
		Pre:    p.Goal,
		Effect: []Literal{{Atom: Atom{Pred: goalFact}}},
	})
	fluent[goalFact] = true
	g.goal = factID(goalFact)

	for _, s := range schemas {
		vars := append(append([]Param{}, s.Params...), s.Pre.Vars...)
		index := map[string]int{}
		for i, v := range vars {
			index[v.Name] = i
		}
		// checkAt[i]: static literals whose last variable is vars[i];
		// literals with no variable are checked once, up front.
		checkAt := make([][]Literal, len(vars))
		var upfront []Literal
		for _, l := range s.Pre.Lits {
			if fluent[l.Pred] && l.Pred != "=" {
				continue
			}
			last := -1
			for _, a := range l.Args {
				if i, ok := index[a]; ok && i > last {
					last = i
				}
			}
			if last < 0 {
				upfront = append(upfront, l)
			} else {
				checkAt[last] = append(checkAt[last], l)
			}
		}
		binding := make([]string, len(vars))
		resolve := func(args []string) []string {
			out := make([]string, len(args))
			for i, a := range args {
				if j, ok := index[a]; ok {
					out[i] = binding[j]
				} else {
					out[i] = a
				}
			}
			return out
		}
		holds := func(l Literal) bool {
			args := resolve(l.Args)
			var ok bool
			if l.Pred == "=" {
				ok = args[0] == args[1]
			} else {
				ok = static[atomKey(l.Pred, args)]
			}
			return ok != l.Neg
		}
		ok := true
		for _, l := range upfront {
			ok = ok && holds(l)
		}
		if !ok {
			continue
		}
		var bind func(i int)
		bind = func(i int) {
			if i == len(vars) {
				ga := groundAction{cost: 1}
				if s.Name == goalAction {
					ga.cost = 0
				}
				ga.step = Step{Action: s.Name, Args: resolve(paramNames(s.Params))}
				for _, l := range s.Pre.Lits {
					if !fluent[l.Pred] || l.Pred == "=" {
						continue
					}
					id := factID(atomKey(l.Pred, resolve(l.Args)))
					if l.Neg {
						ga.neg = append(ga.neg, id)
					} else {
						ga.pre = append(ga.pre, id)
					}
				}
				for _, e := range s.Effect {
					id := factID(atomKey(e.Pred, resolve(e.Args)))
					if e.Neg {
						ga.del = append(ga.del, id)
					} else {
						ga.add = append(ga.add, id)
					}
				}
				g.actions = append(g.actions, ga)
				return
			}
			for _, o := range ofType(vars[i].Type) {
				binding[i] = o
				good := true
				for _, l := range checkAt[i] {
					if !holds(l) {
						good = false
						break
					}
				}
				if good {
					bind(i + 1)
				}
			}
		}
		bind(0)
	}
	g.prune()
	return g, nil
}

func paramNames(ps []Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// prune drops actions whose positive preconditions are unreachable from the
// initial state when delete effects and negative preconditions are ignored.
func (g *grounded) prune() {
	reached := make([]bool, len(g.facts))
	for _, f := range g.init {
		reached[f] = true
	}
	used := make([]bool, len(g.actions))
	for changed := true; changed; {
		changed = false
		for i, a := range g.actions {
			if used[i] {
				continue
			}
			ok := true
			for _, f := range a.pre {
				if !reached[f] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			used[i] = true
			changed = true
			for _, f := range a.add {
				reached[f] = true
			}
		}
	}
	kept := g.actions[:0]
	for i, a := range g.actions {
		if used[i] {
			kept = append(kept, a)
		}
	}
	g.actions = kept
}

// String summarises the grounding, for debugging.
func (g *grounded) String() string {
	return fmt.Sprintf("%d facts, %d actions", len(g.facts), len(g.actions))
}
