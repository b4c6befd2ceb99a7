package app

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestParseSeedList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int64
	}{
		{"1-3", []int64{1, 2, 3}},
		{"1,5,20,0", []int64{1, 5, 20, 0}},
		{"-5,13, 1234", []int64{-5, 13, 1234}},
		{"-2--1,4-4", []int64{-2, -1, 4}},
	} {
		got, err := ParseSeedList(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSeedList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", ",", "a", "3-1", "1-x", "0-20000"} {
		if got, err := ParseSeedList(bad); err == nil {
			t.Errorf("ParseSeedList(%q) = %v, want an error", bad, got)
		}
	}
}

func TestCellsAndTable(t *testing.T) {
	pt := func(p int, w, s int64, samem, nomem float64, entries int) GridPoint {
		return GridPoint{WorldSeed: w, Seed: s, PerType: p,
			Success: map[string]float64{"samem": samem, "nomemory": nomem, "samem-no-decay": samem / 2},
			Entries: map[string]int{"samem": entries, "samem-no-decay": entries * 2},
			NonZero: map[string]int{"samem": entries - 2, "samem-no-decay": entries * 2},
			Pruned:  map[string]int{"samem": 2, "samem-no-decay": 1}}
	}
	points := []GridPoint{
		pt(1, 7, 1, 0.9, 0.1, 10), pt(1, 7, 2, 1.0, 0.2, 20),
		pt(5, 7, 1, 0.8, 0.1, 30), pt(5, 7, 2, 0.9, 0.2, 40),
	}
	cells := Cells(points)
	if len(cells) != 2 {
		t.Fatalf("%d cells, want 2", len(cells))
	}
	c := cells[0]
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if c.PerType != 1 || c.Runs != 2 || !near(c.Mean, 0.95) || !near(c.Min, 0.9) || !near(c.NoMemory, 0.15) || !near(c.Margin, 0.8) || !near(c.Entries, 15) || !near(c.NonZero, 13) || !near(c.Pruned, 2) || !c.Goal() {
		t.Errorf("cell 1 = %+v", c)
	}
	if a := c.Ablation["samem-no-decay"]; !near(a[0], 0.475) || !near(a[1], 30) || !near(a[2], 1) {
		t.Errorf("ablation of cell 1 = %v, want 0.475, 30, 1", a)
	}
	if cells[1].Goal() {
		t.Errorf("cell 2 (lowest 0.8) meets the goal: %+v", cells[1])
	}
	var b bytes.Buffer
	WriteGridTable(&b, points, []string{"samem-no-decay"})
	out := b.String()
	// Cell 1's runs 0.9 and 1.0: 0.95 ± t(1) 0.05 = 0.95 ± 0.635, clipped.
	for _, want := range []string{"0.950", "[0.315, 1.000]", "-0.100", "1 of 1", "0 of 1", "NO", "0.475, 30.0, 1.0", "13.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
