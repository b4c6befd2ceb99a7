package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  Row
		want string
	}{
		{"at most met", Row{Value: 2, Target: Target{Op: AtMost, Limit: 2}}, "ok"},
		{"at most missed", Row{Value: 2.1, Target: Target{Op: AtMost, Limit: 2}}, "MISS"},
		{"at least met", Row{Value: 12.8, Target: Target{Op: AtLeast, Limit: 12.8}}, "ok"},
		{"at least missed", Row{Value: 12.7, Target: Target{Op: AtLeast, Limit: 12.8}}, "MISS"},
		{"no target", Row{Value: 5}, "ok"},
		{"no value", Row{Value: None, Target: Target{Op: AtMost, Limit: 1}}, "skip"},
		{"pass overrides", Row{Value: 1, Target: Target{Op: AtMost, Limit: 2}, Pass: Bool(false)}, "MISS"},
	} {
		if got := tc.row.Status(); got != tc.want {
			t.Errorf("%s: Status() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func rows() []Row {
	return []Row{
		{Group: "g", Figure: "median | step (ms)", Value: 1.0687, Target: Target{Op: AtMost, Limit: 1}, Baseline: 3.2, BaselineName: "exact", Ratio: 3.0, RatioName: "x faster"},
		{Group: "g", Figure: "turns/s", Value: None, Target: Target{Op: AtLeast, Limit: 300}, Baseline: None, Ratio: None, Note: "dfrotz missing"},
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, rows()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("Text wrote %d lines, want 3:\n%s", len(lines), b.String())
	}
	for _, want := range []string{"1.069", "<= 1", "3.200 (exact)", "3.000 x faster", "MISS"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row 1 %q lacks %q", lines[1], want)
		}
	}
	if !strings.Contains(lines[2], "skip: dfrotz missing") {
		t.Errorf("row 2 %q lacks the skip note", lines[2])
	}
	// Columns are aligned: "value" starts at the same offset in every line.
	col := strings.Index(lines[0], "value")
	if lines[1][col-2:col] != "  " {
		t.Errorf("value column not aligned:\n%s", b.String())
	}
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, rows()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 || lines[1] != "|---|---|---|---|---|---|" {
		t.Fatalf("Markdown:\n%s", b.String())
	}
	if !strings.Contains(lines[2], `median \| step`) {
		t.Errorf("pipe in a cell not escaped: %q", lines[2])
	}
}

func TestJSONRoundTrip(t *testing.T) {
	in := rows()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []Row
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Value != in[0].Value || out[0].Target != in[0].Target || out[0].BaselineName != "exact" {
		t.Errorf("round trip: got %+v, want %+v", out, in)
	}
	if !math.IsNaN(out[1].Value) || !math.IsNaN(out[1].Ratio) || out[1].Note != "dfrotz missing" {
		t.Errorf("NaN row after round trip: %+v", out[1])
	}
}

func TestMisses(t *testing.T) {
	if got := Misses(rows()); len(got) != 1 || got[0].Figure != "median | step (ms)" {
		t.Errorf("Misses = %+v, want the first row only", got)
	}
}
