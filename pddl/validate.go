package pddl

import (
	"fmt"
	"strings"
)

// State is a set of ground atoms, keyed "pred a b".
type State map[string]bool

// InitState returns p's initial state.
func InitState(p *Problem) State {
	s := State{}
	for _, a := range p.Init {
		s[atomKey(a.Pred, a.Args)] = true
	}
	return s
}

// Apply checks step's preconditions in s and applies its effects to s.
// It is independent of the grounder and search, so that it can check what
// any planner returns (seed 003 Sec. IV-C, step 5: s_{t,i} = f(s_{t,i-1}, a_i)).
func (d *Domain) Apply(s State, objects map[string]string, step Step) error {
	a, ok := d.Action(step.Action)
	if !ok {
		return fmt.Errorf("%w: action %s", ErrUndefined, step.Action)
	}
	if len(a.Params) != len(step.Args) {
		return fmt.Errorf("%w: %s takes %d arguments, got %d", ErrUndefined, step.Action, len(a.Params), len(step.Args))
	}
	bind := map[string]string{}
	for i, p := range a.Params {
		t, ok := objects[step.Args[i]]
		if !ok {
			return fmt.Errorf("%w: object %s in %s", ErrUndefined, step.Args[i], step)
		}
		if !d.IsA(t, p.Type) {
			return fmt.Errorf("%w: %s argument %s is %s, want %s", ErrUndefined, step.Action, step.Args[i], t, p.Type)
		}
		bind[p.Name] = step.Args[i]
	}
	if !d.satisfied(s, objects, a.Pre, bind) {
		return fmt.Errorf("%w: %s: precondition %s does not hold", ErrNoPlan, step, a.Pre)
	}
	// Deletes first, then adds (the usual STRIPS semantics).
	for _, e := range a.Effect {
		if e.Neg {
			delete(s, atomKey(e.Pred, substitute(e.Args, bind)))
		}
	}
	for _, e := range a.Effect {
		if !e.Neg {
			s[atomKey(e.Pred, substitute(e.Args, bind))] = true
		}
	}
	return nil
}

// Satisfies reports whether s satisfies c.
func (d *Domain) Satisfies(s State, objects map[string]string, c Condition) bool {
	return d.satisfied(s, objects, c, map[string]string{})
}

func (d *Domain) satisfied(s State, objects map[string]string, c Condition, bind map[string]string) bool {
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(c.Vars) {
			for _, l := range c.Lits {
				args := substitute(l.Args, bind)
				var ok bool
				if l.Pred == "=" {
					ok = len(args) == 2 && args[0] == args[1]
				} else {
					ok = s[atomKey(l.Pred, args)]
				}
				if ok == l.Neg {
					return false
				}
			}
			return true
		}
		v := c.Vars[i]
		for name, t := range objects {
			if d.IsA(t, v.Type) {
				bind[v.Name] = name
				if try(i + 1) {
					return true
				}
			}
		}
		delete(bind, v.Name)
		return false
	}
	return try(0)
}

func substitute(args []string, bind map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if v, ok := bind[a]; ok && strings.HasPrefix(a, "?") {
			out[i] = v
		} else {
			out[i] = a
		}
	}
	return out
}

// Objects returns the name -> type map of the domain's constants and p's objects.
func Objects(d *Domain, p *Problem) map[string]string {
	m := map[string]string{}
	for _, c := range d.Constants {
		m[c.Name] = c.Type
	}
	for _, o := range p.Objects {
		m[o.Name] = o.Type
	}
	return m
}

// Validate simulates plan from p's initial state and checks that every step
// is applicable and that the goal holds at the end.
func Validate(d *Domain, p *Problem, plan Plan) error {
	if err := p.Check(d); err != nil {
		return err
	}
	objects := Objects(d, p)
	s := InitState(p)
	for i, st := range plan {
		if err := d.Apply(s, objects, st); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	if !d.Satisfies(s, objects, p.Goal) {
		return fmt.Errorf("%w: goal %s does not hold after the plan", ErrNoPlan, p.Goal)
	}
	return nil
}
