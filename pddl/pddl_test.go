package pddl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readDomain(t testing.TB, name string) *Domain {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDomain(string(src))
	if err != nil {
		t.Fatalf("ParseDomain(%s): %v", name, err)
	}
	return d
}

// gripperProblem builds gripper with n balls in rooma, all wanted in roomb.
func gripperProblem(n int) string {
	var objs, init, goal strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&objs, " b%d", i)
		fmt.Fprintf(&init, " (at b%d rooma)", i)
		fmt.Fprintf(&goal, " (at b%d roomb)", i)
	}
	return fmt.Sprintf(`(define (problem g%d) (:domain gripper)
  (:objects rooma roomb - room%s - ball left right - gripper)
  (:init (at-robby rooma)%s)
  (:goal (and%s)))`, n, objs.String(), init.String(), goal.String())
}

func TestParseDomainGripper(t *testing.T) {
	d := readDomain(t, "gripper.pddl")
	if d.Name != "gripper" || len(d.Predicates) != 4 || len(d.Actions) != 3 {
		t.Fatalf("ParseDomain = %s with %d predicates, %d actions; want gripper, 4, 3", d.Name, len(d.Predicates), len(d.Actions))
	}
	pick, _ := d.Action("pick")
	if got := pick.Pre.String(); got != "(and (at ?b ?r) (at-robby ?r) (not (busy ?g)))" {
		t.Errorf("pick precondition = %s", got)
	}
	// The rendering parses back to the same structure.
	d.Source = ""
	again, err := ParseDomain(d.String())
	if err != nil {
		t.Fatalf("ParseDomain(String()): %v\n%s", err, d.String())
	}
	if again.String() != d.String() {
		t.Errorf("round trip differs:\n%s\n---\n%s", again.String(), d.String())
	}
}

