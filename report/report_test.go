package report

import (
	"bytes"
	"errors"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func f(v float64) *float64 { return &v }

// sample is a small report: two learners with training histories, a
// baseline, an ablation and a threshold sweep.
func sample() Data {
	hist := func(rates []float64, entries []int) []runner.IterationStats {
		h := make([]runner.IterationStats, len(rates))
		for i := range rates {
			h[i] = runner.IterationStats{Iteration: i, Episodes: 10, Successes: int(rates[i] * 10), SuccessRate: rates[i], Steps: 100 - 10*i,
				Size: map[string]int{"entries": entries[i], "states": entries[i] / 4, "thoughts": entries[i] / 3}}
		}
		return h
	}
	byType := func(a, b float64) map[string]runner.Summary {
		return map[string]runner.Summary{
			"clean": {Tasks: 2, Successes: int(a * 2), SuccessRate: a, AvgScore: a, SPL: f(a / 2), SPLPaper: f(a / 3), AvgSteps: 20},
			"put":   {Tasks: 2, Successes: int(b * 2), SuccessRate: b, AvgScore: b, SPL: f(b / 2), SPLPaper: f(b / 3), AvgSteps: 30},
		}
	}
	wilson := func(k, n int) stats.Interval { iv := stats.Wilson(k, n); iv.Over = "tasks"; return iv }
	typeCI := func(a, b int) map[string]TypeCI {
		return map[string]TypeCI{"clean": {Success: wilson(a, 2), Score: wilson(a, 2)}, "put": {Success: wilson(b, 2), Score: wilson(b, 2)}}
	}
	use := func(g float64) *Use {
		return &Use{GuidedShare: g, GuidedSteps: int(g * 100), Steps: 100, InvalidRate: f(0.05), ProgressRate: f(0.6), TokensPerSuccess: f(4115), TokensBuild: 900, TokensTraining: 800, TokensUse: 12345}
	}
	return Data{
		Provenance: "code 0123456789ab; go1.26.8; environment household", Warnings: []string{"this evaluation differs from the run's training in prompt template thought/household.tmpl (SHA-256): 111111111111 → 222222222222 (training → evaluation)"},
		Run: "runs/x", Split: "valid_unseen", Env: "household", Backend: "offline",
		Methods: []Method{
			{Name: "samem", Overall: runner.Summary{Tasks: 4, Successes: 3, SuccessRate: 0.75, AvgScore: 0.75, SPL: f(0.4), SPLPaper: f(0.35), AvgSteps: 25},
				ByType: byType(1, 0.5), Memory: map[string]int{"states": 10, "thoughts": 12, "entries": 40},
				Success: wilson(3, 4), Score: wilson(3, 4), TypeCI: typeCI(2, 1), Use: use(0.4),
				Paired:  []Paired{{Against: "nomemory", Metric: "success", Paired: stats.Compare([]float64{1, 1, 1, 0}, []float64{0, 1, 0, 0})}},
				History: hist([]float64{0.2, 0.6, 0.9}, []int{30, 38, 40}), ScoreByStep: []float64{0, 0.25, 0.75}, ScoreLow: []float64{0, 0.05, 0.5}, ScoreHigh: []float64{0, 0.45, 1}},
			{Name: "samem-no-forgetting", Note: "without the forgetting step (Fig. 6)", Overall: runner.Summary{Tasks: 4, Successes: 2, SuccessRate: 0.5, AvgScore: 0.5, SPL: f(0.3), SPLPaper: f(0.2), AvgSteps: 30},
				ByType: byType(0.5, 0.5), Memory: map[string]int{"states": 10, "thoughts": 15, "entries": 60},
				// A memory that guided no step: flagged.
				Success: wilson(2, 4), Score: wilson(2, 4), TypeCI: typeCI(1, 1), Use: use(0),
				Paired:  []Paired{{Against: "nomemory", Metric: "success", Paired: stats.Compare([]float64{1, 1, 0, 0}, []float64{0, 1, 0, 0})}},
				History: hist([]float64{0.1, 0.4, 0.7}, []int{35, 50, 60}), ScoreByStep: []float64{0, 0.25, 0.5}, ScoreLow: []float64{0, 0.05, 0.2}, ScoreHigh: []float64{0, 0.45, 0.8}},
			{Name: "nomemory", Baseline: true, Overall: runner.Summary{Tasks: 4, Successes: 1, SuccessRate: 0.25, AvgScore: 0.25, SPL: f(0.1), SPLPaper: f(0.05), AvgSteps: 45, Errors: 1},
				ByType: byType(0, 0.5), Tokens: 12345, TokensSent: 10000, Requests: 30, CacheHits: 5, ReasoningTokens: 4000, CostUSD: 0.0123, ScoreByStep: []float64{0, 0, 0.25},
				// A role that fell back on 3 of 10 replies: flagged.
				FallbackShare: 0.3, MeasuresFallback: true,
				Parse: []ParseRow{{Role: "summarize", Replies: 10, Repaired: 4, Unusable: 3, FellBack: 3, FallbackShare: 0.3, Reasoned: 6, ReasoningTokens: 4000}}},
		},
		Sweep: []SweepPoint{
			{Param: "threshold", Value: 0.9, Tasks: 4, SuccessRate: 0.75, AvgScore: 0.75, States: 14, Thoughts: 12, Entries: 50},
			{Param: "threshold", Value: 0.7, Tasks: 4, SuccessRate: 0.25, AvgScore: 0.25, States: 4, Thoughts: 12, Entries: 20},
		},
	}
}

// testDPI keeps images small: rasterising under -race is slow.
var testDPI = Options{DPI: 40}

func TestMarkdownGolden(t *testing.T) {
	plots := map[string]bool{TrainingPlot: true, MemoryPlot: true, SweepPlot: true, TokensPlot: true, ByTypePlot: true, ScoreStepPlot: true}
	got := Markdown(sample(), plots)
	golden := filepath.Join("testdata", "report.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("Markdown differs from %s (go test ./report -update to accept):\n%s", golden, got)
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	files, err := Write(dir, sample(), testDPI)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	// Every plot but Fig. 9 (no thought-threshold points), as PNG and SVG,
	// the tables as CSV and LaTeX, and the page.
	want := []string{TrainingPlot, MemoryPlot, SweepPlot, TokensPlot, ByTypePlot, ScoreStepPlot, MarkdownFile}
	var all []string
	for _, w := range want[:len(want)-1] {
		all = append(all, w, SVGName(w))
	}
	for _, stem := range []string{"by_type", "memory_use", "paired", "table"} {
		all = append(all, stem+".csv", stem+".tex")
	}
	all = append(all, MarkdownFile)
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f))
	}
	if strings.Join(got, " ") != strings.Join(all, " ") {
		t.Errorf("Write wrote %v, want %v", got, all)
	}
	for _, w := range want[:len(want)-1] {
		b, err := os.ReadFile(filepath.Join(dir, SVGName(w)))
		if err != nil || !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("</svg>")) {
			t.Errorf("%s: not an SVG document (%v)", SVGName(w), err)
		}
	}
	tex, _ := os.ReadFile(filepath.Join(dir, "paired.tex"))
	if !bytes.Contains(tex, []byte("\\toprule")) || !bytes.Contains(tex, []byte("samem-no-forgetting & nomemory & success & 4 & 0.2500")) {
		t.Errorf("paired.tex:\n%s", tex)
	}
	csvb, _ := os.ReadFile(filepath.Join(dir, "table.csv"))
	if !bytes.HasPrefix(csvb, []byte("method,tasks,errored,success,success_low,success_high,")) || !bytes.Contains(csvb, []byte("\nsamem,4,0,0.7500,0.3006,0.9544,")) {
		t.Errorf("table.csv:\n%s", csvb)
	}
	series := map[string]int{TrainingPlot: 2, MemoryPlot: 2, ByTypePlot: 3, ScoreStepPlot: 3}
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if name == MarkdownFile {
			continue
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if r := img.Bounds(); r.Dx() < 300 || r.Dy() < 180 {
			t.Errorf("%s is %dx%d at %d dpi, want at least 300x180", name, r.Dx(), r.Dy(), testDPI.DPI)
		}
		// Each series of the plots with one per method is drawn.
		if n := series[name]; n > 0 {
			for i := 0; i < n; i++ {
				if c := countColour(img, colour(i)); c < 10 {
					t.Errorf("%s: %d pixels of method %d's colour, want a drawn series", name, c, i)
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ThoughtPlot)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s written without thought-threshold points (err %v)", ThoughtPlot, err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if !strings.Contains(string(md), "thought_sweep.png: not drawn") {
		t.Errorf("report.md does not say why Fig. 9 is missing:\n%s", md)
	}
}

func countColour(img image.Image, c color.Color) int {
	r0, g0, b0, _ := c.RGBA()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if near16(r, r0) && near16(g, g0) && near16(bb, b0) {
				n++
			}
		}
	}
	return n
}

