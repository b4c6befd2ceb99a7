package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/samem/trainer/pddl"
)

// fakePlanner is this test binary run as an external planner (see
// TestMain): "<binary> DOMAIN PROBLEM PLAN" plans with the built-in A*,
// writes the plan file and appends a line to the log file.
func fakePlanner(log string, args []string) int {
	if len(args) != 3 {
		return 2
	}
	ds, err1 := os.ReadFile(args[0])
	ps, err2 := os.ReadFile(args[1])
	if err1 != nil || err2 != nil {
		return 3
	}
	d, err := pddl.ParseDomain(string(ds))
	if err != nil {
		return 4
	}
	p, err := pddl.ParseProblem(string(ps), d)
	if err != nil {
		return 4
	}
	plan, err := (&pddl.AStar{}).Plan(context.Background(), d, p)
	if errors.Is(err, pddl.ErrNoPlan) {
		return 11
	}
	if err != nil {
		return 5
	}
	var b strings.Builder
	for _, s := range plan {
		b.WriteString(s.String() + "\n")
	}
	if err := os.WriteFile(args[2], []byte(b.String()), 0o644); err != nil {
		return 6
	}
	f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return 7
	}
	defer f.Close()
	fmt.Fprintf(f, "planned %d steps\n", len(plan))
	return 0
}

// TestPlannerFlag: -planner reaches kgplan. An external planner named on
// the command line (here this test binary) plans kgplan's episodes; bad
// values are refused with the flag named.
func TestPlannerFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: trains kgplan with an external planner process (runs without -short)")
	}
	log := t.TempDir() + "/calls.log"
	t.Setenv("TRAINER_FAKE_PLANNER", log)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig(t, "kgplan")
	cfg.Iterations, cfg.PerType, cfg.Workers = 1, 1, 1
	cfg.KGPlan.PlannerSpec = exe + " {domain} {problem} {plan}"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Train(context.Background(), cfg, quiet())
	if err != nil {
		t.Fatalf("Train: %v", err)
	}
	b, _ := os.ReadFile(log)
	calls := strings.Count(string(b), "planned")
	if calls == 0 {
		t.Fatal("the external planner was never run")
	}
	if h := res[0].History[0]; h.SuccessRate == 0 {
		t.Errorf("kgplan with the external planner won nothing: %+v", h)
	}
	t.Logf("external planner ran %d times", calls)
	for _, bad := range []string{"fast-downward=/no/such/driver", "/no/such/planner {domain} {problem} {plan}", exe + " {domain}"} {
		c := smallConfig(t, "kgplan")
		c.KGPlan.PlannerSpec = bad
		if err := c.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "-planner") {
			t.Errorf("-planner %q: %v, want a configuration error naming -planner", bad, err)
		}
	}
	for _, ok := range []string{"", "astar"} {
		if p, err := pddl.ParsePlanner(ok); p != nil || err != nil {
			t.Errorf("pddl.ParsePlanner(%q) = %v, %v, want the built-in", ok, p, err)
		}
	}
}
