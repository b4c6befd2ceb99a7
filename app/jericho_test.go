package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/testenv"
)

// A folder of Jericho's games resolves to seed 002's protocol: AgentBoard's
// 20 games at AgentBoard's 30 steps; -game-set all and -max-steps win; a
// single story file, or a folder without Jericho's suite.json, plays every
// game at the games' own limits; a record written before game sets keeps
// the whole folder.
func TestJerichoProtocolResolved(t *testing.T) {
	jericho := t.TempDir()
	if err := os.WriteFile(filepath.Join(jericho, "suite.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	for _, c := range []struct {
		name     string
		env      EnvConfig
		wantSet  GameSet
		wantStep int
	}{
		{"jericho folder", EnvConfig{Kind: EnvZMachine, Game: jericho}, GameSetAgentBoard, AgentBoardMaxSteps},
		{"jericho folder, every game", EnvConfig{Kind: EnvZMachine, Game: jericho, GameSet: GameSetAll}, GameSetAll, 0},
		{"jericho folder, -max-steps 50", EnvConfig{Kind: EnvZMachine, Game: jericho, MaxSteps: 50}, GameSetAgentBoard, 50},
		{"other folder", EnvConfig{Kind: EnvZMachine, Game: other}, GameSetAll, 0},
		{"story file", EnvConfig{Kind: EnvZMachine, Game: filepath.Join(jericho, "suite.json")}, GameSetAll, 0},
	} {
		cfg := Defaults()
		cfg.Env = c.env
		r := cfg.Resolved()
		if r.Env.GameSet != c.wantSet || r.Env.MaxSteps != c.wantStep {
			t.Errorf("%s: game set %q, max steps %d; want %q and %d", c.name, r.Env.GameSet, r.Env.MaxSteps, c.wantSet, c.wantStep)
		}
	}
	run := t.TempDir()
	old := `{"run": "r", "env": {"kind": "zmachine", "game": "` + jericho + `"}, "samem": {"schedule": "budget"}}`
	if err := os.WriteFile(filepath.Join(run, ConfigFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(run)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Resolved(); r.Env.GameSet != GameSetAll || r.Env.MaxSteps != 0 {
		t.Errorf("record before game sets: %q, %d steps; want every game at their own limits", r.Env.GameSet, r.Env.MaxSteps)
	}
}

// On the shared Jericho folder the default suite is AgentBoard's 20 games,
// in train and valid_seen (trained and evaluated on the same games), each
// at 30 steps; -game-set all keeps every game.
func TestJerichoAgentBoardSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("opens every game of the shared Jericho folder (runs without -short)")
	}
	game := filepath.Join("..", "..", "shared", "games", "jericho")
	_, err := os.Stat(filepath.Join(game, "suite.json"))
	testenv.Need(t, err == nil, "the shared games folder "+game)
	ctx := context.Background()
	cfg := Defaults()
	cfg.Env = EnvConfig{Kind: EnvZMachine, Game: game}
	r := cfg.Resolved()
	suite, err := NewSuite(ctx, r.Env, r.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, split := range []string{envbridge.SplitTrain, envbridge.SplitValidSeen} {
		ts, err := suite.Tasks(split)
		if err != nil {
			t.Fatal(err)
		}
		var games []string
		for _, task := range ts {
			games = append(games, task.Type)
			if task.MaxSteps != AgentBoardMaxSteps {
				t.Errorf("%s: %d steps, want %d", task.ID, task.MaxSteps, AgentBoardMaxSteps)
			}
		}
		slices.Sort(games)
		if !slices.Equal(games, AgentBoardGames) {
			t.Errorf("%s games %v, want AgentBoard's %v", split, games, AgentBoardGames)
		}
	}
	r.Env.GameSet = GameSetAll
	all, err := NewSuite(ctx, r.Env, r.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if ts, _ := all.Tasks(envbridge.SplitTrain); len(ts) <= len(AgentBoardGames) {
		t.Errorf("-game-set all: %d games, want the whole folder", len(ts))
	}
	// A folder missing some of them is refused, naming them.
	dir := t.TempDir()
	for _, f := range []string{"suite.json", "zork1.z5"} {
		b, err := os.ReadFile(filepath.Join(game, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Env.Game = dir
	r = cfg.Resolved()
	if _, err := NewSuite(ctx, r.Env, r.Seed); err == nil || !strings.Contains(err.Error(), "zork2") || !strings.Contains(err.Error(), "-game-set all") {
		t.Errorf("folder with zork1 alone: %v; want a refusal naming the missing games", err)
	}
}

// The held-out split left to the environment is the paper's: seed 002
// App. B.1 trains and evaluates on the same Jericho games, so a Z-machine
// run evaluates valid_seen (it has no valid_unseen); every other world
// evaluates valid_unseen; a split given wins, and names the directory.
func TestEvalSplitEnvironmentDefault(t *testing.T) {
	for _, c := range []struct {
		name  string
		env   EnvConfig
		split string
		want  string
	}{
		{"zmachine", EnvConfig{Kind: EnvZMachine, Game: t.TempDir()}, "", "valid_seen"},
		{"zmachine, -split train", EnvConfig{Kind: EnvZMachine, Game: t.TempDir()}, "train", "train"},
		{"household", EnvConfig{Kind: EnvHousehold}, "", "valid_unseen"},
		{"household, -split valid_seen", EnvConfig{Kind: EnvHousehold}, "valid_seen", "valid_seen"},
		{"agentgym", EnvConfig{Kind: EnvAgentGym}, "", "valid_unseen"},
	} {
		cfg := Defaults()
		cfg.Env, cfg.Split, cfg.Run = c.env, c.split, t.TempDir()
		if got := cfg.Resolved().Split; got != c.want {
			t.Errorf("%s: split %q, want %q", c.name, got, c.want)
		}
		dir, _, err := EvalDir(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(dir) != c.want {
			t.Errorf("%s: evaluation directory %s, want one named %s", c.name, dir, c.want)
		}
	}
}
