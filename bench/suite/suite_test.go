package suite

import (
	"context"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/samem/trainer/bench/extern"
)

func TestClusterTable(t *testing.T) {
	b, err := os.ReadFile("testdata/cluster.txt")
	if err != nil {
		t.Fatal(err)
	}
	table, err := extern.ParseTable(b)
	if err != nil {
		t.Fatal(err)
	}
	rows := clusterTable(table, 100000, 10000)
	want := []struct {
		figure string
		value  float64
		status string
	}{
		{"clustering at 100000: decisions equal to exact scan (%)", 100, "ok"},
		{"clustering at 100000: median decision, 1 core (ms)", 5.760, "MISS"}, // 2.9x faster, > 2 ms
		{"clustering at 10000: decisions equal to exact scan (%)", 100, "ok"},
		{"clustering at 10000: median decision, 1 core (ms)", 0.511, "MISS"},
		{"clustering at 100000: insertion of a new vector (ms)", 0.444, "ok"},
		{"resident memory per 100,000 stored 1024-d vectors (MiB)", 613.449, "MISS"},
	}
	if len(rows) != len(want) {
		t.Fatalf("clusterTable gave %d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, w := range want {
		r := rows[i]
		if r.Figure != w.figure || math.Abs(r.Value-w.value) > 1e-9 || r.Status() != w.status {
			t.Errorf("row %d = %q %v %s, want %q %v %s", i, r.Figure, r.Value, r.Status(), w.figure, w.value, w.status)
		}
	}
	if r := rows[1]; math.Abs(r.Ratio-16.561/5.760) > 1e-9 {
		t.Errorf("speedup ratio = %v, want %v", r.Ratio, 16.561/5.760)
	}
}

func TestClusterTableMissingRows(t *testing.T) {
	rows := clusterTable(nil, 100000, 10000)
	for _, r := range rows {
		if r.Status() != "skip" || r.Note == "" {
			t.Errorf("row %q from an empty table: status %s, note %q; want skip with a note", r.Figure, r.Status(), r.Note)
		}
	}
}

func TestUnknownGroup(t *testing.T) {
	if _, err := Run(context.Background(), Options{Only: []string{"nope"}}); !errors.Is(err, ErrGroup) {
		t.Errorf("Run(only nope) error = %v, want ErrGroup", err)
	}
	if err := InProcess(context.Background(), Options{}, "cluster", nil); !errors.Is(err, ErrGroup) {
		t.Errorf("InProcess(cluster) error = %v, want ErrGroup", err)
	}
}
