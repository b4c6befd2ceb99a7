package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/checkpoints"
)

// summary.json of a household evaluation holds the memory-use metrics of
// every method; a memory that is empty (SAMem trained one iteration with
// -forget-drop-zero: every all-zero row and column removed, nothing left)
// guides no step; the tidy table and metrics.jsonl are written.
func TestMemoryUseInSummary(t *testing.T) {
	ctx := context.Background()
	cfg := smallConfig(t, "samem", "memstream")
	cfg.Iterations, cfg.PerType = 1, 1
	cfg.SAMem.ForgetDropZero = true
	// One stream over training, so that memstream evaluates with a saved
	// memory (by default each episode starts empty).
	cfg.MemStream.Carry = true
	if _, err := Train(ctx, cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	ev := cfg
	ev.Methods, ev.Tasks = []string{"samem", "memstream", "nomemory"}, 6
	res, err := Eval(ctx, ev, quiet())
	if err != nil {
		t.Fatal(err)
	}
	dir, _, _ := EvalDir(ev)
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 3 {
		t.Fatalf("%d results", len(raw))
	}
	for _, r := range raw {
		var use map[string]json.RawMessage
		if err := json.Unmarshal(r["memory_use"], &use); err != nil {
			t.Fatalf("%s: memory_use: %v", r["method"], err)
		}
		for _, k := range []string{"guided_share", "guided_steps", "steps", "invalid_action_rate", "progress_rate", "score_share", "tokens_per_success", "tokens_build", "tokens_use", "tokens_training"} {
			if _, ok := use[k]; !ok {
				t.Errorf("%s: memory_use has no %s", r["method"], k)
			}
		}
	}
	by := map[string]EvalResult{}
	for _, r := range res {
		by[r.Method] = r
	}
	sam := by["samem"]
	if sam.Memory["entries"] != 0 || sam.Memory["states"] != 0 {
		t.Fatalf("samem's memory is not empty: %v", sam.Memory)
	}
	if u := sam.MemoryUse; u.GuidedShare != 0 || u.GuidedSteps != 0 || u.Steps == 0 {
		t.Errorf("empty samem memory: guided %d of %d steps (share %v), want 0 of some", u.GuidedSteps, u.Steps, u.GuidedShare)
	}
	if u := by["nomemory"].MemoryUse; u.GuidedShare != 0 {
		t.Errorf("nomemory guided share %v", u.GuidedShare)
	}
	if u := by["memstream"].MemoryUse; by["memstream"].Memory["memories"] == 0 || u.GuidedShare <= 0 {
		t.Errorf("memstream with %v: guided share %v, want > 0", by["memstream"].Memory, u.GuidedShare)
	}
	for _, r := range res {
		u := r.MemoryUse
		if u.InvalidRate == nil || u.ProgressRate == nil || *u.ProgressRate < 0 || *u.ProgressRate > 1 {
			t.Errorf("%s: invalid rate %v progress %v", r.Method, u.InvalidRate, u.ProgressRate)
		}
		if r.SuccessRate < 1 && *u.ProgressRate >= 1 {
			t.Errorf("%s: progress rate 1 with failed tasks", r.Method)
		}
		if !r.CI.Success.Defined() || r.CI.Success.Over != "tasks" {
			t.Errorf("%s: success interval %+v", r.Method, r.CI.Success)
		}
	}
	// The tidy table: one row per episode, the columns documented.
	rows, err := checkpoints.ReadFile[TidyRow](ctx, filepath.Join(dir, EpisodesParquet))
	if err != nil || len(rows) != 18 {
		t.Fatalf("episodes.parquet: %d rows, %v", len(rows), err)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, EpisodesCSV))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 19 || lines[0] != strings.Join(tidyColumns, ",") {
		t.Errorf("episodes.csv: %d lines, header %q", len(lines), lines[0])
	}
	// metrics.jsonl: a line per trained method and iteration.
	m, _ := os.ReadFile(filepath.Join(cfg.Run, MetricsFile))
	var ms []MetricsLine
	for _, l := range strings.Split(strings.TrimSpace(string(m)), "\n") {
		var x MetricsLine
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("metrics.jsonl: %v", err)
		}
		ms = append(ms, x)
	}
	if len(ms) != 2 || ms[0].Method != "samem" || ms[1].Method != "memstream" || ms[0].Iteration != 1 || ms[1].MemorySize == 0 || ms[0].Episodes != 6 {
		t.Errorf("metrics.jsonl: %+v", ms)
	}
}
