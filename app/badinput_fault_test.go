package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
)

// TestBadConfigurationRefused: malformed or contradictory configurations,
// unknown methods and environments, a missing game file: app.Train refuses
// each with ErrConfig naming the flag and the problem, before it creates
// or writes anything.
func TestBadConfigurationRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*app.Config)
		want string
	}{
		{"workers", func(c *app.Config) { c.Workers = 0 }, "-workers: 0: need at least 1"},
		{"iterations", func(c *app.Config) { c.Iterations = -3 }, "-iterations: -3"},
		{"per-type", func(c *app.Config) { c.PerType = -2 }, "-per-type: -2: must not be negative"},
		{"unknown method", func(c *app.Config) { c.Methods = []string{"samem", "telepathy"} }, `-method: unknown method "telepathy"`},
		{"no method", func(c *app.Config) { c.Methods = nil }, "-method: no method given"},
		{"unknown env", func(c *app.Config) { c.Env.Kind = "minecraft" }, `-env: unknown environment "minecraft"`},
		{"missing game", func(c *app.Config) { c.Env.Kind, c.Env.Game = "zmachine", "/nonexistent/zork1.z5" }, "-game: stat /nonexistent/zork1.z5: no such file"},
		{"zmachine without game", func(c *app.Config) { c.Env.Kind = "zmachine" }, "-game: -env zmachine needs a story file"},
		{"unknown interpreter", func(c *app.Config) { c.Env.Kind, c.Env.Game, c.Env.Interpreter = "zmachine", ".", "frotz9" }, `-interpreter: "frotz9": want zvm`},
		{"valid actions with dfrotz", func(c *app.Config) {
			c.Env.Kind, c.Env.Game, c.Env.Interpreter, c.Env.ValidActions = "zmachine", ".", "dfrotz", true
		}, "-valid-actions: needs the in-process interpreter"},
		{"jsonl without command", func(c *app.Config) { c.Env.Kind = "jsonl" }, "-env-cmd: -env jsonl needs the command"},
		{"agentgym without url", func(c *app.Config) { c.Env.Kind = "agentgym" }, "-agentgym: -env agentgym needs the server URL"},
		{"grammar", func(c *app.Config) { c.Env.Grammar = "0.5" }, `-grammar: "0.5": want 0.3 or 0.4`},
		{"max-steps", func(c *app.Config) { c.Env.MaxSteps = -1 }, "-max-steps: -1"},
		{"unknown backend", func(c *app.Config) { c.LLM.Backend = "gpt" }, `-llm: unknown backend "gpt"`},
		{"openai without model", func(c *app.Config) { c.LLM.Backend = "openai" }, "-chat-model: -llm openai needs a chat model"},
		{"openai without embedder", func(c *app.Config) { c.LLM.Backend, c.LLM.ChatModel = "openai", "m" }, "-embed-model: -llm openai needs an embedding model"},
		{"replay without cache", func(c *app.Config) {
			c.LLM.Backend, c.LLM.ChatModel, c.LLM.EmbedModel, c.LLM.Cache = "replay", "m", "e", "off"
		}, "-cache: -llm replay answers from the cache; it cannot be off"},
		{"embed-dim", func(c *app.Config) { c.LLM.EmbedDim = -1 }, "-embed-dim: -1: must not be negative"},
		{"temperature", func(c *app.Config) { c.LLM.Temperature = 2.5 }, "-temperature: 2.5: want 0 to 2"},
		{"task order", func(c *app.Config) { c.TaskOrder = "random" }, `-task-order: "random": want shuffled or suite`},
		{"ablation", func(c *app.Config) { c.Ablation = "no-brain" }, `-ablation: unknown ablation "no-brain"`},
		{"threshold", func(c *app.Config) { c.SAMem.Threshold = 1.5 }, "-threshold: 1.5: want a cosine similarity in [0, 1]"},
		{"thought-threshold", func(c *app.Config) { c.SAMem.ThoughtThreshold = -0.1 }, "-thought-threshold: -0.1"},
		{"alpha", func(c *app.Config) { c.SAMem.Alpha = 2 }, "-alpha: 2"},
		{"schedule", func(c *app.Config) { c.SAMem.Schedule = "hourly" }, "-schedule: \"hourly\""},
		{"empty run", func(c *app.Config) { c.Run = " " }, "-run: the run directory must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := app.Defaults()
			run := filepath.Join(t.TempDir(), "run")
			cfg.Run = run
			tc.mod(&cfg)
			_, err := app.Train(context.Background(), cfg, streams(new(bytes.Buffer)))
			if !errors.Is(err, app.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Train error %v: want ErrConfig saying %q", err, tc.want)
			}
			if _, err := os.Stat(run); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused configuration created the run directory (%v)", err)
			}
		})
	}
}

