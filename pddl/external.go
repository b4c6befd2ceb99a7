package pddl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// External runs a classical planner as a child process (no shell): it writes
// domain.pddl and problem.pddl into a fresh temporary directory, runs Path
// with Args (placeholders {domain}, {problem} and {plan} are replaced by the
// files' absolute paths) in that directory, reads the plan file and checks
// the plan with Validate before returning it.
type External struct {
	// Path is the planner executable, e.g. "fast-downward.py" (looked up in PATH).
	Path string
	// Args are the planner's arguments; see FastDownward for an example.
	Args []string
	// NoPlanCodes are exit codes meaning "proved unsolvable" (ErrNoPlan);
	// LimitCodes mean "gave up" (ErrLimit). Any other non-zero code is an error.
	NoPlanCodes, LimitCodes []int
}

var _ Planner = (*External)(nil)

// FastDownward returns an External for Fast Downward's driver script at path
// with the optimal configuration A* + LM-cut. Exit codes follow the driver's
// documentation: 10/11 unsolvable (translate/search), 12 incomplete search,
// 22-24 out of memory or time.
func FastDownward(path string) *External {
	return &External{
		Path:        path,
		Args:        []string{"--plan-file", "{plan}", "{domain}", "{problem}", "--search", "astar(lmcut())"},
		NoPlanCodes: []int{10, 11},
		LimitCodes:  []int{12, 22, 23, 24},
	}
}

// stderrTail bounds how much of the planner's output an error carries (bytes).
const stderrTail = 2000

// Plan implements Planner. The context's deadline bounds the planner's run.
func (e *External) Plan(ctx context.Context, d *Domain, p *Problem) (Plan, error) {
	if err := p.Check(d); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pddl-*")
	if err != nil {
		return nil, fmt.Errorf("external planner: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"{domain}":  filepath.Join(dir, "domain.pddl"),
		"{problem}": filepath.Join(dir, "problem.pddl"),
		"{plan}":    filepath.Join(dir, "plan.txt"),
	}
	if err := os.WriteFile(files["{domain}"], []byte(d.String()), 0o644); err != nil {
		return nil, fmt.Errorf("external planner: %w", err)
	}
	if err := os.WriteFile(files["{problem}"], []byte(p.String()), 0o644); err != nil {
		return nil, fmt.Errorf("external planner: %w", err)
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		for k, v := range files {
			a = strings.ReplaceAll(a, k, v)
		}
		args[i] = a
	}
	cmd := exec.CommandContext(ctx, e.Path, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	runErr := cmd.Run()
	tail := out.String()
	if len(tail) > stderrTail {
		tail = tail[len(tail)-stderrTail:]
	}
	if runErr != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("external planner %s: %w: %w", e.Path, ErrLimit, ctx.Err())
		}
		var exit *exec.ExitError
		if errors.As(runErr, &exit) {
			code := exit.ExitCode()
			switch {
			case slices.Contains(e.NoPlanCodes, code):
				return nil, fmt.Errorf("external planner %s: exit %d: %w", e.Path, code, ErrNoPlan)
			case slices.Contains(e.LimitCodes, code):
				return nil, fmt.Errorf("external planner %s: exit %d: %w", e.Path, code, ErrLimit)
			}
			return nil, fmt.Errorf("external planner %s: exit %d: %s", e.Path, code, strings.TrimSpace(tail))
		}
		return nil, fmt.Errorf("external planner %s: %w", e.Path, runErr)
	}
	src, err := os.ReadFile(files["{plan}"])
	if err != nil {
		return nil, fmt.Errorf("external planner %s: no plan file: %w", e.Path, err)
	}
	plan, err := ParsePlan(string(src))
	if err != nil {
		return nil, fmt.Errorf("external planner %s: %w", e.Path, err)
	}
	if err := Validate(d, p, plan); err != nil {
		return nil, fmt.Errorf("external planner %s returned an invalid plan: %w", e.Path, err)
	}
	return plan, nil
}
