package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/internal/testenv"
)

// The evaluation protocol left to the environment is the paper's: memory
// keeps learning on AgentBoard's Jericho games (seed 002 App. B.1), and is
// frozen on every other world (Sec. 4.1); -online given wins either way.
func TestOnlineEnvironmentDefault(t *testing.T) {
	jericho := t.TempDir()
	if err := os.WriteFile(filepath.Join(jericho, "suite.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		env    EnvConfig
		online Online
		want   Online
	}{
		{"jericho folder (agentboard)", EnvConfig{Kind: EnvZMachine, Game: jericho}, "", OnlineOn},
		{"jericho folder, -online=false", EnvConfig{Kind: EnvZMachine, Game: jericho}, OnlineOff, OnlineOff},
		{"jericho folder, -game-set all", EnvConfig{Kind: EnvZMachine, Game: jericho, GameSet: GameSetAll}, "", OnlineOff},
		{"other zmachine folder", EnvConfig{Kind: EnvZMachine, Game: t.TempDir()}, "", OnlineOff},
		{"household", EnvConfig{Kind: EnvHousehold}, "", OnlineOff},
		{"household, -online", EnvConfig{Kind: EnvHousehold}, OnlineOn, OnlineOn},
		{"agentgym", EnvConfig{Kind: EnvAgentGym}, "", OnlineOff},
	} {
		cfg := Defaults()
		cfg.Env, cfg.Online = c.env, c.online
		if got := cfg.Resolved().Online; got != c.want {
			t.Errorf("%s: online %q, want %q", c.name, got, c.want)
		}
	}
	for v, want := range map[string]Online{"true": OnlineOn, "on": OnlineOn, "false": OnlineOff, "off": OnlineOff, "env": ""} {
		var o Online = "x"
		if err := o.Set(v); err != nil || o != want {
			t.Errorf("Set(%q): %q, %v; want %q", v, o, err, want)
		}
	}
	var o Online
	if err := o.Set("sometimes"); err == nil {
		t.Error("Set(sometimes) took it")
	}
	// -online alone is on: the flag is a boolean one.
	if !(&o).IsBoolFlag() {
		t.Error("-online is not a boolean flag")
	}

	// A run trained on the Jericho games evaluates online by default, in
	// the split's directory; frozen, in a directory named by the override.
	run := t.TempDir()
	base := Defaults()
	base.Run, base.Env = run, EnvConfig{Kind: EnvZMachine, Game: jericho}
	if err := writeConfig(base, nil); err != nil {
		t.Fatal(err)
	}
	for online, want := range map[Online]string{"": "valid_seen", OnlineOn: "valid_seen", OnlineOff: "valid_seen-online=off"} {
		cfg := base
		cfg.Online = online
		dir, _, err := EvalDir(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(dir) != want {
			t.Errorf("-online %q: evaluation directory %s, want %s", online, filepath.Base(dir), want)
		}
	}

	// An online evaluation is one sequence: it cannot be sharded.
	cfg := base
	cfg.Shard = Shard{Index: 0, N: 2}
	if _, err := Eval(context.Background(), cfg, Streams{Out: io.Discard, Err: io.Discard}); !errors.Is(err, ErrConfig) {
		t.Errorf("sharded online evaluation: %v, want a refusal (ErrConfig)", err)
	}
}

// TestOnlineEvalJericho: on AgentBoard's Jericho games an evaluation by
// default keeps learning: the memory it leaves, saved in the evaluation's
// memory/samem/ (a checkpoint directory), differs from the trained checkpoint, which is left as it
// was, and a rerun starts from the trained memory again (the same results,
// the same memory left). -online=false evaluates the frozen memory: no
// memory saved, the size the checkpoint's.
func TestOnlineEvalJericho(t *testing.T) {
	game := filepath.Join("..", "..", "shared", "games", "jericho")
	_, err := os.Stat(filepath.Join(game, "suite.json"))
	testenv.Need(t, err == nil, "the shared games folder "+game)
	ctx := context.Background()
	quiet := Streams{Out: io.Discard, Err: io.Discard}
	cfg := Defaults()
	cfg.Run = t.TempDir()
	cfg.Env = EnvConfig{Kind: EnvZMachine, Game: game, MaxSteps: 8}
	cfg.LLM.Backend = BackendOffline
	cfg.Iterations, cfg.Workers, cfg.Tasks = 1, 1, 4
	if _, err := Train(ctx, cfg, quiet); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(cfg.Run, "samem", "checkpoints")
	trained := treeFiles(t, ckpt)

	var memories []map[string][]byte
	var results [][]EvalResult
	for range 2 {
		res, err := Eval(ctx, cfg, quiet)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].Online == nil || res[0].Online.Memory != "memory/samem" {
			t.Fatalf("default evaluation on AgentBoard's games: %+v; want an online record naming memory/samem", res)
		}
		dir := filepath.Join(cfg.Run, "eval", "valid_seen")
		// A checkpoint directory: its meta and manifest (written now) and
		// the memory in samem/, compared here.
		mem := filepath.Join(dir, checkpoints.OnlineFolder, "samem")
		if err := checkpoints.Verify(ctx, mem); err != nil {
			t.Fatalf("the online memory is not a whole checkpoint directory: %v", err)
		}
		memories = append(memories, treeFiles(t, filepath.Join(mem, "samem")))
		results = append(results, res)
		if got := treeFiles(t, ckpt); !reflect.DeepEqual(got, trained) {
			t.Fatal("the online evaluation changed the training checkpoint")
		}
	}
	latest := latestSave(t, trained)
	learned := memories[0]
	for _, f := range []string{"qtable.parquet", "states.parquet"} {
		if bytes.Equal(learned[f], latest[f]) {
			t.Errorf("%s after the online evaluation is the trained one: the memory learned nothing", f)
		}
	}
	if !reflect.DeepEqual(memories[0], memories[1]) {
		t.Error("a rerun of the online evaluation left another memory: it did not start from the trained one")
	}
	if a, b := results[0][0], results[1][0]; a.SuccessRate != b.SuccessRate || a.AvgScore != b.AvgScore || a.AvgSteps != b.AvgSteps || !reflect.DeepEqual(a.Memory, b.Memory) {
		t.Errorf("rerun: %.3f, %.3f, %.1f steps, %v; first %.3f, %.3f, %.1f steps, %v", b.SuccessRate, b.AvgScore, b.AvgSteps, b.Memory, a.SuccessRate, a.AvgScore, a.AvgSteps, a.Memory)
	}

	cfg.Online = OnlineOff
	res, err := Eval(ctx, cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Online != nil || !reflect.DeepEqual(res[0].Memory, results[0][0].Online.Trained) {
		t.Errorf("frozen evaluation: online %+v, memory %v; want no online record and the trained size %v", res[0].Online, res[0].Memory, results[0][0].Online.Trained)
	}
	if _, err := os.Stat(filepath.Join(cfg.Run, "eval", "valid_seen-online=off", checkpoints.OnlineFolder)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("frozen evaluation saved a memory: %v", err)
	}
	if got := treeFiles(t, ckpt); !reflect.DeepEqual(got, trained) {
		t.Error("the frozen evaluation changed the training checkpoint")
	}
}

// treeFiles reads every regular file under dir, by path relative to it.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// latestSave is the method's files of the latest checkpoint in files
// (iter-NNNN/samem/...), by name.
func latestSave(t *testing.T, files map[string][]byte) map[string][]byte {
	t.Helper()
	var iters []string
	for p := range files {
		if d, rest, ok := cutPath(p); ok && filepath.Dir(rest) == "samem" {
			iters = append(iters, d)
		}
	}
	if len(iters) == 0 {
		t.Fatal("no saved memory in the checkpoints")
	}
	last := slices.Max(iters)
	out := map[string][]byte{}
	for p, b := range files {
		if d, rest, ok := cutPath(p); ok && d == last && filepath.Dir(rest) == "samem" {
			out[filepath.Base(rest)] = b
		}
	}
	return out
}

func cutPath(p string) (first, rest string, ok bool) {
	i := bytes.IndexByte([]byte(p), '/')
	if i < 0 {
		return "", "", false
	}
	return p[:i], p[i+1:], true
}

// An evaluation directory holding frozen results (written before the
// default went online, or by hand) is not extended by an online
// evaluation of another method: it is moved aside, nothing lost, and the
// protocols never share one summary.
func TestOnlineDoesNotExtendFrozen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "valid_seen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(filepath.Join(dir, SummaryFile), []EvalResult{{Method: "clin"}}); err != nil {
		t.Fatal(err)
	}
	kept, moved, err := keepEarlier(context.Background(), dir, []string{"samem"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.results) != 0 || moved == "" {
		t.Fatalf("kept %d earlier results, moved to %q; want the frozen directory moved aside", len(kept.results), moved)
	}
	if _, err := os.Stat(filepath.Join(moved, SummaryFile)); err != nil {
		t.Errorf("the frozen results were not kept aside: %v", err)
	}
}
