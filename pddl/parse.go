package pddl

import (
	"fmt"
	"slices"
	"strings"
)

// supportedRequirements are the :requirements this package implements.
var supportedRequirements = []string{
	":strips", ":typing", ":negative-preconditions", ":equality", ":existential-preconditions",
}

// ParseDomain parses a domain file and checks it: every type, predicate and
// variable used in an action is declared.
func ParseDomain(src string) (*Domain, error) {
	root, err := parseSexpr(src)
	if err != nil {
		return nil, fmt.Errorf("parse domain: %w", err)
	}
	if root.head() != "define" || len(root.List) < 2 || root.List[1].head() != "domain" || len(root.List[1].List) != 2 || root.List[1].List[1].isList() {
		return nil, fmt.Errorf("parse domain: %w: expected (define (domain NAME) ...)", ErrSyntax)
	}
	d := &Domain{Name: root.List[1].List[1].Atom, Types: map[string]string{}, Source: src}
	for _, sec := range root.List[2:] {
		if !sec.isList() || len(sec.List) == 0 {
			return nil, fmt.Errorf("parse domain: %w: line %d: expected a section", ErrSyntax, sec.Line)
		}
		var err error
		switch sec.head() {
		case ":requirements":
			for _, r := range sec.List[1:] {
				if r.isList() || !slices.Contains(supportedRequirements, r.Atom) {
					return nil, fmt.Errorf("parse domain: %w: requirement %s", ErrUnsupported, r)
				}
				d.Requirements = append(d.Requirements, r.Atom)
			}
		case ":types":
			var ps []Param
			ps, err = typedList(sec.List[1:], false)
			for _, p := range ps {
				if p.Name == RootType {
					continue
				}
				d.Types[p.Name] = p.Type
			}
		case ":constants":
			d.Constants, err = typedList(sec.List[1:], false)
		case ":predicates":
			for _, pn := range sec.List[1:] {
				if !pn.isList() || pn.head() == "" {
					return nil, fmt.Errorf("parse domain: %w: line %d: bad predicate", ErrSyntax, pn.Line)
				}
				params, perr := typedList(pn.List[1:], true)
				if perr != nil {
					return nil, fmt.Errorf("parse domain: predicate %s: %w", pn.head(), perr)
				}
				if _, dup := d.Predicate(pn.head()); dup {
					return nil, fmt.Errorf("parse domain: %w: predicate %s declared twice", ErrSyntax, pn.head())
				}
				d.Predicates = append(d.Predicates, Predicate{Name: pn.head(), Params: params})
			}
		case ":action":
			var a Action
			a, err = parseAction(sec)
			if err == nil {
				if _, dup := d.Action(a.Name); dup {
					err = fmt.Errorf("%w: action %s declared twice", ErrSyntax, a.Name)
				}
				d.Actions = append(d.Actions, a)
			}
		default:
			return nil, fmt.Errorf("parse domain: %w: section %s", ErrUnsupported, sec.head())
		}
		if err != nil {
			return nil, fmt.Errorf("parse domain: %w", err)
		}
	}
	if err := d.check(); err != nil {
		return nil, fmt.Errorf("parse domain %s: %w", d.Name, err)
	}
	return d, nil
}

// check verifies that every name the domain uses is declared.
func (d *Domain) check() error {
	for t, parent := range d.Types {
		if !d.HasType(parent) {
			return fmt.Errorf("%w: type %s has undeclared parent %s", ErrUndefined, t, parent)
		}
		if !d.IsA(t, RootType) {
			return fmt.Errorf("%w: type %s is in a cycle", ErrSyntax, t)
		}
	}
	for _, c := range d.Constants {
		if !d.HasType(c.Type) {
			return fmt.Errorf("%w: constant %s has type %s", ErrUndefined, c.Name, c.Type)
		}
	}
	for _, p := range d.Predicates {
		for _, pa := range p.Params {
			if !d.HasType(pa.Type) {
				return fmt.Errorf("%w: predicate %s parameter %s has type %s", ErrUndefined, p.Name, pa.Name, pa.Type)
			}
		}
	}
	for _, a := range d.Actions {
		scope := map[string]string{}
		for _, pa := range a.Params {
			if !d.HasType(pa.Type) {
				return fmt.Errorf("%w: action %s parameter %s has type %s", ErrUndefined, a.Name, pa.Name, pa.Type)
			}
			scope[pa.Name] = pa.Type
		}
		for _, v := range a.Pre.Vars {
			if !d.HasType(v.Type) {
				return fmt.Errorf("%w: action %s variable %s has type %s", ErrUndefined, a.Name, v.Name, v.Type)
			}
			scope[v.Name] = v.Type
		}
		constants := map[string]string{}
		for _, c := range d.Constants {
			constants[c.Name] = c.Type
		}
		for _, l := range a.Pre.Lits {
			if err := d.checkLiteral(l, scope, constants); err != nil {
				return fmt.Errorf("action %s precondition: %w", a.Name, err)
			}
		}
		for _, l := range a.Effect {
			if l.Pred == "=" {
				return fmt.Errorf("%w: action %s: equality in an effect", ErrSyntax, a.Name)
			}
			if err := d.checkLiteral(l, scope, constants); err != nil {
				return fmt.Errorf("action %s effect: %w", a.Name, err)
			}
		}
	}
	return nil
}

