package report

import (
	"strings"
	"testing"

	"github.com/samem/trainer/runner"
)

// Scored environments get seed 002 Table 1's SR (%) and AR; the household
// world, whose tasks have no partial score, does not.
func TestTable1(t *testing.T) {
	d := Data{Run: "runs/sw", Split: "valid_unseen", Env: "agentgym", Backend: "offline", Methods: []Method{
		{Name: "samem", Overall: runner.Summary{Tasks: 4, SuccessRate: 0.25, AvgScore: 0.375, SR: 25, AR: 37.5}},
		{Name: "nomemory", Overall: runner.Summary{Tasks: 4, SR: 0, AR: 12.5, AvgScore: 0.125}},
	}}
	md := Markdown(d, nil)
	for _, want := range []string{"| method | SR (%) [95 % CI] | AR [95 % CI] |", "| samem | 25.0 | 37.5 |", "| nomemory | 0.0 | 12.5 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	d.Env = "household"
	if md := Markdown(d, nil); strings.Contains(md, "SR (%)") {
		t.Errorf("household report has a Table 1 SR/AR table")
	}
}
