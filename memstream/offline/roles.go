// Package offline is the memory-stream agent without a model: importance
// by rule, the goal as the one reflection question, insights that restate
// the placements read from the cited memories, and Ariadne's offline
// decider (package arigraph/offline) reading the placements stated in the
// retrieved memories. These rules are this project's; they let the method
// run and be tested without a model. Pass Method{} as memstream.Deps.Offline.
package offline

import (
	"context"
	"fmt"
	"strings"

	arioff "github.com/samem/trainer/arigraph/offline"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/memstream"
)

// streamRoles implements memstream.Roles without a model: importance by rule,
// the goal as the reflection question, and insights that restate the
// placements and states read (by arigraph/offline.Rules) from the cited
// statements.
type streamRoles struct {
	Style envbridge.Style
}

// Importance rates a memory by rule: 2 for a mundane one; +3 when it lists
// things found (contents, items on the floor), +3 when it mentions a word of
// the goal, +2 for reading or a score change; clamped to 1..10.
func (o streamRoles) Importance(_ context.Context, goal, memory string) (float64, error) {
	m := strings.ToLower(memory)
	v := 2.0
	if strings.Contains(m, "you see a") || strings.Contains(m, "contains") || strings.Contains(m, "on the floor") || strings.Contains(m, "in it,") {
		v += 3
	}
	for _, w := range strings.Fields(strings.ToLower(goal)) {
		if len(w) > 3 && strings.Contains(m, strings.Trim(w, ".,!")) {
			v += 3
			break
		}
	}
	if strings.Contains(m, "score") || strings.Contains(m, "recipe") || strings.Contains(m, "note") {
		v += 2
	}
	return min(10, v), nil
}

// Questions returns the goal as the one question worth asking.
func (o streamRoles) Questions(_ context.Context, memories []string) ([]string, error) {
	return []string{"where are the things the goal needs"}, nil
}

// Insights restates, for each cited statement, the placements it reports.
func (o streamRoles) Insights(_ context.Context, goal string, memories []string) ([]memstream.Insight, error) {
	var out []memstream.Insight
	seen := map[string]bool{}
	for i, m := range memories {
		for _, t := range (arioff.Rules{}).Extract(o.Style, m, "", "").Triplets {
			if t.Relation != "is in" && t.Relation != "is on" {
				continue
			}
			s := fmt.Sprintf("%s %s %s", t.Subject, t.Relation, t.Object)
			if !seen[s] && len(out) < memstream.DefaultInsights {
				seen[s] = true
				out = append(out, memstream.Insight{Text: s, Evidence: []int{i + 1}})
			}
		}
	}
	return out, nil
}
