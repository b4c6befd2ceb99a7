// Package pddl reads PDDL domains and problems, grounds them, and plans.
//
// It covers the fragment that the household world needs (seed 003 Sec. II-A
// and IV-C): STRIPS with :typing, :negative-preconditions, :equality and
// existential goals/preconditions at the top level ("exists" around a
// conjunction of literals). Effects are conjunctions of literals (no
// conditional or universal effects, no numbers). Anything else is rejected
// with ErrUnsupported rather than silently misread.
//
// Planners (built-in A*, an external command such as Fast Downward) sit
// behind the one-method Planner interface.
package pddl

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Errors returned by this package, wrapped with detail; test with errors.Is.
var (
	// ErrSyntax is returned for text that is not a well-formed PDDL domain,
	// problem or plan.
	ErrSyntax = errors.New("pddl syntax error")
	// ErrUnsupported is returned for PDDL features outside the supported fragment.
	ErrUnsupported = errors.New("unsupported pddl feature")
	// ErrUndefined is returned when a name (type, predicate, object, action,
	// variable) is used but not declared, or used with the wrong arity or type.
	ErrUndefined = errors.New("undefined or mistyped pddl name")
	// ErrNoPlan is returned by a planner that proved the goal unreachable.
	ErrNoPlan = errors.New("no plan exists")
	// ErrLimit is returned by a planner that gave up (search budget, timeout)
	// without proving the goal unreachable.
	ErrLimit = errors.New("planner limit reached")
)

// RootType is the implicit root of every type hierarchy.
const RootType = "object"

// Param is a typed name: a parameter (?x - mug) or an object (mug_1 - mug).
type Param struct {
	Name string
	Type string
}

// Predicate is a declared predicate with typed parameters.
type Predicate struct {
	Name   string
	Params []Param
}

// Atom is a predicate applied to arguments (variables start with '?').
type Atom struct {
	Pred string
	Args []string
}

// String renders the atom in PDDL syntax.
func (a Atom) String() string {
	if len(a.Args) == 0 {
		return "(" + a.Pred + ")"
	}
	return "(" + a.Pred + " " + strings.Join(a.Args, " ") + ")"
}

// Literal is an atom or its negation. Pred "=" is equality.
type Literal struct {
	Atom
	Neg bool
}

// String renders the literal in PDDL syntax.
func (l Literal) String() string {
	if l.Neg {
		return "(not " + l.Atom.String() + ")"
	}
	return l.Atom.String()
}

// Condition is a conjunction of literals, optionally under one top-level
// existential quantifier over Vars.
type Condition struct {
	Vars []Param
	Lits []Literal
}

// String renders the condition in PDDL syntax.
func (c Condition) String() string {
	var b strings.Builder
	conj := "(and"
	for _, l := range c.Lits {
		conj += " " + l.String()
	}
	conj += ")"
	if len(c.Vars) == 0 {
		return conj
	}
	b.WriteString("(exists (")
	writeParams(&b, c.Vars)
	b.WriteString(") ")
	b.WriteString(conj)
	b.WriteString(")")
	return b.String()
}

// Action is an action schema.
type Action struct {
	Name   string
	Params []Param
	Pre    Condition
	Effect []Literal // Neg: delete effect
}

// Domain is a parsed domain file.
type Domain struct {
	Name         string
	Requirements []string
	// Types maps each declared type to its parent (RootType at the top).
	Types      map[string]string
	Constants  []Param
	Predicates []Predicate
	Actions    []Action
	// Source is the text the domain was parsed from ("" when built in code).
	Source string
}