func near16(a, b uint32) bool { return a>>8 >= (b>>8)-6 && a>>8 <= (b>>8)+6 }

func TestWriteNothing(t *testing.T) {
	if _, err := Write(t.TempDir(), Data{}, testDPI); !errors.Is(err, ErrNoData) {
		t.Errorf("Write(empty) = %v, want ErrNoData", err)
	}
}

func TestSkipsWithoutData(t *testing.T) {
	d := sample()
	for i := range d.Methods {
		d.Methods[i].History = nil
		d.Methods[i].ScoreByStep = nil
	}
	d.Sweep = nil
	for name, fn := range map[string]func(Data) (drawing, error){
		"training": trainingPlot, "memory": memoryPlot, "score": scoreStepPlot,
		"sweep": func(d Data) (drawing, error) { return sweepPlot(d, "threshold") },
	} {
		if _, err := fn(d); !errors.Is(err, errSkip) {
			t.Errorf("%s plot without data: err %v, want errSkip", name, err)
		}
	}
}

func TestIntegerTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0.8, 9.2, "1 2 3 4 5 6 7 8 9"},
		{0, 50, "0 6 12 18 24 30 36 42 48"},
		{0.8, 2.2, "1 2"},
	} {
		var got []string
		for _, tk := range (integerTicks{}).Ticks(tc.lo, tc.hi) {
			got = append(got, tk.Label)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("integerTicks(%v, %v) = %v, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestShortTypes(t *testing.T) {
	got := shortTypes([]string{"pick_clean_then_place_in_recep", "put"})
	if got[0] != "pick_clean\nthen_place\nin_recep" || got[1] != "put" {
		t.Errorf("shortTypes = %q", got)
	}
}
