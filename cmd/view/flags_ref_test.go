package main

import (
	"flag"
	"testing"

	"github.com/samem/trainer/cmd/internal/flagdoc"
)

var update = flag.Bool("update", false, "rewrite docs/flags/view.md")

// TestFlagReference: docs/flags/view.md is view's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	fs := newFlags(&options{})
	flagdoc.Check(t, fs, flagdoc.Page{Command: "view", Usage: usage}, "../../docs/flags/view.md", *update)
}
