package app

import (
	"testing"

	"github.com/samem/trainer/runner"
)

// TestNeverGuided: a method with a memory whose evaluated steps were never
// guided is flagged, one that guided some is not, a baseline never is, and
// nothing is flagged without a completed step; the table cell says which.
func TestNeverGuided(t *testing.T) {
	use := func(guided, steps int) MemoryUse {
		u := MemoryUse{}
		u.GuidedSteps, u.Steps = guided, steps
		if steps > 0 {
			u.GuidedShare = float64(guided) / float64(steps)
		}
		return u
	}
	for _, tc := range []struct {
		method string
		use    MemoryUse
		never  bool
		cell   string
	}{
		{"samem", use(0, 120), true, "never ⚠"},
		{"samem", use(43, 100), false, "43%"},
		{"memstream", use(0, 0), false, "-"},
		{"nomemory", use(0, 180), false, "- (no memory)"},
	} {
		r := EvalResult{Method: tc.method, MemoryUse: tc.use}
		if got := r.NeverGuided(); got != tc.never {
			t.Errorf("%s guided %d of %d: NeverGuided %v, want %v", tc.method, tc.use.GuidedSteps, tc.use.Steps, got, tc.never)
		}
		if got := r.GuidedCell(); got != tc.cell {
			t.Errorf("%s guided %d of %d: cell %q, want %q", tc.method, tc.use.GuidedSteps, tc.use.Steps, got, tc.cell)
		}
	}
	// The counts are runner.GuidedShare's: an errored episode's steps are
	// left out, so its guided steps cannot hide a memory that never guided.
	eps := []runner.Episode{{Use: runner.Use{GuidedSteps: 3}}, {}}
	eps[0].Outcome.Steps, eps[0].Outcome.Err = 3, "boom"
	eps[1].Outcome.Steps = 5
	r := EvalResult{Method: "samem", MemoryUse: MemoryUse{UseSummary: runner.SummarizeUse(eps)}}
	if !r.NeverGuided() {
		t.Errorf("guided steps only in an errored episode (%+v): not flagged", r.MemoryUse.UseSummary)
	}
}