func TestParseErrors(t *testing.T) {
	base := `(define (domain x) (:requirements :strips :typing) (:types a - object)
  (:predicates (p ?x - a) (q ?x - a ?y - a))
  (:action act :parameters (?x - a) :precondition (p ?x) :effect (and (not (p ?x)))))`
	tests := []struct {
		name, src string
		want      error
	}{
		{"empty", "", ErrSyntax},
		{"unclosed", "(define (domain x)", ErrSyntax},
		{"trailing", base + ")", ErrSyntax},
		{"not define", "(domain x)", ErrSyntax},
		{"requirement", `(define (domain x) (:requirements :fluents))`, ErrUnsupported},
		{"either", `(define (domain x) (:predicates (p ?x - (either a b))))`, ErrUnsupported},
		{"undeclared type", `(define (domain x) (:predicates (p ?x - zzz)))`, ErrUndefined},
		{"undeclared predicate", strings.Replace(base, ":precondition (p ?x)", ":precondition (r ?x)", 1), ErrUndefined},
		{"wrong arity", strings.Replace(base, ":precondition (p ?x)", ":precondition (q ?x)", 1), ErrUndefined},
		{"unbound variable", strings.Replace(base, ":precondition (p ?x)", ":precondition (p ?y)", 1), ErrUndefined},
		{"or", strings.Replace(base, ":precondition (p ?x)", ":precondition (or (p ?x) (p ?x))", 1), ErrUnsupported},
		{"forall effect", strings.Replace(base, "(and (not (p ?x)))", "(forall (?y - a) (p ?y))", 1), ErrUnsupported},
		{"deep", strings.Repeat("(", 100) + strings.Repeat(")", 100), ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDomain(tt.src)
			if !errors.Is(err, tt.want) {
				t.Errorf("ParseDomain error = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := ParseDomain(base); err != nil {
		t.Fatalf("ParseDomain(base) = %v", err)
	}
}

func TestProblemCheck(t *testing.T) {
	d := readDomain(t, "gripper.pddl")
	tests := []struct {
		name, init, goal string
		want             error
	}{
		{"ok", "(at-robby rooma)", "(at b1 roomb)", nil},
		{"unknown predicate", "(at-robot rooma)", "(at b1 roomb)", ErrUndefined},
		{"wrong arity", "(at-robby rooma roomb)", "(at b1 roomb)", ErrUndefined},
		{"wrong type", "(at-robby b1)", "(at b1 roomb)", ErrUndefined},
		{"unknown object", "(at-robby roomc)", "(at b1 roomb)", ErrUndefined},
		{"goal type", "(at-robby rooma)", "(at roomb b1)", ErrUndefined},
		{"goal variable", "(at-robby rooma)", "(exists (?b - ball) (at ?c roomb))", ErrUndefined},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := fmt.Sprintf("(define (problem p) (:domain gripper) (:objects rooma roomb - room b1 - ball left - gripper) (:init %s) (:goal %s))", tt.init, tt.goal)
			_, err := ParseProblem(src, d)
			if !errors.Is(err, tt.want) {
				t.Errorf("ParseProblem error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestAStarOptimal(t *testing.T) {
	d := readDomain(t, "gripper.pddl")
	// Optimal gripper plans move two balls per round trip: 6 per pair, minus
	// the final return, plus 4 for an odd last ball (pick, move, drop... ).
	tests := []struct{ n, want int }{{1, 3}, {2, 5}, {3, 9}, {4, 11}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			p, err := ParseProblem(gripperProblem(tt.n), d)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := (&AStar{}).Plan(context.Background(), d, p)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if len(plan) != tt.want {
				t.Errorf("len(plan) = %d, want %d: %v", len(plan), tt.want, plan)
			}
			if err := Validate(d, p, plan); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestAStarExistentialGoalAndEquality(t *testing.T) {
	d := readDomain(t, "gripper.pddl")
	// Two distinct balls in roomb, any two: b3 already is, so one trip of one ball.
	src := `(define (problem ex) (:domain gripper)
  (:objects rooma roomb - room b1 b2 b3 - ball left right - gripper)
  (:init (at-robby rooma) (at b1 rooma) (at b2 rooma) (at b3 roomb))
  (:goal (exists (?x ?y - ball) (and (at ?x roomb) (at ?y roomb) (not (= ?x ?y))))))`
	p, err := ParseProblem(src, d)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := (&AStar{}).Plan(context.Background(), d, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 3 {
		t.Errorf("len(plan) = %d, want 3: %v", len(plan), plan)
	}
	if err := Validate(d, p, plan); err != nil {
		t.Error(err)
	}
	// Dropping a move makes the plan invalid: Validate must say so.
	if err := Validate(d, p, plan[:2]); !errors.Is(err, ErrNoPlan) {
		t.Errorf("Validate(short plan) = %v, want ErrNoPlan", err)
	}
}

func TestAStarNoPlanAndLimit(t *testing.T) {
	d := readDomain(t, "gripper.pddl")
	// No gripper objects: nothing can be picked.
	src := `(define (problem none) (:domain gripper) (:objects rooma roomb - room b1 - ball)
  (:init (at-robby rooma) (at b1 rooma)) (:goal (at b1 roomb)))`
	p, err := ParseProblem(src, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&AStar{}).Plan(context.Background(), d, p); !errors.Is(err, ErrNoPlan) {
		t.Errorf("Plan(unsolvable) = %v, want ErrNoPlan", err)
	}
	p4, err := ParseProblem(gripperProblem(4), d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&AStar{MaxExpansions: 3}).Plan(context.Background(), d, p4); !errors.Is(err, ErrLimit) {
		t.Errorf("Plan(budget 3) = %v, want ErrLimit", err)
	}
}

func TestProblemStringRoundTrip(t *testing.T) {
	d := readDomain(t, "gripper.pddl")
	p, err := ParseProblem(gripperProblem(2), d)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseProblem(p.String(), d)
	if err != nil {
		t.Fatalf("ParseProblem(String()): %v\n%s", err, p.String())
	}
	if again.String() != p.String() {
		t.Errorf("round trip differs:\n%s\n---\n%s", again, p)
	}
}

func TestParsePlan(t *testing.T) {
	plan, err := ParsePlan("(pick b1 rooma left)\n; cost = 1 (unit cost)\n0: (MOVE rooma roomb)\n\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 2 || plan[1].String() != "(move rooma roomb)" {
		t.Errorf("ParsePlan = %v", plan)
	}
	if _, err := ParsePlan("(pick b1"); !errors.Is(err, ErrSyntax) {
		t.Errorf("ParsePlan(broken) = %v, want ErrSyntax", err)
	}
}

func BenchmarkAStarGripper(b *testing.B) {
	d := readDomain(b, "gripper.pddl")
	for _, n := range []int{2, 4, 6} {
		p, err := ParseProblem(gripperProblem(n), d)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := (&AStar{}).Plan(context.Background(), d, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func FuzzParseDomain(f *testing.F) {
	src, err := os.ReadFile(filepath.Join("testdata", "gripper.pddl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(src))
	f.Add("(define (domain x) (:predicates (p)))")
	f.Add("(define (domain x) (:types a b - c c - a))")
	f.Add(")(")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDomain(s)
		if err != nil {
			return
		}
		// Whatever parses renders to text that parses again.
		d.Source = ""
		if _, err := ParseDomain(d.String()); err != nil {
			t.Fatalf("rendering of a parsed domain does not parse: %v\n%s", err, d.String())
		}
	})
}

func FuzzParseProblem(f *testing.F) {
	d := readDomain(f, "gripper.pddl")
	f.Add(gripperProblem(2))
	f.Add("(define (problem p) (:domain gripper) (:objects r - room) (:init) (:goal (exists (?b - ball) (at ?b r))))")
	f.Add("(define (problem p) (:goal (and)))")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProblem(s, d)
		if err != nil {
			return
		}
		if _, err := ParseProblem(p.String(), d); err != nil {
			t.Fatalf("rendering of a parsed problem does not parse: %v\n%s", err, p.String())
		}
		// Planning on any checked problem must not panic; keep it tiny.
		if len(p.Objects) <= 6 {
			_, _ = (&AStar{MaxExpansions: 200}).Plan(context.Background(), d, p)
		}
	})
}

func FuzzParsePlan(f *testing.F) {
	f.Add("(pick b1 rooma left)\n; cost = 1\n")
	f.Add("1: (move a b)")
	f.Fuzz(func(t *testing.T, s string) {
		plan, err := ParsePlan(s)
		if err != nil {
			return
		}
		var b strings.Builder
		for _, st := range plan {
			b.WriteString(st.String() + "\n")
		}
		again, err := ParsePlan(b.String())
		if err != nil || len(again) != len(plan) {
			t.Fatalf("ParsePlan(rendered) = %v, %v; want %d steps", again, err, len(plan))
		}
	})
}
