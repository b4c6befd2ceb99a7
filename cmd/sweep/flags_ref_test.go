package main

import (
	"flag"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/flagdoc"
)

var update = flag.Bool("update", false, "rewrite docs/flags/sweep.md from sweep's flags")

// TestFlagReference: docs/flags/sweep.md is sweep's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	cfg := app.Defaults()
	fs, _ := newFlags(&cfg, &options{})
	flagdoc.Check(t, fs, flagdoc.Page{Command: "sweep", Usage: usage, MachineDefaults: flagdoc.Cores}, "../../docs/flags/sweep.md", *update)
}
