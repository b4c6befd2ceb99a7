package app

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/samem/trainer/runner"
)

// A small training run records every episode, with the opening
// observation and what memory read at each step, one line per (iteration,
// task); -record-train 0 records nothing, and a schedule longer than the
// limit is not recorded.
func TestTrainRecordsEpisodes(t *testing.T) {
	ctx := context.Background()
	cfg := smallConfig(t, "samem")
	if _, err := Train(ctx, cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(cfg.Run, "samem", TrainTrajectoriesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[[2]int]bool{}
	recalls := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e struct {
			Method string `json:"method"`
			runner.Episode
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Method != "samem" || e.Mode != "train" || e.Opening == "" || len(e.Transitions) == 0 {
			t.Fatalf("episode %s: method %q mode %q opening %q, %d steps", e.Task.ID, e.Method, e.Mode, e.Opening, len(e.Transitions))
		}
		seen[[2]int{e.Iteration, e.Index}] = true
		for _, tr := range e.Transitions {
			if r := tr.Decision.Recall; r != nil && r.State != "" {
				recalls++
			}
		}
	}
	if len(seen) != cfg.Iterations*cfg.Tasks {
		t.Errorf("%d (iteration, task) records, want %d", len(seen), cfg.Iterations*cfg.Tasks)
	}
	if recalls == 0 {
		t.Error("no step records SAMem's state")
	}
	for _, tc := range []struct {
		name   string
		record int
	}{{"off", 0}, {"over the limit", cfg.Iterations*cfg.Tasks - 1}} {
		c := smallConfig(t, "samem")
		c.Iterations, c.RecordTrain = 1, tc.record
		if tc.record > 0 {
			c.Iterations = 2
		}
		if _, err := Train(ctx, c, quiet()); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(c.Run, "samem", TrainTrajectoriesFile)); !os.IsNotExist(err) {
			t.Errorf("%s: %s exists (err %v)", tc.name, TrainTrajectoriesFile, err)
		}
	}
}
