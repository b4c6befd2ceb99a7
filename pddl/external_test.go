package pddl

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for an external planner: with
// PDDL_FAKE_PLANNER set it behaves like Fast Downward's driver (arguments
// --plan-file PLAN DOMAIN PROBLEM ...; exit 11 when unsolvable), planning
// with the built-in A*. PDDL_FAKE_PLANNER=bad writes an invalid plan.
func TestMain(m *testing.M) {
	mode := os.Getenv("PDDL_FAKE_PLANNER")
	if mode == "" {
		os.Exit(m.Run())
	}
	os.Exit(fakePlanner(mode, os.Args[1:]))
}

func fakePlanner(mode string, args []string) int {
	if len(args) < 4 || args[0] != "--plan-file" {
		return 2
	}
	planFile, domFile, probFile := args[1], args[2], args[3]
	ds, err := os.ReadFile(domFile)
	if err != nil {
		return 3
	}
	ps, err := os.ReadFile(probFile)
	if err != nil {
		return 3
	}
	d, err := ParseDomain(string(ds))
	if err != nil {
		return 4
	}
	p, err := ParseProblem(string(ps), d)
	if err != nil {
		return 4
	}
	plan, err := (&AStar{}).Plan(context.Background(), d, p)
	if errors.Is(err, ErrNoPlan) {
		return 11
	}
	if err != nil {
		return 5
	}
	if mode == "bad" && len(plan) > 0 {
		plan = plan[1:]
	}
	var b strings.Builder
	for _, s := range plan {
		b.WriteString(s.String() + "\n")
	}
	b.WriteString("; cost = 1 (unit cost)\n")
	if err := os.WriteFile(planFile, []byte(b.String()), 0o644); err != nil {
		return 6
	}
	return 0
}

func TestExternal(t *testing.T) {
	d := readDomain(t, "gripper.pddl")
	solvable, err := ParseProblem(gripperProblem(2), d)
	if err != nil {
		t.Fatal(err)
	}
	unsolvable, err := ParseProblem(`(define (problem none) (:domain gripper) (:objects rooma roomb - room b1 - ball)
  (:init (at-robby rooma) (at b1 rooma)) (:goal (at b1 roomb)))`, d)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, mode string
		p          *Problem
		wantLen    int
		wantErr    error
	}{
		{"solves", "ok", solvable, 5, nil},
		{"unsolvable", "ok", unsolvable, 0, ErrNoPlan},
		{"invalid plan rejected", "bad", solvable, 0, ErrNoPlan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PDDL_FAKE_PLANNER", tt.mode)
			plan, err := FastDownward(exe).Plan(context.Background(), d, tt.p)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr != nil) != (err != nil) {
				t.Fatalf("Plan error = %v, want %v", err, tt.wantErr)
			}
			if len(plan) != tt.wantLen {
				t.Errorf("len(plan) = %d, want %d", len(plan), tt.wantLen)
			}
		})
	}
	t.Run("missing executable", func(t *testing.T) {
		_, err := FastDownward("/nonexistent/planner").Plan(context.Background(), d, solvable)
		if err == nil || errors.Is(err, ErrNoPlan) {
			t.Errorf("Plan = %v, want a start error", err)
		}
	})
}