// checkLiteral checks a literal against the predicate declarations, with
// variables typed by scope and names typed by objects.
func (d *Domain) checkLiteral(l Literal, scope, objects map[string]string) error {
	typeOf := func(arg string) (string, error) {
		if strings.HasPrefix(arg, "?") {
			t, ok := scope[arg]
			if !ok {
				return "", fmt.Errorf("%w: variable %s in %s", ErrUndefined, arg, l)
			}
			return t, nil
		}
		t, ok := objects[arg]
		if !ok {
			return "", fmt.Errorf("%w: object %s in %s", ErrUndefined, arg, l)
		}
		return t, nil
	}
	if l.Pred == "=" {
		if len(l.Args) != 2 {
			return fmt.Errorf("%w: equality takes 2 arguments: %s", ErrUndefined, l)
		}
		for _, a := range l.Args {
			if _, err := typeOf(a); err != nil {
				return err
			}
		}
		return nil
	}
	p, ok := d.Predicate(l.Pred)
	if !ok {
		return fmt.Errorf("%w: predicate %s", ErrUndefined, l.Pred)
	}
	if len(p.Params) != len(l.Args) {
		return fmt.Errorf("%w: %s takes %d arguments, got %d", ErrUndefined, l.Pred, len(p.Params), len(l.Args))
	}
	for i, a := range l.Args {
		t, err := typeOf(a)
		if err != nil {
			return err
		}
		if !d.IsA(t, p.Params[i].Type) {
			return fmt.Errorf("%w: %s argument %d is %s of type %s, want %s", ErrUndefined, l.Pred, i+1, a, t, p.Params[i].Type)
		}
	}
	return nil
}

// typedList parses "a b - t c - u d" into typed names (untyped ones get
// RootType). vars requires every name to start with '?'.
func typedList(ns []*node, vars bool) ([]Param, error) {
	var out []Param
	pending := 0
	for i := 0; i < len(ns); i++ {
		n := ns[i]
		if n.isList() {
			if n.head() == "either" {
				return nil, fmt.Errorf("%w: line %d: either types", ErrUnsupported, n.Line)
			}
			return nil, fmt.Errorf("%w: line %d: unexpected list in typed list", ErrSyntax, n.Line)
		}
		if n.Atom == "-" {
			if i+1 < len(ns) && ns[i+1].head() == "either" {
				return nil, fmt.Errorf("%w: line %d: either types", ErrUnsupported, n.Line)
			}
			if i+1 >= len(ns) || ns[i+1].isList() || pending == 0 {
				return nil, fmt.Errorf("%w: line %d: '-' must follow names and precede a type", ErrSyntax, n.Line)
			}
			t := ns[i+1].Atom
			for j := len(out) - pending; j < len(out); j++ {
				out[j].Type = t
			}
			pending = 0
			i++
			continue
		}
		if vars != strings.HasPrefix(n.Atom, "?") || n.Atom == "?" {
			return nil, fmt.Errorf("%w: line %d: bad name %q", ErrSyntax, n.Line, n.Atom)
		}
		out = append(out, Param{Name: n.Atom, Type: RootType})
		pending++
	}
	seen := map[string]bool{}
	for _, p := range out {
		if seen[p.Name] {
			return nil, fmt.Errorf("%w: %s declared twice", ErrSyntax, p.Name)
		}
		seen[p.Name] = true
	}
	return out, nil
}

