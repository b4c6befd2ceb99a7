package pddl

import (
	"fmt"
	"os/exec"
	"strings"
)

// ParsePlanner returns the planner a -planner value names
// (kgplan.Config.PlannerSpec): nil for the built-in A* ("" or "astar"),
// Fast Downward for
// "fast-downward=PATH", else an external planner's command line with the
// placeholders {domain}, {problem} and {plan}. The program must be found.
func ParsePlanner(spec string) (Planner, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == "astar":
		return nil, nil
	case strings.HasPrefix(spec, "fast-downward="):
		path := strings.TrimPrefix(spec, "fast-downward=")
		if _, err := exec.LookPath(path); err != nil {
			return nil, fmt.Errorf("%q: Fast Downward driver not found: %v", path, err)
		}
		return FastDownward(path), nil
	}
	f := strings.Fields(spec)
	if _, err := exec.LookPath(f[0]); err != nil {
		return nil, fmt.Errorf("%q: planner program not found: %v", f[0], err)
	}
	joined := strings.Join(f[1:], " ")
	if !strings.Contains(joined, "{domain}") || !strings.Contains(joined, "{problem}") || !strings.Contains(joined, "{plan}") {
		return nil, fmt.Errorf("%q: the arguments must name {domain}, {problem} and {plan}", spec)
	}
	return &External{Path: f[0], Args: f[1:]}, nil
}
