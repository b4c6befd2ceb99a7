package main

import (
	"flag"
	"testing"

	"github.com/samem/trainer/cmd/internal/flagdoc"
)

var update = flag.Bool("update", false, "rewrite docs/flags/zcheck.md")

// TestFlagReference: docs/flags/zcheck.md is zcheck's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	fs := newFlags(&options{}, new(string))
	flagdoc.Check(t, fs, flagdoc.Page{Command: "zcheck", Usage: usage,
		MachineDefaults: map[string]string{"parallel": "the number of cores"}}, "../../docs/flags/zcheck.md", *update)
}