func parseAction(sec *node) (Action, error) {
	if len(sec.List) < 2 || sec.List[1].isList() {
		return Action{}, fmt.Errorf("%w: line %d: action without a name", ErrSyntax, sec.Line)
	}
	a := Action{Name: sec.List[1].Atom}
	rest := sec.List[2:]
	if len(rest)%2 != 0 {
		return Action{}, fmt.Errorf("%w: action %s: keyword without a value", ErrSyntax, a.Name)
	}
	for i := 0; i < len(rest); i += 2 {
		k, v := rest[i], rest[i+1]
		var err error
		switch k.Atom {
		case ":parameters":
			if !v.isList() {
				return Action{}, fmt.Errorf("%w: action %s: parameters must be a list", ErrSyntax, a.Name)
			}
			a.Params, err = typedList(v.List, true)
		case ":precondition":
			a.Pre, err = parseCondition(v)
		case ":effect":
			a.Effect, err = parseConjunction(v)
		default:
			return Action{}, fmt.Errorf("%w: action %s: keyword %s", ErrUnsupported, a.Name, k)
		}
		if err != nil {
			return Action{}, fmt.Errorf("action %s: %w", a.Name, err)
		}
	}
	return a, nil
}

// parseCondition parses a conjunction of literals, optionally under one exists.
func parseCondition(n *node) (Condition, error) {
	if n.head() == "exists" {
		if len(n.List) != 3 || !n.List[1].isList() {
			return Condition{}, fmt.Errorf("%w: line %d: exists needs (vars) and a body", ErrSyntax, n.Line)
		}
		vars, err := typedList(n.List[1].List, true)
		if err != nil {
			return Condition{}, err
		}
		lits, err := parseConjunction(n.List[2])
		if err != nil {
			return Condition{}, err
		}
		return Condition{Vars: vars, Lits: lits}, nil
	}
	lits, err := parseConjunction(n)
	return Condition{Lits: lits}, err
}

