package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/agentgym"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/envbridge/jsonl"
	"github.com/samem/trainer/envbridge/zmachine"
	"github.com/samem/trainer/runner"
)

// NewSuite opens the environment suite of cfg.
func NewSuite(ctx context.Context, cfg EnvConfig, seed int64) (envbridge.Suite, error) {
	switch cfg.Kind {
	case EnvHousehold:
		g := household.Grammar03
		if cfg.Grammar == Grammar04 {
			g = household.Grammar04
		}
		return household.New(household.Config{Seed: cfg.WorldSeed, MaxSteps: cfg.MaxSteps, Grammar: g})
	case EnvZMachine:
		suite, err := zmachine.NewSuite(ctx, zmachine.Config{MaxSteps: cfg.MaxSteps, Seed: seed,
			Interpreter: string(cfg.Interpreter), ValidActions: cfg.ValidActions}, cfg.Game)
		if err != nil {
			return nil, err
		}
		if cfg.GameSet == GameSetAgentBoard {
			return agentBoardSuite(ctx, suite, cfg.Game)
		}
		return suite, nil
	case EnvJSONL:
		// The command is split on white space and run without a shell.
		return jsonl.NewSuite(ctx, jsonl.Config{Command: strings.Fields(cfg.Command)})
	case EnvAgentGym:
		kind := agentgym.ALFWorld
		switch cfg.GymKind {
		case "", GymALFWorld:
		case GymScienceWorld, "scienceworld":
			kind = agentgym.ScienceWorld
		default:
			return nil, fmt.Errorf("%w: -agentgym-kind %q: want alfworld or sciworld", ErrConfig, cfg.GymKind)
		}
		splits := map[string][]int{}
		for name, spec := range map[string]string{envbridge.SplitTrain: cfg.GymTrain, envbridge.SplitValidUnseen: cfg.GymValid, envbridge.SplitValidSeen: cfg.GymSeen} {
			if spec == "" {
				continue
			}
			idx, err := agentgym.ParseIndices(spec)
			if err != nil {
				return nil, fmt.Errorf("%w: agentgym %s task indices %q: %v", ErrConfig, name, spec, err)
			}
			splits[name] = idx
		}
		return agentgym.NewSuite(agentgym.Config{URL: cfg.URL, Kind: kind, Splits: splits, MaxSteps: cfg.MaxSteps})
	}
	return nil, fmt.Errorf("%w: -env: unknown environment %q", ErrConfig, cfg.Kind)
}

// GymTasksFile keeps, in the run directory, what an AgentGym server said each
// of its task indices is (type, goal, game path or variation), so that a
// resumed run or an evaluation asks the server only about new indices.
const GymTasksFile = "agentgym-tasks.json"

// gymTasks is GymTasksFile's content.
type gymTasks struct {
	Kind  string                    `json:"kind"`
	Tasks map[int]agentgym.Identity `json:"tasks"`
}

// IdentifySuite gives an AgentGym suite's tasks the types and goals the
// server states (agentgym.Suite.Identify), reusing and then updating
// <run>/agentgym-tasks.json. Other suites know their tasks already: it does
// nothing for them. A damaged file is an error naming it; it is not
// overwritten.
func IdentifySuite(ctx context.Context, suite envbridge.Suite, run string) error {
	gym, ok := suite.(*agentgym.Suite)
	if !ok {
		return nil
	}
	path := filepath.Join(run, GymTasksFile)
	kind := strings.TrimPrefix(gym.Name(), "agentgym:")
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		var f gymTasks
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("%s: %w (delete it to ask the server again)", path, err)
		}
		if f.Kind == kind {
			gym.Learn(f.Tasks)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := gym.Identify(ctx); err != nil {
		return err
	}
	if err := os.MkdirAll(run, 0o755); err != nil {
		return err
	}
	return writeJSON(path, gymTasks{Kind: kind, Tasks: gym.Identities()})
}

// TrainingTasks picks -per-type training tasks of each task type: the first
// ones in the suite's order (seed 002 Sec. 4.1, ALFWorld: "five tasks from
// each task type in the training set"), or, for ScienceWorld-style suites,
// at random with the run seed (seed 002 Appendix B.1: "we randomly select
// three tasks per task type"; pass -per-type 3 for that setup).
//
// With order TaskOrderShuffled the picked tasks are then put in an order
// drawn with the run seed (the same in every iteration); with
// TaskOrderSuite (or "") they keep the suite's order.
func TrainingTasks(suite envbridge.Suite, tasks []envbridge.Task, perType int, seed int64, order TaskOrder) []envbridge.Task {
	if suite.Style() == envbridge.StyleScience {
		tasks = runner.SamplePerType(tasks, perType, seed)
	} else {
		tasks = runner.PerType(tasks, perType)
	}
	if order == TaskOrderShuffled {
		tasks = slices.Clone(tasks)
		rng := rand.New(rand.NewPCG(uint64(seed), 0x7a5c0de2))
		rng.Shuffle(len(tasks), func(i, j int) { tasks[i], tasks[j] = tasks[j], tasks[i] })
	}
	return tasks
}
