package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge/agentgym/agentgymtest"
)

// Train and evaluate on a local server that answers as AgentGym's ALFWorld
// server does: the tasks get the server's types and goals, -per-type keeps
// one of each of its three types, the identities are kept in the run
// directory, and the evaluation has per-type rows, the server's goals and
// Table 4's SPL.
func TestAgentGymALFWorldRun(t *testing.T) {
	ctx := context.Background()
	f, srv := agentgymtest.New(t, "alfworld")
	f.Limit = 50
	cfg := smallConfig(t, "samem")
	cfg.Env = EnvConfig{Kind: "agentgym", URL: srv.URL, GymKind: "alfworld", GymTrain: "0-5", GymValid: "0-5"}
	cfg.PerType, cfg.Iterations, cfg.Tasks = 1, 1, 0
	res, err := Train(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	h := res[0].History
	if len(h) != 1 || h[0].Episodes != 3 {
		t.Fatalf("history %+v: want one iteration of 3 episodes (one per server task type)", h)
	}
	if _, err := os.Stat(filepath.Join(cfg.Run, GymTasksFile)); err != nil {
		t.Fatalf("identities not kept: %v", err)
	}
	resetsAfterTrain := f.Resets()
	ev := cfg
	ev.Split, ev.Methods = "valid_unseen", []string{"samem"}
	out, err := Eval(ctx, ev, quiet())
	if err != nil {
		t.Fatal(err)
	}
	// Six evaluation episodes, no identification resets: the run directory knew every index.
	if got := f.Resets() - resetsAfterTrain; got != 6 {
		t.Errorf("evaluation made %d resets, want 6 (one per episode, none to identify)", got)
	}
	var types []string
	for typ := range out[0].ByType {
		types = append(types, typ)
	}
	slices.Sort(types)
	if want := []string{"look_at_obj_in_light", "pick_and_place_simple", "pick_cool_then_place_in_recep"}; !slices.Equal(types, want) {
		t.Errorf("by type: %v, want %v", types, want)
	}
	if out[0].SPLPaper == nil {
		t.Errorf("no Table 4 SPL for ALFWorld types")
	}
	rows, err := checkpoints.ReadFile[EpisodeRow](ctx, filepath.Join(cfg.Run, "eval", "valid_unseen", ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if g := agentgymtest.ALFGames[i].Goal; r.Goal != g || r.MaxSteps != 50 {
			t.Errorf("row %d: goal %q, %d steps; want the server's %q and 50", i, r.Goal, r.MaxSteps, g)
		}
	}
}

// ScienceWorld through AgentGym: -per-type 1 evaluates the first variation
// of each of the server's three types with the step limits of their levels
// (seed 002 App. B.1), and the summary has Table 1's SR and AR.
func TestAgentGymScienceWorldEval(t *testing.T) {
	ctx := context.Background()
	_, srv := agentgymtest.New(t, "sciworld")
	cfg := smallConfig(t, "nomemory")
	cfg.Env = EnvConfig{Kind: "agentgym", URL: srv.URL, GymKind: "sciworld", GymValid: "0-5"}
	cfg.Tasks, cfg.EvalPerType = 0, 1
	out, err := Eval(ctx, cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Tasks != 3 || len(out[0].ByType) != 3 {
		t.Fatalf("evaluated %d tasks of %d types, want the first of each of 3", out[0].Tasks, len(out[0].ByType))
	}
	if out[0].SR != 100*out[0].SuccessRate || out[0].AR != 100*out[0].AvgScore || out[0].AR < 0 {
		t.Errorf("SR %v AR %v for success %v score %v", out[0].SR, out[0].AR, out[0].SuccessRate, out[0].AvgScore)
	}
	rows, err := checkpoints.ReadFile[EpisodeRow](ctx, filepath.Join(cfg.Run, "eval", "valid_unseen-per-type=1", ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"boil": 40, "find-plant": 20, "chemistry-mix": 20}
	for _, r := range rows {
		if r.MaxSteps != want[r.Type] || r.Steps > r.MaxSteps {
			t.Errorf("%s: limit %d, %d steps; want limit %d", r.Type, r.MaxSteps, r.Steps, want[r.Type])
		}
	}
}