// parseConjunction parses (and l...) or a single literal; () is empty.
func parseConjunction(n *node) ([]Literal, error) {
	if !n.isList() {
		return nil, fmt.Errorf("%w: line %d: expected a formula, got %s", ErrSyntax, n.Line, n.Atom)
	}
	if len(n.List) == 0 {
		return nil, nil
	}
	if n.head() != "and" {
		l, err := parseLiteral(n)
		if err != nil {
			return nil, err
		}
		return []Literal{l}, nil
	}
	var out []Literal
	for _, c := range n.List[1:] {
		if c.head() == "and" {
			inner, err := parseConjunction(c)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
			continue
		}
		l, err := parseLiteral(c)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

func parseLiteral(n *node) (Literal, error) {
	switch n.head() {
	case "not":
		if len(n.List) != 2 {
			return Literal{}, fmt.Errorf("%w: line %d: not takes one formula", ErrSyntax, n.Line)
		}
		a, err := parseAtom(n.List[1])
		return Literal{Atom: a, Neg: true}, err
	case "or", "imply", "forall", "exists", "when", "increase", "decrease", "assign":
		return Literal{}, fmt.Errorf("%w: line %d: %s", ErrUnsupported, n.Line, n.head())
	}
	a, err := parseAtom(n)
	return Literal{Atom: a}, err
}

func parseAtom(n *node) (Atom, error) {
	if n.head() == "" {
		return Atom{}, fmt.Errorf("%w: line %d: expected (predicate args...), got %s", ErrSyntax, n.Line, n)
	}
	switch n.head() {
	case "and", "not", "or", "imply", "forall", "exists", "when":
		return Atom{}, fmt.Errorf("%w: line %d: %s where an atom was expected", ErrUnsupported, n.Line, n.head())
	}
	a := Atom{Pred: n.head()}
	for _, c := range n.List[1:] {
		if c.isList() {
			return Atom{}, fmt.Errorf("%w: line %d: nested term in %s", ErrUnsupported, c.Line, n)
		}
		a.Args = append(a.Args, c.Atom)
	}
	return a, nil
}

// ParseProblem parses a problem file and checks it against d.
func ParseProblem(src string, d *Domain) (*Problem, error) {
	root, err := parseSexpr(src)
	if err != nil {
		return nil, fmt.Errorf("parse problem: %w", err)
	}
	if root.head() != "define" || len(root.List) < 2 || root.List[1].head() != "problem" || len(root.List[1].List) != 2 || root.List[1].List[1].isList() {
		return nil, fmt.Errorf("parse problem: %w: expected (define (problem NAME) ...)", ErrSyntax)
	}
	p := &Problem{Name: root.List[1].List[1].Atom}
	haveGoal := false
	for _, sec := range root.List[2:] {
		if !sec.isList() || len(sec.List) == 0 {
			return nil, fmt.Errorf("parse problem: %w: line %d: expected a section", ErrSyntax, sec.Line)
		}
		var err error
		switch sec.head() {
		case ":domain":
			if len(sec.List) != 2 || sec.List[1].isList() {
				return nil, fmt.Errorf("parse problem: %w: bad :domain", ErrSyntax)
			}
			p.Domain = sec.List[1].Atom
		case ":requirements":
			// Allowed and ignored: the domain's requirements govern.
		case ":objects":
			p.Objects, err = typedList(sec.List[1:], false)
		case ":init":
			for _, c := range sec.List[1:] {
				a, aerr := parseAtom(c)
				if aerr != nil {
					return nil, fmt.Errorf("parse problem: init: %w", aerr)
				}
				p.Init = append(p.Init, a)
			}
		case ":goal":
			if len(sec.List) != 2 {
				return nil, fmt.Errorf("parse problem: %w: :goal takes one formula", ErrSyntax)
			}
			p.Goal, err = parseCondition(sec.List[1])
			haveGoal = true
		default:
			return nil, fmt.Errorf("parse problem: %w: section %s", ErrUnsupported, sec.head())
		}
		if err != nil {
			return nil, fmt.Errorf("parse problem: %w", err)
		}
	}
	if !haveGoal {
		return nil, fmt.Errorf("parse problem: %w: no :goal", ErrSyntax)
	}
	if d != nil {
		if err := p.Check(d); err != nil {
			return nil, fmt.Errorf("parse problem %s: %w", p.Name, err)
		}
	}
	return p, nil
}

// Check verifies the problem against the domain: object types are declared,
// every init atom and goal literal names a declared predicate with the right
// number and types of arguments.
func (p *Problem) Check(d *Domain) error {
	if p.Domain != "" && p.Domain != d.Name {
		return fmt.Errorf("%w: problem is for domain %s, not %s", ErrUndefined, p.Domain, d.Name)
	}
	objects := map[string]string{}
	for _, c := range d.Constants {
		objects[c.Name] = c.Type
	}
	for _, o := range p.Objects {
		if !d.HasType(o.Type) {
			return fmt.Errorf("%w: object %s has type %s", ErrUndefined, o.Name, o.Type)
		}
		if _, dup := objects[o.Name]; dup {
			return fmt.Errorf("%w: object %s declared twice", ErrSyntax, o.Name)
		}
		objects[o.Name] = o.Type
	}
	for _, a := range p.Init {
		if a.Pred == "=" {
			return fmt.Errorf("%w: equality in :init", ErrSyntax)
		}
		if err := d.checkLiteral(Literal{Atom: a}, nil, objects); err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	scope := map[string]string{}
	for _, v := range p.Goal.Vars {
		if !d.HasType(v.Type) {
			return fmt.Errorf("%w: goal variable %s has type %s", ErrUndefined, v.Name, v.Type)
		}
		scope[v.Name] = v.Type
	}
	for _, l := range p.Goal.Lits {
		if err := d.checkLiteral(l, scope, objects); err != nil {
			return fmt.Errorf("goal: %w", err)
		}
	}
	return nil
}

// ParsePlan reads a plan in the format classical planners write (Fast
// Downward's sas_plan, VAL): one "(action arg...)" per line, ';' comments.
// Names are lower-cased.
func ParsePlan(src string) (Plan, error) {
	var plan Plan
	for i, line := range strings.Split(src, "\n") {
		if j := strings.IndexByte(line, ';'); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		// Some planners prefix a step number: "0: (a b)".
		if j := strings.Index(line, "("); j > 0 && strings.HasSuffix(strings.TrimSpace(line[:j]), ":") {
			line = line[j:]
		}
		n, err := parseSexpr(line)
		if err != nil {
			return nil, fmt.Errorf("parse plan line %d: %w", i+1, err)
		}
		a, err := parseAtom(n)
		if err != nil {
			return nil, fmt.Errorf("parse plan line %d: %w", i+1, err)
		}
		plan = append(plan, Step{Action: a.Pred, Args: a.Args})
	}
	return plan, nil
}
