package main

import (
	"flag"
	"io"
	"testing"

	"github.com/samem/trainer/cmd/internal/flagdoc"
)

var update = flag.Bool("update", false, "rewrite docs/flags/merge.md from merge's flags")

// TestFlagReference: docs/flags/merge.md is merge's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	var dir string
	flagdoc.Check(t, newFlags(&dir, io.Discard), flagdoc.Page{Command: "merge", Usage: usage}, "../../docs/flags/merge.md", *update)
}
