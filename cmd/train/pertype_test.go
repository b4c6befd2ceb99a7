package main

import (
	"io"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/cli"
)

// train's flags leave the task counts to the environment: ScienceWorld
// without -per-type resolves to 3 training tasks per type and the top 3
// variants in evaluation, household to 5 and every task; -per-type given
// on the command line wins.
func TestPerTypeFlagDefaults(t *testing.T) {
	for _, c := range []struct {
		args      []string
		wantTrain int
		wantEval  int
	}{
		{[]string{"-env", "agentgym", "-agentgym", "http://127.0.0.1:1", "-agentgym-kind", "sciworld"}, 3, 3},
		{[]string{"-env", "agentgym", "-agentgym", "http://127.0.0.1:1", "-agentgym-kind", "sciworld", "-per-type", "5"}, 5, 3},
		{[]string{"-env", "agentgym", "-agentgym", "http://127.0.0.1:1", "-agentgym-kind", "sciworld", "-per-type", "env"}, 3, 3},
		{nil, 5, 0},
		{[]string{"-per-type", "0"}, 0, 0},
	} {
		cfg := app.Defaults()
		fs, _, _ := newFlags(&cfg, io.Discard)
		if err := cli.Parse(fs, c.args, app.CmdTrain); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		r := cfg.Resolved()
		if r.PerType != c.wantTrain || r.EvalPerType != c.wantEval {
			t.Errorf("train %v: per-type %d, eval per-type %d; want %d and %d", c.args, r.PerType, r.EvalPerType, c.wantTrain, c.wantEval)
		}
	}
	cfg := app.Defaults()
	fs, _, _ := newFlags(&cfg, io.Discard)
	if err := cli.Parse(fs, []string{"-per-type", "-2"}, app.CmdTrain); err == nil {
		t.Errorf("-per-type -2 accepted")
	}
}
