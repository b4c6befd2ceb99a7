package main

import (
	"flag"
	"io"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/flagdoc"
)

var update = flag.Bool("update", false, "rewrite docs/flags/eval.md from eval's flags")

// TestFlagReference: docs/flags/eval.md is eval's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	cfg := app.Defaults()
	fs, _, _, _ := newFlags(&cfg, io.Discard)
	flagdoc.Check(t, fs, flagdoc.Page{Command: "eval", Usage: usage, MachineDefaults: flagdoc.Cores}, "../../docs/flags/eval.md", *update)
}
