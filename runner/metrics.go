package runner

import (
	"fmt"

	"github.com/samem/trainer/agent"
	"sort"
	"strings"
)

// Summary aggregates episodes of one method on one set of tasks, as the
// papers report them (seed 002 Sec. 4.1.2: success rate, average score, SPL
// by Eq. 8).
//
// An episode that ended in an error (a model call that failed after its
// retry budget, a dead environment, a replay miss) is errored, not failed:
// it is counted in Errors and left out of every rate and average, which are
// over the Completed episodes only. A summary with
// errored episodes measures fewer tasks than it lists, and says so.
type Summary struct {
	Tasks int `json:"tasks"`
	// Completed is the number of episodes that ended without an error
	// (Tasks - Errors): the denominator of every rate and average.
	Completed   int     `json:"completed"`
	Successes   int     `json:"successes"`
	SuccessRate float64 `json:"success_rate"`
	// AvgScore is the mean score, each normalised by its episode's maximum
	// score where the environment gives one (so it lies in [0, 1] there).
	// A lost episode's negative score counts 0: ScienceWorld ends a failed
	// task at -100, which is a failure, not a score below no progress
	// (seed 002 is silent; Table 1's AR lies in [0, 100]).
	AvgScore float64 `json:"avg_score"`
	// SR and AR are seed 002 Table 1's columns: success ratio in percent
	// and average reward (score) in points of 100, i.e. 100 x SuccessRate
	// and 100 x AvgScore (ScienceWorld's own 0-100 score).
	SR float64 `json:"sr"`
	AR float64 `json:"ar"`
	// SPL is seed 002 Eq. 8 with each task's own oracle steps (the expert's
	// plan length); nil when some task has no known oracle.
	SPL *float64 `json:"spl"`
	// SPLPaper is Eq. 8 with the paper's fixed per-type oracle steps
	// (Table 4); nil when the tasks' types are not in the table.
	SPLPaper *float64 `json:"spl_paper,omitempty"`
	AvgSteps float64  `json:"avg_steps"`
	Errors   int      `json:"errored"` // episodes that ended in an error: not in the rates
	// Unscored is true when no episode had a maximum score and none was won:
	// the environment keeps no score (TextWorld's cleaning game), so
	// AvgScore means nothing.
	Unscored bool `json:"unscored,omitempty"`
}

// Summarize computes a Summary. paperOracle maps a task type to the paper's
// fixed oracle steps (nil: SPLPaper is not computed).
func Summarize(eps []Episode, paperOracle map[string]int) Summary {
	s := Summary{Tasks: len(eps)}
	if len(eps) == 0 {
		return s
	}
	var score, steps, spl, splPaper float64
	haveOracle, havePaper := true, paperOracle != nil
	s.Unscored = true
	for _, e := range eps {
		o := e.Outcome
		if e.Task.OracleSteps <= 0 {
			haveOracle = false
		}
		if havePaper && paperOracle[e.Task.Type] <= 0 {
			havePaper = false
		}
		if o.Err != "" {
			s.Errors++
			continue
		}
		won := o.Won
		if o.MaxScore > 0 || o.Won {
			s.Unscored = false
		}
		if won {
			s.Successes++
		}
		score += NormalizedScore(o)
		steps += float64(o.Steps)
		if won {
			if L := e.Task.OracleSteps; L > 0 {
				spl += SPLTerm(L, o.Steps)
			}
			if L := paperOracle[e.Task.Type]; L > 0 {
				splPaper += SPLTerm(L, o.Steps)
			}
		}
	}
	s.Completed = s.Tasks - s.Errors
	if s.Completed == 0 {
		s.SPL, s.SPLPaper = nil, nil
		return s
	}
	n := float64(s.Completed)
	s.SuccessRate = float64(s.Successes) / n
	s.AvgScore = score / n
	s.SR, s.AR = 100*s.SuccessRate, 100*s.AvgScore
	s.AvgSteps = steps / n
	if haveOracle {
		v := spl / n
		s.SPL = &v
	}
	if havePaper {
		v := splPaper / n
		s.SPLPaper = &v
	}
	return s
}

// NormalizedScore is an episode's score as the averages count it: a
// failure's negative score (ScienceWorld's -100) is 0, a score with a
// maximum is divided by it, and where the environment keeps no score a
// win is 1 (see Summary.AvgScore).
func NormalizedScore(o agent.Outcome) float64 {
	switch {
	case o.Lost && o.Score < 0:
		return 0
	case o.MaxScore > 0:
		return o.Score / o.MaxScore
	case o.Won:
		return 1 // environments without a score: success is the score
	}
	return o.Score
}

// SPLTerm is one successful episode's term of Eq. 8: L / max(P, L), where L
// is the oracle path length and P the steps taken.
func SPLTerm(oracle, steps int) float64 {
	return float64(oracle) / float64(max(steps, oracle))
}

// ByType groups episodes by task type, in sorted type order.
func ByType(eps []Episode) (types []string, groups map[string][]Episode) {
	groups = map[string][]Episode{}
	for _, e := range eps {
		groups[e.Task.Type] = append(groups[e.Task.Type], e)
	}
	for t := range groups {
		types = append(types, t)
	}
	sort.Strings(types)
	return types, groups
}

// FormatSize renders a memory size map as "entries=82 states=11", keys
// sorted; "-" when empty.
func FormatSize(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
