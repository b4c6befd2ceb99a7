package main

import (
	"flag"
	"testing"

	"github.com/samem/trainer/cmd/internal/flagdoc"
)

var update = flag.Bool("update", false, "rewrite docs/flags/localmodels.md from localmodels' flags")

// TestFlagReference: docs/flags/localmodels.md is localmodels's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	var dir, role string
	flagdoc.Check(t, newFlags(&dir, &role), flagdoc.Page{Command: "localmodels", Usage: usage}, "../../docs/flags/localmodels.md", *update)
}
