package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/agentgym/agentgymtest"
)

// The task counts left to the environment resolve to its paper's protocol
// (seed 002 Sec. 4.1, App. B.1): 5 training tasks per type and every
// evaluation task on household worlds and ALFWorld, 3 and the top 3
// variants per type on ScienceWorld; a count the user gives wins, 0
// included.
func TestPerTypeEnvironmentDefaults(t *testing.T) {
	const url = "http://127.0.0.1:1"
	sci := EnvConfig{Kind: EnvAgentGym, URL: url, GymKind: GymScienceWorld}
	for _, c := range []struct {
		name        string
		env         EnvConfig
		train, eval int // given; PerTypeEnvDefault: left to the environment
		wantTrain   int
		wantEval    int
	}{
		{"household", EnvConfig{Kind: EnvHousehold}, PerTypeEnvDefault, PerTypeEnvDefault, 5, 0},
		{"alfworld", EnvConfig{Kind: EnvAgentGym, URL: url}, PerTypeEnvDefault, PerTypeEnvDefault, 5, 0},
		{"scienceworld", sci, PerTypeEnvDefault, PerTypeEnvDefault, 3, 3},
		{"scienceworld by its other name", EnvConfig{Kind: EnvAgentGym, URL: url, GymKind: "scienceworld"}, PerTypeEnvDefault, PerTypeEnvDefault, 3, 3},
		{"scienceworld -per-type 5", sci, 5, PerTypeEnvDefault, 5, 3},
		{"scienceworld, every task", sci, 0, 0, 0, 0},
		{"household -per-type 2", EnvConfig{Kind: EnvHousehold}, 2, 4, 2, 4},
	} {
		cfg := Defaults()
		cfg.Env = c.env
		cfg.PerType, cfg.EvalPerType = c.train, c.eval
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := cfg.Resolved()
		if r.PerType != c.wantTrain || r.EvalPerType != c.wantEval {
			t.Errorf("%s: resolved per-type %d, eval per-type %d; want %d and %d", c.name, r.PerType, r.EvalPerType, c.wantTrain, c.wantEval)
		}
		if again := r.Resolved(); again.PerType != r.PerType || again.EvalPerType != r.EvalPerType {
			t.Errorf("%s: Resolved is not idempotent: %d/%d then %d/%d", c.name, r.PerType, r.EvalPerType, again.PerType, again.EvalPerType)
		}
	}
	if d := Defaults(); d.PerType != PerTypeEnvDefault || d.EvalPerType != PerTypeEnvDefault {
		t.Errorf("Defaults: per-type %d, eval per-type %d; want both left to the environment", d.PerType, d.EvalPerType)
	}
}

// A ScienceWorld run trained and evaluated with the defaults records the
// protocol it ran (3 and 3) in config.json and in the evaluation's summary,
// and the evaluation with the paper's selection is the split's own
// directory, not an override.
func TestScienceWorldProtocolRecorded(t *testing.T) {
	ctx := context.Background()
	_, srv := agentgymtest.New(t, "sciworld")
	cfg := smallConfig(t, "nomemory", "samem")
	cfg.Env = EnvConfig{Kind: EnvAgentGym, URL: srv.URL, GymKind: GymScienceWorld, GymTrain: "0-5", GymValid: "0-5"}
	cfg.PerType, cfg.EvalPerType, cfg.Iterations, cfg.Tasks = PerTypeEnvDefault, PerTypeEnvDefault, 1, 0
	if _, err := Train(ctx, cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	saved, err := LoadConfig(cfg.Run)
	if err != nil {
		t.Fatal(err)
	}
	if saved.PerType != 3 || saved.EvalPerType != 3 {
		t.Errorf("config.json: per_type %d, eval_per_type %d; want 3 and 3", saved.PerType, saved.EvalPerType)
	}
	ev := cfg
	ev.Methods = []string{"nomemory"}
	out, err := Eval(ctx, ev, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].EvalRecord.Config; got == nil || got.EvalPerType != 3 {
		t.Errorf("summary's config: %+v; want eval_per_type 3", got)
	}
	if len(out[0].EvalRecord.Overrides) != 0 {
		t.Errorf("overrides %v: the paper's selection is the default, not an override", out[0].EvalRecord.Overrides)
	}
	if _, err := os.Stat(filepath.Join(cfg.Run, "eval", "valid_unseen", SummaryFile)); err != nil {
		t.Errorf("no evaluation in eval/valid_unseen: %v", err)
	}
}

// CLIN on AgentGym's ScienceWorld acts in the server's action language:
// every action it takes is one of the server's templates (/action_hint)
// filled with an object in view, never a text-game verb such as "look" or
// "north" (seed 004 Fig. 6 gives the controller the templates and objects).
func TestCLINScienceWorldActsByTemplates(t *testing.T) {
	ctx := context.Background()
	_, srv := agentgymtest.New(t, "sciworld")
	cfg := smallConfig(t, "clin")
	cfg.Env = EnvConfig{Kind: EnvAgentGym, URL: srv.URL, GymKind: GymScienceWorld, GymTrain: "0-5", GymValid: "0-5"}
	cfg.PerType, cfg.EvalPerType, cfg.Iterations, cfg.Tasks = PerTypeEnvDefault, PerTypeEnvDefault, 1, 0
	if _, err := Train(ctx, cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	if _, err := Eval(ctx, cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(cfg.Run, "eval", "valid_unseen", TrajectoriesFile))
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	for _, a := range envbridge.Fill(agentgymtest.SciTemplates, []string{"agent", "water", "stove", "poison"}, nil, 0) {
		allowed[a] = true
	}
	var actions []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "action" {
					actions = append(actions, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		walk(v)
	}
	if len(actions) == 0 {
		t.Fatal("no actions in the trajectories")
	}
	t.Logf("%d actions, e.g. %q", len(actions), actions[:min(5, len(actions))])
	for _, a := range actions {
		if !allowed[a] {
			t.Errorf("action %q is not one of the server's templates filled with an object in view", a)
		}
	}
}
