package app

import (
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/samem/trainer/envbridge/household/hhtext"
	"github.com/samem/trainer/runner"
)

// TestPrintCLINTable2: CLIN's rows in seed 004 Table 2's layout: the
// types in the paper's order and names, a one-trial method as one row, a
// method with trials as its first trial and its result after adaptation;
// other methods are left out.
func TestPrintCLINTable2(t *testing.T) {
	by := func(heat, pick float64) map[string]runner.Summary {
		return map[string]runner.Summary{
			hhtext.PickHeat:     {Tasks: 4, Completed: 4, SuccessRate: heat},
			hhtext.PickAndPlace: {Tasks: 4, Completed: 4, SuccessRate: pick},
		}
	}
	res := []EvalResult{
		{Method: "samem", Tasks: 8, Completed: 8, SuccessRate: 1, ByType: by(1, 1)},
		{Method: "clin", Tasks: 8, Completed: 8, SuccessRate: 0.5, ByType: by(0.25, 0.75)},
		{Method: CLINGenTaskName, Tasks: 8, Completed: 7, Errors: 1, SuccessRate: 5.0 / 7, ByType: by(0.5, 1),
			Adapt: &AdaptResult{MaxTrials: 5, AvgTrials: 2.5, Episodes: 20, FirstTrial: runner.Summary{Tasks: 8, Completed: 8, SuccessRate: 0.125}, FirstByType: by(0, 0.25)}},
	}
	var b strings.Builder
	PrintCLINTable2(tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0), res)
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		rows = append(rows, strings.Fields(l))
	}
	want := [][]string{
		{"seed", "004", "Table", "2", "(success", "%)", "Pick", "Heat", "All", "trials/task", "errored"},
		{"clin", "(GEN-ENV)", "75.0", "25.0", "50.0", "1", "0"},
		{"clin-gen-task", "first", "trial", "(GEN-TASK)", "25.0", "0.0", "12.5", "1", "0"},
		{"clin-gen-task", "(GEN-TASK+A)", "100.0", "50.0", "71.4", "2.50", "of", "5", "1"},
	}
	if len(rows) != len(want) {
		t.Fatalf("table:\n%s", b.String())
	}
	for i := range want {
		if strings.Join(rows[i], " ") != strings.Join(want[i], " ") {
			t.Errorf("row %d = %q, want %q", i, strings.Join(rows[i], " "), strings.Join(want[i], " "))
		}
	}
}
