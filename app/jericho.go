package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samem/trainer/envbridge"
)

// GameSet selects the games of a folder of Jericho games (-game-set); ""
// is resolved by Config.Resolved (GameSetFor).
type GameSet string

// The game sets.
const (
	// GameSetAgentBoard is AgentBoard's 20 Jericho games, the task set seed
	// 002 (Sec. 4.1, Appendix B.1) trains and evaluates on.
	GameSetAgentBoard GameSet = "agentboard"
	// GameSetAll is every story file of the folder.
	GameSetAll GameSet = "all"
)

// GameSets lists the game sets.
var GameSets = []GameSet{GameSetAgentBoard, GameSetAll}

func (g GameSet) String() string      { return string(g) }
func (g *GameSet) Set(v string) error { return setEnum(g, v, "game set", GameSets, nil) }
func (g GameSet) valid() bool         { return g == "" || slices.Contains(GameSets, g) }

// AgentBoardGames are the story files (names without extension) of
// AgentBoard's Jericho task set, as seed 002 Appendix B.1 lists it: 905,
// Acorncourt, Afflicted, Balances, Dragon, Jewel, Library, Omniquest,
// Reverb, Snacktime, Zenon, Zork1-3, Detective, Night, Pentari, Weapon,
// Dark-hunt (huntdark) and Loose.
var AgentBoardGames = []string{
	"905", "acorncourt", "afflicted", "balances", "detective", "dragon", "huntdark",
	"jewel", "library", "loose", "night", "omniquest", "pentari", "reverb",
	"snacktime", "weapon", "zenon", "zork1", "zork2", "zork3",
}

// AgentBoardMaxSteps is the step limit AgentBoard's evaluation gives each
// Jericho game; seed 002 follows AgentBoard's task set and states no limit
// of its own, so it is the default step limit of the AgentBoard set.
const AgentBoardMaxSteps = 30

// jerichoFolder reports whether game is a folder of Jericho's games: it
// holds Jericho's suite.json (the games' walkthroughs and grammars).
func jerichoFolder(game string) bool {
	st, err := os.Stat(filepath.Join(game, "suite.json"))
	return err == nil && !st.IsDir()
}

// GameSetFor is the game set a zmachine -game resolves to when none is
// given: AgentBoard's for a folder of Jericho's games (the paper's
// protocol), every game otherwise (a story file, TextWorld or AriGraph's
// games).
func GameSetFor(game string) GameSet {
	if jerichoFolder(game) {
		return GameSetAgentBoard
	}
	return GameSetAll
}

// gameSubset is a suite restricted to some of its games (zmachine tasks'
// Type is their game's name).
type gameSubset struct {
	envbridge.Suite
	keep map[string]bool
}

// Tasks lists the split's tasks of the kept games.
func (s gameSubset) Tasks(split string) ([]envbridge.Task, error) {
	ts, err := s.Suite.Tasks(split)
	if err != nil {
		return nil, err
	}
	var out []envbridge.Task
	for _, t := range ts {
		if s.keep[t.Type] {
			out = append(out, t)
		}
	}
	return out, nil
}

// agentBoardSuite keeps AgentBoard's games of a zmachine suite; a folder
// that lacks some of them is refused, naming them.
func agentBoardSuite(ctx context.Context, suite envbridge.Suite, game string) (envbridge.Suite, error) {
	have := map[string]bool{}
	ts, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		have[t.Type] = true
	}
	var missing []string
	keep := map[string]bool{}
	for _, g := range AgentBoardGames {
		if !have[g] {
			missing = append(missing, g)
		}
		keep[g] = true
	}
	if len(missing) > 0 {
		return nil, &SettingError{Flag: "game-set", Reason: fmt.Sprintf("%s: %s lacks AgentBoard's %s; add them or pass -game-set all to play every game of the folder", GameSetAgentBoard, game, strings.Join(missing, ", "))}
	}
	return gameSubset{Suite: suite, keep: keep}, nil
}
