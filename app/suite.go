package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/agentgym"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/envbridge/jsonl"
	"github.com/samem/trainer/envbridge/zmachine"
)

// NewSuite opens the environment suite of cfg.
func NewSuite(ctx context.Context, cfg EnvConfig, seed int64) (envbridge.Suite, error) {
	switch cfg.Kind {
	case "household":
		g := household.Grammar03
		if cfg.Grammar == "0.4" {
			g = household.Grammar04
		}
		return household.New(household.Config{Seed: cfg.WorldSeed, MaxSteps: cfg.MaxSteps, Grammar: g})
	case "zmachine":
		return zmachine.NewSuite(ctx, zmachine.Config{MaxSteps: cfg.MaxSteps, Seed: seed,
			Interpreter: cfg.Interpreter, ValidActions: cfg.ValidActions}, cfg.Game)
	case "jsonl":
		// The command is split on white space and run without a shell.
		return jsonl.NewSuite(ctx, jsonl.Config{Command: strings.Fields(cfg.Command)})
	case "agentgym":
		kind := agentgym.ALFWorld
		switch cfg.GymKind {
		case "", "alfworld":
		case "sciworld", "scienceworld":
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