func treeHashes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".lock" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := sha256.Sum256(b)
		rel, _ := filepath.Rel(root, p)
		out[rel] = hex.EncodeToString(s[:])
		return nil
	})
	return out
}

// TestDamagedCheckpointRefused damages the latest checkpoint of a finished
// run in the ways disks and people do (truncated, one bit flipped, another
// format version, made with another embedder or dimension) and trains
// again with the run's settings (another dimension: with its own): each is
// refused with an error naming the file (or the setting) and the problem,
// and no file of the run is overwritten, removed or added.
func TestDamagedCheckpointRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: trains a run, then again over each of five damaged checkpoints (runs without -short)")
	}
	latest := func(run string) string {
		b, err := os.ReadFile(filepath.Join(run, "samem", "checkpoints", checkpoints.LatestFile))
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(run, "samem", "checkpoints", strings.TrimSpace(string(b)))
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, ckpt string, cfg *app.Config) string // returns the file the error must name
		kind   error
		want   string
	}{
		{"truncated", func(t *testing.T, ckpt string, _ *app.Config) string {
			p := filepath.Join(ckpt, "samem", checkpoints.QTableFile)
			st, _ := os.Stat(p)
			if err := os.Truncate(p, st.Size()/2); err != nil {
				t.Fatal(err)
			}
			return p
		}, checkpoints.ErrCorrupt, "bytes, manifest says"},
		{"bit flipped", func(t *testing.T, ckpt string, _ *app.Config) string {
			p := filepath.Join(ckpt, "samem", checkpoints.StatesFile)
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0x10
			os.WriteFile(p, b, 0o644)
			return p
		}, checkpoints.ErrCorrupt, "SHA-256"},
		{"format version", func(t *testing.T, ckpt string, _ *app.Config) string {
			p := filepath.Join(ckpt, checkpoints.ManifestFile)
			b, _ := os.ReadFile(p)
			b = regexp.MustCompile(`"format_version": *\d+`).ReplaceAll(b, []byte(`"format_version": 99`))
			os.WriteFile(p, b, 0o644)
			return p
		}, checkpoints.ErrFormatVersion, "version 99"},
		{"other dimension", func(t *testing.T, _ string, cfg *app.Config) string {
			cfg.LLM.EmbedDim = 32
			return "-embed-dim: 1024 in the run, 32 now"
		}, app.ErrConfig, "-embed-dim 1024"},
		{"other dimension, no config.json", func(t *testing.T, _ string, cfg *app.Config) string {
			// Without the run's record, the checkpoint's own metadata
			// still refuses another embedder.
			if err := os.Remove(filepath.Join(cfg.Run, app.ConfigFile)); err != nil {
				t.Fatal(err)
			}
			cfg.LLM.EmbedDim = 32
			return ""
		}, checkpoints.ErrIncompatible, "32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := app.Defaults()
			cfg.Run = t.TempDir()
			cfg.Workers, cfg.Iterations, cfg.PerType, cfg.Env.MaxSteps = 1, 2, 1, 5
			if _, err := app.Train(context.Background(), cfg, streams(new(bytes.Buffer))); err != nil {
				t.Fatal(err)
			}
			file := tc.damage(t, latest(cfg.Run), &cfg)
			before := treeHashes(t, cfg.Run)
			_, err := app.Train(context.Background(), cfg, streams(new(bytes.Buffer)))
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), file) {
				t.Errorf("Train on a checkpoint %s: %v; want %v naming %q and saying %q", tc.name, err, tc.kind, file, tc.want)
			}
			after := treeHashes(t, cfg.Run)
			for p, h := range before {
				if after[p] != h {
					t.Errorf("%s was overwritten or removed", p)
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok {
					t.Errorf("%s was created", p)
				}
			}
		})
	}
}
