package app

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/report"
)

func TestScoreCurves(t *testing.T) {
	// Two episodes of one method: a game scored out of 4 that reaches 2
	// then 4 and ends after 2 steps, and one without a score that is won at
	// step 3. Each keeps its final score after it ended.
	lines := `{"method":"m","outcome":{"won":true,"score":4,"max_score":4,"steps":2},"transitions":[{"result":{"score":2,"max_score":4}},{"result":{"score":4,"max_score":4,"won":true}}]}
{"method":"m","outcome":{"won":true,"score":0,"max_score":0,"steps":3},"transitions":[{"result":{}},{"result":{}},{"result":{"won":true}}]}
{"method":"b","outcome":{"won":true,"score":1,"max_score":1,"steps":1,"error":"boom"},"transitions":[{"result":{"score":1,"max_score":1,"won":true}}]}
`
	path := filepath.Join(t.TempDir(), TrajectoriesFile)
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := scoreCurves(path)
	if err != nil {
		t.Fatal(err)
	}
	// The interval of the mean over the 2 episodes: mean ± t(1) s/√2,
	// t(1) = 12.7062: step 1 {0.5, 0}: s/√2 = 0.25; step 2 {1, 0}: 0.5;
	// step 3 {1, 1}: 0.
	wantMean := []float64{0.25, 0.5, 1}
	wantHalf := []float64{12.7062 * 0.25, 12.7062 * 0.5, 0}
	m := got["m"]
	if len(m.mean) != 3 {
		t.Fatalf("curve of m has %d steps, want 3", len(m.mean))
	}
	for i := range wantMean {
		if math.Abs(m.mean[i]-wantMean[i]) > 1e-12 || math.Abs(m.low[i]-(wantMean[i]-wantHalf[i])) > 1e-3 || math.Abs(m.high[i]-(wantMean[i]+wantHalf[i])) > 1e-3 {
			t.Errorf("step %d: mean %v [%v, %v], want %v ± %v", i+1, m.mean[i], m.low[i], m.high[i], wantMean[i], wantHalf[i])
		}
	}
	// Normalised max score 1 counts, even for an episode that ended in an
	// error, as runner.Summarize counts the score.
	if b := got["b"]; len(b.mean) != 1 || b.mean[0] != 1 {
		t.Errorf("curve of b = %v, want [1]", b.mean)
	}
}

func TestScoreCurvesDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), TrajectoriesFile)
	os.WriteFile(path, []byte(`{"method":"m","outcome":`), 0o644)
	if _, err := scoreCurves(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("scoreCurves(damaged) = %v, want an error naming the file", err)
	}
}

func TestSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: trains and evaluates a threshold sweep (runs without -short)")
	}
	cfg := smallConfig(t)
	cfg.Workers = 1
	values := []float64{0.5, 0.9}
	pts, err := Sweep(context.Background(), SweepConfig{Base: cfg, Values: values}, quiet())
	if err != nil {
		t.Fatalf("Sweep: %v", err)
	}
	if len(pts) != 2 {
		t.Fatalf("Sweep made %d points, want 2", len(pts))
	}
	for i, p := range pts {
		if p.Value != values[i] || p.Param != SweepThreshold || p.Tasks != cfg.Tasks || p.States == 0 {
			t.Errorf("point %d = %+v", i, p)
		}
		if _, err := os.Stat(filepath.Join(SweepRun(cfg.Run, SweepThreshold, p.Value), "samem", "checkpoints", "LATEST")); err != nil {
			t.Errorf("sub-run of %v: %v", p.Value, err)
		}
	}
	// A coarser threshold merges more states (seed 002 Fig. 7).
	if pts[0].States > pts[1].States {
		t.Errorf("states at 0.5 = %d > at 0.9 = %d", pts[0].States, pts[1].States)
	}
	// Running one value again replaces its point; the other is kept.
	if _, err := Sweep(context.Background(), SweepConfig{Base: cfg, Values: values[1:]}, quiet()); err != nil {
		t.Fatalf("Sweep again: %v", err)
	}
	var saved []report.SweepPoint
	if err := readJSON(filepath.Join(cfg.Run, SweepDir, SweepFile), &saved); err != nil || len(saved) != 2 {
		t.Errorf("sweep.json: %d points, err %v; want 2", len(saved), err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Run, ReportDir, report.SweepPlot)); err != nil {
		t.Errorf("sweep plot: %v", err)
	}
	for _, bad := range []SweepConfig{{Base: cfg, Param: "alpha", Values: values}, {Base: cfg}, {Base: cfg, Values: []float64{1.5}}} {
		if _, err := Sweep(context.Background(), bad, quiet()); err == nil {
			t.Errorf("Sweep(%s %v) succeeded, want a configuration error", bad.Param, bad.Values)
		}
	}
}

func TestMain(m *testing.M) {
	if log := os.Getenv("TRAINER_FAKE_PLANNER"); log != "" {
		os.Exit(fakePlanner(log, os.Args[1:]))
	}
	// Small plots: rasterising under -race takes seconds per plot.
	reportOptions.DPI = 30
	os.Exit(m.Run())
}
