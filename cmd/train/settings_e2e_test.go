package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
)

// TestResumeWithOtherSettingsRefused: after a finished run, `train -run R
// -alpha 0.5` exits 2 before anything is written, naming alpha with the
// run's 0.05 and the new 0.5 and what to do, and config.json is unchanged
// byte for byte; the same command with another -workers only resumes.
func TestResumeWithOtherSettingsRefused(t *testing.T) {
	train := binary(t, "train")
	run := filepath.Join(t.TempDir(), "run")
	args := []string{"-run", run, "-iterations", "1", "-per-type", "1", "-max-steps", "5", "-workers", "2"}
	if out, err := exec.Command(train, args...).CombinedOutput(); err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	cfgPath := filepath.Join(run, app.ConfigFile)
	before, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	before2 := hashes(t, run)
	out, err := exec.Command(train, append(args, "-alpha", "0.5")...).CombinedOutput()
	if code := exitCode(err); code != 2 {
		t.Fatalf("train -alpha 0.5 on a finished run: exit %d, want 2\n%s", code, out)
	}
	for _, want := range []string{"-alpha: 0.05 in the run, 0.5 now", "new run directory", "-alpha 0.05"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output does not say %q:\n%s", want, out)
		}
	}
	if after, _ := os.ReadFile(cfgPath); string(after) != string(before) {
		t.Errorf("config.json changed:\n%s", after)
	}
	for p, h := range hashes(t, run) {
		if before2[p] != h {
			t.Errorf("%s changed or was created", p)
		}
	}
	out, err = exec.Command(train, append(args[:len(args)-1], "1")...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "resumed from") {
		t.Errorf("train with another -workers: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(cfgPath); string(after) != string(before) {
		t.Errorf("a resume that trained nothing rewrote config.json:\n%s", after)
	}
}

// TestMistypedFlagOneLine: a mistyped flag prints one line naming it and
// the closest flag, and how to get the full help (exit 2), not the usage.
func TestMistypedFlagOneLine(t *testing.T) {
	out, err := exec.Command(binary(t, "train"), "-alpah", "0.5").CombinedOutput()
	if code := exitCode(err); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	want := "train: unknown flag -alpah (did you mean -alpha?); 'train -h' lists every flag\n"
	if string(out) != want {
		t.Errorf("printed %q, want %q", out, want)
	}
}

// TestExperimentFileTrains: a run configured by an experiment file (with a
// flag overriding one of its settings) records the file's settings.
func TestExperimentFileTrains(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	exp := filepath.Join(dir, "exp.toml")
	text := "run = \"" + run + "\"\nmethod = [\"samem\"]\niterations = 1\nper-type = 1\nmax-steps = 5\nalpha = 0.2\nthreshold = 0.9\nworkers = 2\n"
	if err := os.WriteFile(exp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(binary(t, "train"), "-config", exp, "-threshold", "0.8").CombinedOutput(); err != nil {
		t.Fatalf("train -config: %v\n%s", err, out)
	}
	cfg, err := app.LoadConfig(run)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SAMem.Alpha != 0.2 || cfg.SAMem.Threshold != 0.8 || cfg.Iterations != 1 || cfg.Env.MaxSteps != 5 {
		t.Errorf("recorded alpha %v, threshold %v, iterations %d, max steps %d; want 0.2, 0.8 (the flag), 1, 5",
			cfg.SAMem.Alpha, cfg.SAMem.Threshold, cfg.Iterations, cfg.Env.MaxSteps)
	}
}

// hashes maps each file under root to the SHA-256 of its bytes.
func hashes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
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
