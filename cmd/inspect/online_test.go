package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/internal/testenv"
)

// inspectCSV runs inspect with args and returns the CSV table it wrote
// and what it said on stderr.
func inspectCSV(t *testing.T, args ...string) ([][]string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("inspect %v: exit %d: %s", args, code, errb.String())
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatalf("inspect %v: %v\n%s", args, err, out.String())
	}
	if len(rows) < 2 {
		t.Fatalf("inspect %v: %d rows, want a header and at least one row", args, len(rows))
	}
	return rows, errb.String()
}

// An online evaluation's memory opens with inspect, by its directory or by
// the evaluation's with -method, says what it is, and differs from the
// trained memory it started from by what the evaluation learned.
func TestOnlineMemory(t *testing.T) {
	game := filepath.Join("..", "..", "..", "shared", "games", "jericho")
	_, err := os.Stat(filepath.Join(game, "suite.json"))
	testenv.Need(t, err == nil, "the shared games folder "+game)
	ctx := context.Background()
	quiet := app.Streams{Out: io.Discard, Err: io.Discard}
	cfg := app.Defaults()
	cfg.Run = t.TempDir()
	cfg.Env = app.EnvConfig{Kind: app.EnvZMachine, Game: game, MaxSteps: 8}
	cfg.LLM.Backend = app.BackendOffline
	cfg.Methods = []string{"samem", "clin"}
	cfg.Iterations, cfg.Workers, cfg.Tasks = 1, 1, 4
	if _, err := app.Train(ctx, cfg, quiet); err != nil {
		t.Fatal(err)
	}
	res, err := app.Eval(ctx, cfg, quiet) // online: AgentBoard's games
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Online == nil {
		t.Fatalf("evaluation: %+v; want two online results", res)
	}
	evalDir := filepath.Join(cfg.Run, "eval", "valid_seen")
	mem := filepath.Join(evalDir, checkpoints.OnlineFolder, "samem")

	trained, _ := inspectCSV(t, "-format", "csv", "-top", "0", "-table", "qtable", cfg.Run)
	online, note := inspectCSV(t, "-format", "csv", "-top", "0", "-table", "qtable", mem)
	if !strings.Contains(note, "online evaluation "+evalDir) || !strings.Contains(note, "-method samem "+cfg.Run) {
		t.Errorf("inspect %s said %q; want it named the online evaluation %s and the run %s", mem, note, evalDir, cfg.Run)
	}
	if strings.Join(online[0], ",") != strings.Join(trained[0], ",") {
		t.Errorf("online Q-table columns %v, trained %v", online[0], trained[0])
	}
	if equalRows(online, trained) {
		t.Error("the online memory's Q-table is the trained one: inspect did not open what the evaluation learned")
	}
	// The same table through the evaluation's directory and -method.
	byEval, _ := inspectCSV(t, "-format", "csv", "-top", "0", "-table", "qtable", "-method", "samem", evalDir)
	if !equalRows(byEval, online) {
		t.Error("the evaluation's directory with -method samem opened another memory than memory/samem")
	}
	// SAMem's own views (sizes and states by value) open too.
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"-top", "3", mem}, &out, &errb); code != 0 || !strings.Contains(out.String(), "states by value") || !strings.Contains(out.String(), "memory left by the online evaluation valid_seen") {
		t.Errorf("inspect %s: exit %d, %s%s", mem, code, out.String(), errb.String())
	}

	// CLIN's evaluation added one trial per game to its memory.
	before, _ := inspectCSV(t, "-format", "csv", "-top", "0", "-method", "clin", "-table", "memories", cfg.Run)
	after, _ := inspectCSV(t, "-format", "csv", "-top", "0", "-method", "clin", "-table", "memories", evalDir)
	if len(after) <= len(before) {
		t.Errorf("clin memories: %d rows after the online evaluation, %d trained; want more", len(after)-1, len(before)-1)
	}

	// -diff against the run: exactly the trials the evaluation added.
	diff, _ := inspectCSV(t, "-format", "csv", "-top", "0", "-method", "clin", "-table", "memories", "-diff", cfg.Run, evalDir)
	if diff[0][0] != "change" || len(diff)-1 != len(after)-len(before) {
		t.Errorf("clin memories -diff: %d rows under %v; want %d added", len(diff)-1, diff[0], len(after)-len(before))
	}
	for _, row := range diff[1:] {
		if row[0] != "+" {
			t.Errorf("clin memories -diff: %v; want only added trials", row)
		}
	}
	// A memory compared with itself: nothing differs.
	var same bytes.Buffer
	if code := run(ctx, []string{"-format", "csv", "-table", "qtable", "-diff", mem, mem}, &same, io.Discard); code != 0 || strings.Count(same.String(), "\n") != 1 {
		t.Errorf("inspect -diff of a memory with itself: exit %d, %q; want the header alone", code, same.String())
	}

	// A method the evaluation did not run: the error names the path and
	// what is missing.
	out.Reset()
	errb.Reset()
	if code := run(ctx, []string{"-method", "awm", evalDir}, &out, &errb); code == 0 || !strings.Contains(errb.String(), evalDir) || !strings.Contains(errb.String(), filepath.Join("memory", "awm", "meta.parquet")) {
		t.Errorf("inspect -method awm %s: exit %d, %q; want an error naming the path and memory/awm/meta.parquet", evalDir, code, errb.String())
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}
