package main

import (
	"flag"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/flagdoc"
)

var update = flag.Bool("update", false, "rewrite docs/flags/play.md from play's flags")

// TestFlagReference: docs/flags/play.md is play's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	cfg := app.Defaults()
	fs := newFlags(&cfg, &options{})
	flagdoc.Check(t, fs, flagdoc.Page{Command: "play", Usage: usage}, "../../docs/flags/play.md", *update)
}