// String renders the domain as PDDL: Source when set, else a rendering.
func (d *Domain) String() string {
	if d.Source != "" {
		return d.Source
	}
	var b strings.Builder
	fmt.Fprintf(&b, "(define (domain %s)\n", d.Name)
	if len(d.Requirements) > 0 {
		fmt.Fprintf(&b, "  (:requirements %s)\n", strings.Join(d.Requirements, " "))
	}
	if len(d.Types) > 0 {
		names := make([]string, 0, len(d.Types))
		for t := range d.Types {
			names = append(names, t)
		}
		slices.Sort(names)
		ps := make([]Param, len(names))
		for i, t := range names {
			ps[i] = Param{Name: t, Type: d.Types[t]}
		}
		slices.SortStableFunc(ps, func(a, b Param) int { return strings.Compare(a.Type, b.Type) })
		b.WriteString("  (:types ")
		writeParams(&b, ps)
		b.WriteString(")\n")
	}
	if len(d.Constants) > 0 {
		b.WriteString("  (:constants ")
		writeParams(&b, d.Constants)
		b.WriteString(")\n")
	}
	b.WriteString("  (:predicates")
	for _, p := range d.Predicates {
		b.WriteString(" (" + p.Name)
		if len(p.Params) > 0 {
			b.WriteByte(' ')
			writeParams(&b, p.Params)
		}
		b.WriteString(")")
	}
	b.WriteString(")\n")
	for _, a := range d.Actions {
		fmt.Fprintf(&b, "  (:action %s\n    :parameters (", a.Name)
		writeParams(&b, a.Params)
		fmt.Fprintf(&b, ")\n    :precondition %s\n    :effect (and", a.Pre)
		for _, e := range a.Effect {
			b.WriteString(" " + e.String())
		}
		b.WriteString("))\n")
	}
	b.WriteString(")\n")
	return b.String()
}

// Predicate returns the declared predicate named name.
func (d *Domain) Predicate(name string) (Predicate, bool) {
	for _, p := range d.Predicates {
		if p.Name == name {
			return p, true
		}
	}
	return Predicate{}, false
}

// Action returns the action schema named name.
func (d *Domain) Action(name string) (Action, bool) {
	for _, a := range d.Actions {
		if a.Name == name {
			return a, true
		}
	}
	return Action{}, false
}

// IsA reports whether type t equals or descends from ancestor.
func (d *Domain) IsA(t, ancestor string) bool {
	for range len(d.Types) + 2 { // bounded walk: declared cycles cannot loop
		if t == ancestor {
			return true
		}
		if t == RootType || t == "" {
			return false
		}
		t = d.Types[t]
	}
	return false
}

// HasType reports whether t is a declared type (or the root).
func (d *Domain) HasType(t string) bool {
	if t == RootType {
		return true
	}
	_, ok := d.Types[t]
	return ok
}

// Problem is a parsed (or built) problem.
type Problem struct {
	Name    string
	Domain  string
	Objects []Param
	Init    []Atom
	Goal    Condition
}

// Step is one ground action of a plan.
type Step struct {
	Action string
	Args   []string
}

// String renders the step as "(action a b)".
func (s Step) String() string {
	return Atom{Pred: s.Action, Args: s.Args}.String()
}

// Plan is a sequence of ground actions.
type Plan []Step

func writeParams(b *strings.Builder, ps []Param) {
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Name)
		// Group consecutive names of one type: "a b - t".
		if i+1 < len(ps) && ps[i+1].Type == p.Type {
			continue
		}
		if p.Type != "" {
			b.WriteString(" - ")
			b.WriteString(p.Type)
		}
	}
}

// String renders the problem as a PDDL problem file.
func (p *Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "(define (problem %s)\n", p.Name)
	if p.Domain != "" {
		fmt.Fprintf(&b, "  (:domain %s)\n", p.Domain)
	}
	b.WriteString("  (:objects ")
	writeParams(&b, p.Objects)
	b.WriteString(")\n  (:init")
	for _, a := range p.Init {
		b.WriteString("\n    ")
		b.WriteString(a.String())
	}
	b.WriteString(")\n  (:goal ")
	b.WriteString(p.Goal.String())
	b.WriteString("))\n")
	return b.String()
}
