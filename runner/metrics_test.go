package runner

import (
	"math"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

func ep(typ string, oracle int, o agent.Outcome) Episode {
	return Episode{Task: envbridge.Task{Type: typ, OracleSteps: oracle}, Outcome: o}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestSummarizeSPL(t *testing.T) {
	eps := []Episode{
		// Won in fewer steps than the oracle (P < L): the term is capped at 1.
		ep("put", 6, agent.Outcome{Won: true, Steps: 4, Score: 1, MaxScore: 1}),
		// Won in twice the oracle's steps: 5/10.
		ep("put", 5, agent.Outcome{Won: true, Steps: 10, Score: 1, MaxScore: 1}),
		// Done at the step limit, not won: 0, whatever the steps.
		ep("clean", 6, agent.Outcome{Truncated: true, Steps: 6, MaxScore: 1}),
		// Won but the episode ended in an error: errored, in no rate,
		// neither a success nor a failure.
		ep("clean", 6, agent.Outcome{Won: true, Steps: 6, Err: "boom"}),
	}
	s := Summarize(eps, map[string]int{"put": 4, "clean": 6})
	if s.Successes != 2 || !near(s.SuccessRate, 2.0/3) || s.Errors != 1 || s.Completed != 3 || s.Tasks != 4 {
		t.Errorf("successes = %d, rate %v, errored %d, completed %d of %d; want 2, 2/3, 1, 3 of 4", s.Successes, s.SuccessRate, s.Errors, s.Completed, s.Tasks)
	}
	if s.SPL == nil || !near(*s.SPL, (1+0.5)/3) {
		t.Errorf("SPL = %v, want %v", s.SPL, (1+0.5)/3)
	}
	// Paper oracle: put is 4 steps: 4/4 = 1 and 4/10 = 0.4.
	if s.SPLPaper == nil || !near(*s.SPLPaper, (1+0.4)/3) {
		t.Errorf("SPLPaper = %v, want %v", s.SPLPaper, (1+0.4)/3)
	}
	if !near(s.AvgSteps, 20.0/3) || !near(s.AvgScore, 2.0/3) {
		t.Errorf("avg steps %v, avg score %v", s.AvgSteps, s.AvgScore)
	}
	// Every episode errored: nothing measured, no rate pretends otherwise.
	all := Summarize([]Episode{ep("put", 4, agent.Outcome{Err: "model down"})}, nil)
	if all.Errors != 1 || all.Completed != 0 || all.SuccessRate != 0 || all.SPL != nil {
		t.Errorf("all errored: %+v", all)
	}
}

func TestSummarizeWithoutOracle(t *testing.T) {
	s := Summarize([]Episode{
		ep("game", 0, agent.Outcome{Score: 3, MaxScore: 7, Steps: 100, Truncated: true}),
		ep("game", 0, agent.Outcome{Score: 7, MaxScore: 7, Won: true, Steps: 50}),
	}, nil)
	if s.SPL != nil || s.SPLPaper != nil {
		t.Errorf("SPL = %v, SPLPaper = %v; want nil without oracles", s.SPL, s.SPLPaper)
	}
	if !near(s.AvgScore, (3.0/7+1)/2) {
		t.Errorf("AvgScore = %v", s.AvgScore)
	}
}

func TestSPLTerm(t *testing.T) {
	for _, tc := range []struct {
		L, P int
		want float64
	}{{4, 4, 1}, {4, 8, 0.5}, {8, 4, 1}, {7, 10, 0.7}} {
		if got := SPLTerm(tc.L, tc.P); !near(got, tc.want) {
			t.Errorf("SPLTerm(%d, %d) = %v, want %v", tc.L, tc.P, got, tc.want)
		}
	}
}

// ScienceWorld: success at 100, a partial score, and a failure that the
// server scores -100. The failure counts as no progress (0), and SR and AR
// are Table 1's units (seed 002): percent and points of 100.
func TestSummarizeScienceWorldFailure(t *testing.T) {
	eps := []Episode{
		ep("boil", 0, agent.Outcome{Won: true, Score: 100, MaxScore: 100, Steps: 30}),
		ep("boil", 0, agent.Outcome{Truncated: true, Score: 50, MaxScore: 100, Steps: 40}),
		ep("boil", 0, agent.Outcome{Lost: true, Score: -100, MaxScore: 100, Steps: 12}),
		ep("boil", 0, agent.Outcome{Truncated: true, Score: 0, MaxScore: 100, Steps: 40}),
	}
	s := Summarize(eps, nil)
	if !near(s.AvgScore, 0.375) || !near(s.AR, 37.5) {
		t.Errorf("avg score %v, AR %v; want 0.375 and 37.5 (the -100 counted 0, not -1)", s.AvgScore, s.AR)
	}
	if !near(s.SuccessRate, 0.25) || !near(s.SR, 25) {
		t.Errorf("success %v, SR %v; want 0.25 and 25", s.SuccessRate, s.SR)
	}
}
