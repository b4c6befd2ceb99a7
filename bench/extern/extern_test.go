package extern

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseGoTest(t *testing.T) {
	for _, tc := range []struct {
		file, name, unit string
		procs            int
		n                int
		want             float64
	}{
		{"household.txt", "Step", "steps/s", 2, 20000, 238503},
		{"household.txt", "Step", "allocs/op", 2, 20000, 2},
		{"zmachine.txt", "InterpreterTurn", "turns/s", 2, 200, 468.3},
		{"zmachine.txt", "Step", "ns/op", 2, 200, 4344651},
		{"skip.txt", "B", "turns/s", 2, 100, 12.5},
	} {
		t.Run(tc.file+"/"+tc.name+"/"+tc.unit, func(t *testing.T) {
			g, err := ParseGoTest(read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			b, ok := g.Find(tc.name)
			if !ok {
				t.Fatalf("Find(%q) = not found in %+v", tc.name, g.Benchmarks)
			}
			if b.Procs != tc.procs || b.N != tc.n || b.Metrics[tc.unit] != tc.want {
				t.Errorf("Find(%q) = procs %d, n %d, %s %v; want %d, %d, %v", tc.name, b.Procs, b.N, tc.unit, b.Metrics[tc.unit], tc.procs, tc.n, tc.want)
			}
		})
	}
}

func TestParseGoTestSkip(t *testing.T) {
	g, err := ParseGoTest(read(t, "skip.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.Skipped["A"], "x_test.go:3: dfrotz missing (apt-get install frotz)"; got != want {
		t.Errorf("Skipped[A] = %q, want %q", got, want)
	}
	if _, ok := g.Find("A"); ok {
		t.Error("skipped benchmark A has a result")
	}
	if _, ok := g.Skipped["B"]; ok {
		t.Error("benchmark B that ran is marked skipped")
	}
}

func TestParseGoTestBad(t *testing.T) {
	for _, in := range []string{
		"BenchmarkX-2 \t 10 \t 5 ns/op 7\n",                 // a value without its unit
		"BenchmarkX-2 \t 99999999999999999999 \t 5 ns/op\n", // count overflows
		"BenchmarkX-2 \t 10 \t five ns/op\n",                // not a number
	} {
		if _, err := ParseGoTest([]byte(in)); !errors.Is(err, ErrOutput) {
			t.Errorf("ParseGoTest(%q) error = %v, want ErrOutput", in, err)
		}
	}
}

func TestParseTable(t *testing.T) {
	rows, err := ParseTable(read(t, "cluster.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix          string
		value, baseline float64
		target          string
	}{
		{"median decision at 100000", 5.760, 16.561, "<= 2, >= 9x faster"},
		{"decisions equal to exact scan at 10000", 100, 100, ">= 99.9"},
		{"resident memory of the index at 100000", 613.449, 390.625, "<= 600"},
	} {
		r, ok := FindRow(rows, tc.prefix)
		if !ok {
			t.Errorf("FindRow(%q): not found", tc.prefix)
			continue
		}
		v, _ := Number(r.Value)
		b, _ := Number(r.Baseline)
		if v != tc.value || b != tc.baseline || r.Target != tc.target {
			t.Errorf("FindRow(%q) = %v, %v, %q; want %v, %v, %q", tc.prefix, v, b, r.Target, tc.value, tc.baseline, tc.target)
		}
	}
	if r, _ := FindRow(rows, "bulk build"); r.Baseline != "-" {
		t.Errorf("bulk build baseline = %q, want -", r.Baseline)
	}
	if _, err := ParseTable([]byte("no table here\n")); !errors.Is(err, ErrOutput) {
		t.Errorf("ParseTable without header: error %v, want ErrOutput", err)
	}
}

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{{"16.561 (2.9x)", 16.561, true}, {"-", 0, false}, {"0.004 (append)", 0.004, true}, {"1e3 x", 1000, true}, {"", 0, false}} {
		if got, ok := Number(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("Number(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseGoTest(f *testing.F) {
	for _, n := range []string{"household.txt", "zmachine.txt", "skip.txt"} {
		f.Add(read(f, n))
	}
	f.Add([]byte("BenchmarkX\n    log\n--- SKIP: BenchmarkX-4\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		g, err := ParseGoTest(in)
		if err != nil {
			return
		}
		for _, b := range g.Benchmarks {
			if b.Name == "" || b.N < 0 {
				t.Errorf("bad benchmark %+v", b)
			}
		}
	})
}

func FuzzParseTable(f *testing.F) {
	f.Add(read(f, "cluster.txt"))
	f.Add([]byte("figure  value\nx  1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, err := ParseTable(in)
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Figure == "" && r.Value == "" {
				t.Errorf("empty row %+v", r)
			}
			Number(r.Value)
		}
	})
}
