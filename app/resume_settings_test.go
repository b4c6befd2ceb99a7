package app

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResumeRefusesOtherResults trains a run of samem and clin to its end,
// then trains it again with one setting changed, for each kind of setting
// that changes what is learned (learning, clustering, forgetting,
// schedule, method, environment, model): each is refused before anything
// is written with a *ResumeError (ErrConfig, exit code 2) naming the flag
// with the run's value and the new one, and saying what to do; not one
// file of the run changes. A setting that only changes how the run
// executes, or that concerns a method the run has not trained, is
// accepted, and a finished run resumed that way trains nothing and leaves
// config.json as it was, byte for byte.
func TestResumeRefusesOtherResults(t *testing.T) {
	base := smallConfig(t, "samem", "clin")
	base.Workers, base.Iterations, base.PerType, base.Tasks = 1, 1, 1, 0
	base.Env.MaxSteps = 6
	if _, err := Train(context.Background(), base, quiet()); err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		kind     string
		edit     func(*Config)
		flag     string
		old, new string
	}{
		{"learning", func(c *Config) { c.SAMem.Alpha = 0.5 }, "alpha", "0.05", "0.5"},
		{"clustering", func(c *Config) { c.SAMem.Threshold = 0.9 }, "threshold", "0.85", "0.9"},
		{"forgetting", func(c *Config) { c.SAMem.NoForgetting = true }, "no-forgetting", "false", "true"},
		{"schedule: iterations", func(c *Config) { c.Iterations = 2 }, "iterations", "1", "2"},
		{"schedule: per type", func(c *Config) { c.PerType = 2 }, "per-type", "1", "2"},
		{"schedule: task order", func(c *Config) { c.TaskOrder = TaskOrderSuite }, "task-order", "shuffled", "suite"},
		{"schedule: epsilon", func(c *Config) { c.SAMem.Schedule = "episode" }, "schedule", "budget", "episode"},
		{"method: ablation", func(c *Config) { c.Ablation = AblationNoQ }, "ablation", `""`, "no-q"},
		{"method: clin", func(c *Config) { c.CLIN.Trials = 3 }, "clin-trials", "5", "3"},
		{"method: thinker", func(c *Config) { c.Thinker.OneCall = true }, "one-call", "false", "true"},
		{"environment: world", func(c *Config) { c.Env.WorldSeed = 2 }, "world-seed", "1", "2"},
		{"environment: grammar", func(c *Config) { c.Env.Grammar = Grammar04 }, "grammar", "0.3", "0.4"},
		{"environment: steps", func(c *Config) { c.Env.MaxSteps = 10 }, "max-steps", "6", "10"},
		{"seed", func(c *Config) { c.Seed = 9 }, "seed", "1", "9"},
		{"model: temperature", func(c *Config) { c.LLM.Temperature = 0.7 }, "temperature", "0", "0.7"},
		{"model: embeddings", func(c *Config) { c.LLM.EmbedDim = 32 }, "embed-dim", "64", "32"},
	}
	for _, tc := range refused {
		t.Run(tc.kind, func(t *testing.T) {
			cfg := base
			cfg.Run = copyRun(t, base.Run)
			tc.edit(&cfg)
			before := treeSums(t, cfg.Run)
			_, err := Train(context.Background(), cfg, quiet())
			var re *ResumeError
			if !errors.As(err, &re) || !errors.Is(err, ErrConfig) {
				t.Fatalf("Train with -%s %s: %v, want a *ResumeError", tc.flag, tc.new, err)
			}
			line := "-" + tc.flag + ": " + tc.old + " in the run, " + tc.new + " now"
			if len(re.Differences) != 1 || !strings.Contains(err.Error(), line) {
				t.Errorf("error %q: want exactly the line %q", err, line)
			}
			if !strings.Contains(err.Error(), "new run directory") || !strings.Contains(err.Error(), "-"+tc.flag) {
				t.Errorf("error %q does not say what to do", err)
			}
			if after := treeSums(t, cfg.Run); !equalSums(before, after) {
				t.Errorf("the refused train changed the run directory")
			}
		})
	}
	accepted := []struct {
		kind string
		edit func(*Config)
	}{
		{"execution: workers", func(c *Config) { c.Workers = 3 }},
		{"execution: progress", func(c *Config) { c.ProgressEvery = time.Second }},
		{"execution: timeout and retries", func(c *Config) { c.LLM.Timeout, c.LLM.Retries = time.Minute, 1 }},
		{"execution: concurrency", func(c *Config) { c.LLM.Concurrency = 2 }},
		{"execution: cache path", func(c *Config) { c.LLM.Cache = "off" }},
		{"a method the run has not trained", func(c *Config) { c.AriGraph.Carry, c.KGPlan.NoLifelong = true, true }},
		{"defaults named", func(c *Config) { c.SAMem.Alpha, c.Env.Grammar, c.CLIN.Trials = 0.05, Grammar03, 5 }},
	}
	for _, tc := range accepted {
		t.Run(tc.kind, func(t *testing.T) {
			cfg := base
			cfg.Run = copyRun(t, base.Run)
			tc.edit(&cfg)
			want, err := os.ReadFile(filepath.Join(cfg.Run, ConfigFile))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Train(context.Background(), cfg, quiet())
			if err != nil {
				t.Fatalf("Train: %v", err)
			}
			for _, r := range res {
				if r.Checkpoint != r.ResumedFrom {
					t.Errorf("%s trained again (%s, resumed from %s)", r.Method, r.Checkpoint, r.ResumedFrom)
				}
			}
			if got, _ := os.ReadFile(filepath.Join(cfg.Run, ConfigFile)); string(got) != string(want) {
				t.Errorf("a resume that trained nothing rewrote %s:\n%s\nwas:\n%s", ConfigFile, got, want)
			}
		})
	}
}

// TestResumeRecordsAddedMethod: a method trained into a run beside the
// earlier ones keeps them in config.json's methods, and settings of the
// new method may be chosen then (no memory of it existed).
func TestResumeRecordsAddedMethod(t *testing.T) {
	cfg := smallConfig(t, "samem")
	cfg.Workers, cfg.Iterations, cfg.PerType, cfg.Tasks = 1, 1, 1, 0
	if _, err := Train(context.Background(), cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	cfg.Methods, cfg.CLIN.Trials = []string{"clin"}, 2
	if _, err := Train(context.Background(), cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	saved, err := LoadConfig(cfg.Run)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(saved.Methods, ",") != "samem,clin" || saved.CLIN.Trials != 2 {
		t.Errorf("config.json: methods %v, clin trials %d; want samem,clin and 2", saved.Methods, saved.CLIN.Trials)
	}
	cfg.CLIN.Trials = 4
	if _, err := Train(context.Background(), cfg, quiet()); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "-clin-trials: 2 in the run, 4 now") {
		t.Errorf("clin trained, then other -clin-trials: %v, want it refused", err)
	}
}

// copyRun copies a run directory into a new temporary one.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// treeSums maps every file under root to its SHA-256.
func treeSums(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = sha256.Sum256(b)
		return nil
	})
	return out
}

func equalSums(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
