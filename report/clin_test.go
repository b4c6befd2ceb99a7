package report

import (
	"strings"
	"testing"

	"github.com/samem/trainer/runner"
)

// TestCLINTable2: the report lays CLIN's settings out as seed 004 Table 2:
// types in the paper's order and names, G+A as its first trial and its
// result after adaptation; without a CLIN method there is no such table.
func TestCLINTable2(t *testing.T) {
	by := func(pick, heat float64) map[string]runner.Summary {
		return map[string]runner.Summary{
			"pick_heat_then_place_in_recep": {Tasks: 2, Completed: 2, SuccessRate: heat},
			"pick_and_place_simple":         {Tasks: 2, Completed: 2, SuccessRate: pick},
		}
	}
	d := Data{Env: "household", Methods: []Method{
		{Name: "samem", Overall: runner.Summary{Tasks: 4, Completed: 4, SuccessRate: 1}, ByType: by(1, 1)},
		{Name: "clin", Overall: runner.Summary{Tasks: 4, Completed: 4, SuccessRate: 0.5}, ByType: by(1, 0)},
		{Name: "clin-ga", Overall: runner.Summary{Tasks: 4, Completed: 4, SuccessRate: 0.75}, ByType: by(1, 0.5),
			Adapt: &Adapt{FirstTrial: runner.Summary{Tasks: 4, Completed: 4, SuccessRate: 0.5}, FirstByType: by(1, 0), AvgTrials: 2.25, MaxTrials: 5}},
	}}
	md := Markdown(d, nil)
	for _, want := range []string{
		"| setting | Pick | Heat | All | trials per task |",
		"| clin (GEN-ENV) | 100.0 | 0.0 | 50.0 | 1 |",
		"| clin-ga, first trial (GEN-ENV) | 100.0 | 0.0 | 50.0 | 1 |",
		"| clin-ga (GEN-ENV+A) | 100.0 | 50.0 | 75.0 | 2.25 of 5 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "## Ablations of clin") {
		t.Errorf("clin-ga, a setting of Table 2, is listed as an ablation of clin:\n%s", md)
	}
	d.Methods = d.Methods[:1]
	if md := Markdown(d, nil); strings.Contains(md, "seed 004") {
		t.Error("report without CLIN has a seed 004 Table 2")
	}
}
