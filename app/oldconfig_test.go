package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/samem"
)

// TestOldConfigLoads: config.json files written by an earlier version
// (testdata/run-e32b7d1-*, by commit e32b7d1's train, before the methods'
// Configs were embedded: clin, kgplan and arigraph had mirror types of
// their own) load, validate, and describe the same settings as the flags
// that made them, so that such a run resumes with its own flags and its
// evaluations keep their names.
func TestOldConfigLoads(t *testing.T) {
	defaults := Defaults()
	defaults.Workers, defaults.Iterations, defaults.PerType = 2, 2, 1
	defaults.Methods = []string{"samem", "clin", "arigraph", "kgplan", "memstream"}
	// The schedule these runs were made with is today's -schedule step;
	// their memory stream carried over training: today's -memstream-carry.
	// (They ran offline, where the summariser's history bound applies to
	// nothing.)
	defaults.SAMem.Schedule = samem.ScheduleStep
	defaults.MemStream.Carry = true

	// -workers 1 -iterations 1 -per-type 1 -method samem,clin -clin-trials 3
	// -clin-meta-first-trial -arigraph-carry -arigraph-no-episodic
	// -kgplan-no-lifelong -one-call -ablation no-q -temperature 0.5
	// -grammar 0.4 -task-order suite -threshold 0.9 -alpha 0.1 -schedule
	// episode -max-steps 7 -world-seed 3 -seed 4 -tie-margin 0.1
	// -retry-zero -forget-drop-zero -task-progress -no-forgetting
	flags := Defaults()
	flags.Workers, flags.Iterations, flags.PerType, flags.Methods = 1, 1, 1, []string{"samem", "clin"}
	flags.CLIN.Trials, flags.CLIN.MetaFirstTrial = 3, true
	flags.AriGraph.Carry, flags.AriGraph.NoEpisodic = true, true
	flags.KGPlan.NoLifelong, flags.Thinker.OneCall, flags.Ablation = true, true, AblationNoQ
	flags.LLM.Temperature, flags.Env.Grammar, flags.TaskOrder = 0.5, Grammar04, TaskOrderSuite
	flags.SAMem.Threshold, flags.SAMem.Alpha, flags.SAMem.Schedule = 0.9, 0.1, "episode"
	flags.Env.MaxSteps, flags.Env.WorldSeed, flags.Seed = 7, 3, 4
	flags.SAMem.TieMargin, flags.SAMem.RetryZero, flags.SAMem.ForgetDropZero = 0.1, true, true
	flags.SAMem.TaskProgress, flags.SAMem.NoForgetting = true, true
	flags.MemStream.Carry = true

	for _, tc := range []struct {
		dir string
		cfg Config
	}{
		{"run-e32b7d1-defaults", defaults},
		{"run-e32b7d1-flags", flags},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", tc.dir)
			old, err := LoadConfig(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := old.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			tc.cfg.Run = old.Run
			every := []string{"samem", "clin", "arigraph", "kgplan", "memstream"}
			if err := CheckResume(dir, old, tc.cfg, every); err != nil {
				t.Errorf("the flags that made it are refused: %v", err)
			}
			if o := EvalOverrides(old, tc.cfg); len(o) != 0 {
				t.Errorf("the flags that made it are overrides %v", o)
			}
			// Resolving the old record changes no setting it holds.
			if d := differences(old, old.Resolved(), func(Setting) bool { return true }); len(d) != 0 {
				t.Errorf("resolved differently: %v", d)
			}
		})
	}
}

// TestLegacyDefaults: a config.json written before the memory stream's
// scope and the summariser's history became settings (no version, a
// schedule other than budget) reads as the run was made: one stream
// carried over training and a 30-step summariser history. Training it
// further with today's defaults is refused, naming both settings and the
// flags that keep them; its evaluation takes them from the run. A record
// with a version, or written with the budget schedule, is read as written.
func TestLegacyDefaults(t *testing.T) {
	write := func(t *testing.T, body string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	old := write(t, `{"run": "r", "methods": ["samem", "memstream"], "seed": 1, "workers": 1, "iterations": 1, "per_type": 1,
		"env": {"kind": "household", "world_seed": 1}, "llm": {"backend": "openai", "chat_model": "m", "embed_model": "e", "embed_dim": 64},
		"samem": {"schedule": "step"}, "memstream": {}}`)
	c, err := LoadConfig(old)
	if err != nil {
		t.Fatal(err)
	}
	if !c.MemStream.Carry || c.SAMem.SummaryHistory != LegacySummaryHistory {
		t.Errorf("old record: carry %v, summary history %d; want true and %d", c.MemStream.Carry, c.SAMem.SummaryHistory, LegacySummaryHistory)
	}
	now := Defaults()
	now.Run, now.Methods, now.Workers, now.Iterations, now.PerType = old, c.Methods, 1, 1, 1
	now.LLM, now.SAMem.Schedule = c.LLM, samem.ScheduleStep
	err = CheckResume(old, c, now, c.Methods)
	for _, want := range []string{"-memstream-carry: true in the run, false now", "-summary-history: 30 in the run, 0 now"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("resume with today's defaults: %v; want it refused saying %q", err, want)
		}
	}
	if o := EvalOverrides(c, c); len(o) != 0 {
		t.Errorf("evaluating with the run's own settings: overrides %v", o)
	}
	// An old run with an explicit bound keeps it.
	kept := write(t, `{"run": "r", "llm": {"backend": "openai"}, "samem": {"schedule": "episode", "summary_history": 12}}`)
	if c, err := LoadConfig(kept); err != nil || c.SAMem.SummaryHistory != 12 {
		t.Errorf("old record with a bound: %d, %v; want 12", c.SAMem.SummaryHistory, err)
	}
	// An old offline run's summariser read no history: nothing to keep.
	off := write(t, `{"run": "r", "llm": {"backend": "offline"}, "samem": {"schedule": "step"}}`)
	if c, err := LoadConfig(off); err != nil || c.SAMem.SummaryHistory != 0 || !c.MemStream.Carry {
		t.Errorf("old offline record: summary history %d, carry %v, %v; want 0 and true", c.SAMem.SummaryHistory, c.MemStream.Carry, err)
	}
	for name, body := range map[string]string{
		"versioned":       `{"version": 1, "run": "r", "llm": {"backend": "openai"}, "samem": {"schedule": "step"}}`,
		"budget schedule": `{"run": "r", "llm": {"backend": "openai"}, "samem": {"schedule": "budget"}}`,
	} {
		c, err := LoadConfig(write(t, body))
		if err != nil {
			t.Fatal(err)
		}
		if c.MemStream.Carry || c.SAMem.SummaryHistory != 0 {
			t.Errorf("%s record: carry %v, summary history %d; want them as written (false, 0)", name, c.MemStream.Carry, c.SAMem.SummaryHistory)
		}
	}
	// What Resolved records has today's version: it is never read as old.
	if r := Defaults().Resolved(); r.Version != ConfigVersion {
		t.Errorf("resolved version %d, want %d", r.Version, ConfigVersion)
	}
}
