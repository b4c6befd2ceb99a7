package main

import (
	"flag"
	"io"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/flagdoc"
)

var update = flag.Bool("update", false, "rewrite docs/flags/train.md from train's flags")

// TestFlagReference: docs/flags/train.md is train's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	cfg := app.Defaults()
	fs, _, _ := newFlags(&cfg, io.Discard)
	flagdoc.Check(t, fs, flagdoc.Page{Command: "train", Usage: usage, MachineDefaults: flagdoc.Cores}, "../../docs/flags/train.md", *update)
}
