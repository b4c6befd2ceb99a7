package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/qlearn"
)

// An evaluation with an override (-world-seed) goes to its own directory
// and leaves the plain one as it was; both record every resolved parameter
// in summary.json and in each results row, and config.json holds SAMem's
// alpha, gamma and thresholds as used.
func TestEvalRecordsAndDirectories(t *testing.T) {
	ctx := context.Background()
	cfg := smallConfig(t, "samem")
	if _, err := Train(ctx, cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	saved, err := LoadConfig(cfg.Run)
	if err != nil {
		t.Fatal(err)
	}
	if s := saved.SAMem; s.Alpha != qlearn.DefaultAlpha || s.Gamma != qlearn.DefaultGamma || s.Threshold != 0.85 || s.ThoughtThreshold != 0.85 || s.Eps0 == 0 || s.Beta == 0 {
		t.Errorf("config.json samem = %+v, want the values used (alpha %v, gamma %v, thresholds 0.85)", s, qlearn.DefaultAlpha, qlearn.DefaultGamma)
	}
	ev := saved
	ev.Methods, ev.Split, ev.Tasks, ev.Workers = []string{"samem"}, "valid_unseen", 6, 1
	if _, err := Eval(ctx, ev, quiet()); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(cfg.Run, "eval", "valid_unseen-tasks=6")
	before, err := os.ReadFile(filepath.Join(plain, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	ev7 := ev
	ev7.Env.WorldSeed = 7
	if _, err := Eval(ctx, ev7, quiet()); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(plain, SummaryFile))
	if err != nil || string(after) != string(before) {
		t.Errorf("the -world-seed 7 evaluation changed %s (err %v)", plain, err)
	}
	dir7 := filepath.Join(cfg.Run, "eval", "valid_unseen-tasks=6-world-seed=7")
	for _, name := range []string{"valid_unseen-tasks=6", "valid_unseen-tasks=6-world-seed=7"} {
		if _, err := os.Stat(filepath.Join(cfg.Run, ReportDir, name, "report.md")); err != nil {
			t.Errorf("no report of evaluation %s: %v", name, err)
		}
	}
	var res []EvalResult
	if err := readJSON(filepath.Join(dir7, SummaryFile), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !slices.Equal(res[0].Overrides, []string{"tasks=6", "world-seed=7"}) || res[0].Config == nil ||
		res[0].Config.Env.WorldSeed != 7 || res[0].Config.SAMem.Alpha != qlearn.DefaultAlpha || res[0].Config.Env.MaxSteps != 50 {
		t.Fatalf("summary.json record = %+v, want overrides [tasks=6 world-seed=7] and the resolved configuration", res)
	}
	rows, err := checkpoints.ReadFile[EpisodeRow](ctx, filepath.Join(dir7, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	for _, r := range rows {
		if r.MaxSteps != 50 || r.Overrides != "tasks=6 world-seed=7" || r.ConfigJSON != res[0].Config.JSON() {
			t.Fatalf("row record = %d %q %.60q..., want 50, the overrides and the configuration", r.MaxSteps, r.Overrides, r.ConfigJSON)
		}
	}
}

func TestEvalOverrides(t *testing.T) {
	base := Defaults()
	same := base
	same.Env.Grammar, same.SAMem.Alpha = "0.3", qlearn.DefaultAlpha // defaults named: no override
	same.Workers, same.Run = 7, "elsewhere"                         // where and how fast: no override
	if got := EvalOverrides(base, same); len(got) != 0 {
		t.Errorf("EvalOverrides = %v, want none", got)
	}
	other := base
	other.Env.Grammar, other.Seed, other.LLM.Temperature = "0.4", 3, 0.7
	want := []string{"grammar=0.4", "seed=3", "temperature=0.7"}
	if got := EvalOverrides(base, other); !slices.Equal(got, want) {
		t.Errorf("EvalOverrides = %v, want %v", got, want)
	}
	if got := EvalName("valid_unseen", want); got != "valid_unseen-grammar=0.4-seed=3-temperature=0.7" {
		t.Errorf("EvalName = %q", got)
	}
	if got := EvalName("test", []string{"game=../x/y z.z8"}); got != "test-game=.._x_y_z.z8" {
		t.Errorf("EvalName with a path = %q", got)
	}
	// Each override is named by the flag that sets it, which the table of
	// settings holds (not a guess from the JSON key: "trials", "carry" and
	// "eval-per-type" named no flag).
	named := base
	named.CLIN.Trials, named.AriGraph.Carry, named.EvalPerType, named.KGPlan.NoLifelong = 3, true, 2, true
	named.SAMem.Threshold, named.Ablation = 0.9, AblationNoQ
	named.LLM.Timeout, named.LLM.Cache, named.LLM.Concurrency, named.ProgressEvery = time.Minute, "off", 3, time.Second
	want = []string{"ablation=no-q", "arigraph-carry=true", "clin-trials=3", "kgplan-no-lifelong=true", "per-type=2", "threshold=0.9"}
	if got := EvalOverrides(base, named); !slices.Equal(got, want) {
		t.Errorf("EvalOverrides = %v, want %v", got, want)
	}
	for _, o := range want {
		flag, _, _ := strings.Cut(o, "=")
		if _, ok := LookupSetting(CmdEval, flag); !ok {
			t.Errorf("override %s: eval has no flag -%s", o, flag)
		}
	}
}

// Evaluating another method with the same settings adds it beside the
// earlier one; an earlier directory that cannot be read is moved aside.
func TestEvalKeepsEarlierMethods(t *testing.T) {
	ctx := context.Background()
	cfg := smallConfig(t, "samem")
	if _, err := Train(ctx, cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	ev, err := LoadConfig(cfg.Run)
	if err != nil {
		t.Fatal(err)
	}
	ev.Split, ev.Workers = "valid_unseen", 1
	for _, m := range []string{"samem", "nomemory"} {
		ev.Methods = []string{m}
		if _, err := Eval(ctx, ev, quiet()); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(cfg.Run, "eval", "valid_unseen")
	var res []EvalResult
	if err := readJSON(filepath.Join(dir, SummaryFile), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Method != "samem" || res[1].Method != "nomemory" {
		t.Fatalf("summary.json holds %d results, want samem then nomemory", len(res))
	}
	rows, err := checkpoints.ReadFile[EpisodeRow](ctx, filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range rows {
		count[r.Method]++
	}
	if count["samem"] != 12 || count["nomemory"] != 12 {
		t.Errorf("rows per method %v, want 12 each", count)
	}
	traj, err := os.ReadFile(filepath.Join(dir, TrajectoriesFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(traj), `{"method":"samem"`); n != 12 {
		t.Errorf("%d samem trajectories kept, want 12", n)
	}
	// A results file the current format cannot read: moved aside, kept.
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	ev.Methods = []string{"samem"}
	if _, err := Eval(ctx, ev, quiet()); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(filepath.Join(dir+".earlier-1", ResultsFile))
	if err != nil || string(old) != "not parquet" {
		t.Errorf("earlier directory not kept aside: %q, %v", old, err)
	}
}
