package app

import (
	"path/filepath"
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
	// The schedule these runs were made with is today's -schedule step.
	defaults.SAMem.Schedule = samem.ScheduleStep

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
