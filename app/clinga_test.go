package app

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/clin"
)

// TestCLINGAEvalRecords: clin-ga (seed 004 G+A) through Train and Eval:
// its rates are over tasks, not trials; its first trials are plain clin's
// (GEN-ENV) evaluation; results.parquet has a row per trial with exactly
// one final row per task; trajectories.jsonl marks the other trials
// superseded; the resolved configuration records the trial count.
func TestCLINGAEvalRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: trains and evaluates clin-ga (runs without -short)")
	}
	cfg := smallConfig(t, "clin", CLINGAName)
	ctx := context.Background()
	if _, err := Train(ctx, cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	res, err := Eval(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	var plain, ga EvalResult
	for _, r := range res {
		switch r.Method {
		case "clin":
			plain = r
		case CLINGAName:
			ga = r
		}
	}
	if plain.Adapt != nil || ga.Adapt == nil {
		t.Fatalf("adapt: clin %+v, clin-ga %+v; want only clin-ga's", plain.Adapt, ga.Adapt)
	}
	a := ga.Adapt
	if ga.Tasks != cfg.Tasks || a.FirstTrial.Tasks != cfg.Tasks || a.MaxTrials != clin.DefaultTrials {
		t.Errorf("clin-ga: %d tasks, %d first trials, at most %d trials; want %d, %d, %d", ga.Tasks, a.FirstTrial.Tasks, a.MaxTrials, cfg.Tasks, cfg.Tasks, clin.DefaultTrials)
	}
	if a.FirstTrial.Completed != plain.Completed || a.FirstTrial.SuccessRate != plain.SuccessRate || a.FirstTrial.AvgSteps != plain.AvgSteps {
		t.Errorf("clin-ga first trials: success %.3f, %.1f steps; clin (GEN-ENV) %.3f, %.1f: want equal", a.FirstTrial.SuccessRate, a.FirstTrial.AvgSteps, plain.SuccessRate, plain.AvgSteps)
	}
	if a.Episodes <= ga.Tasks {
		t.Fatalf("clin-ga played %d trials for %d tasks: no retry to measure", a.Episodes, ga.Tasks)
	}
	if ga.SuccessRate < a.FirstTrial.SuccessRate {
		t.Errorf("clin-ga success %.3f below its first trials' %.3f: the result of a task is its best trial", ga.SuccessRate, a.FirstTrial.SuccessRate)
	}
	t.Logf("clin %.3f; clin-ga first trial %.3f, after adaptation %.3f, %.2f trials per task", plain.SuccessRate, a.FirstTrial.SuccessRate, ga.SuccessRate, a.AvgTrials)
	if ga.Config == nil || ga.Config.CLIN.Trials != clin.DefaultTrials {
		t.Errorf("recorded configuration %+v: want clin trials %d", ga.Config, clin.DefaultTrials)
	}

	dir, _, err := EvalDir(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := checkpoints.ReadFile[EpisodeRow](ctx, filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	n, final, won := 0, 0, 0
	for _, r := range rows {
		if r.Method != CLINGAName {
			if r.Trial != 0 || !r.Final {
				t.Errorf("%s row trial %d final %v: want 0 and final", r.Method, r.Trial, r.Final)
			}
			continue
		}
		n++
		if r.Final {
			final++
			if r.Won {
				won++
			}
		}
	}
	if n != a.Episodes || final != ga.Tasks || float64(won)/float64(final) != ga.SuccessRate {
		t.Errorf("clin-ga rows: %d (want %d trials), %d final (want %d), %d final won (success %.3f)", n, a.Episodes, final, ga.Tasks, won, ga.SuccessRate)
	}
	f, err := os.Open(filepath.Join(dir, TrajectoriesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sup := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l struct {
			Method     string `json:"method"`
			Superseded bool   `json:"superseded"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Superseded {
			if l.Method != CLINGAName {
				t.Errorf("%s trajectory marked superseded", l.Method)
			}
			sup++
		}
	}
	if sup != a.Episodes-ga.Tasks {
		t.Errorf("%d superseded trajectories, want %d", sup, a.Episodes-ga.Tasks)
	}
}
