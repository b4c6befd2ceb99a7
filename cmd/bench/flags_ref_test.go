package main

import (
	"flag"
	"testing"

	"github.com/samem/trainer/cmd/internal/flagdoc"
)

var update = flag.Bool("update", false, "rewrite docs/flags/bench.md from bench's flags")

// TestFlagReference: docs/flags/bench.md is bench's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	var only string
	fs := newFlags(&flags{}, &only)
	flagdoc.Check(t, fs, flagdoc.Page{Command: "bench", Usage: usage}, "../../docs/flags/bench.md", *update)
}
