package main

import (
	"testing"

	"github.com/samem/trainer/cmd/internal/flagdoc"
	"github.com/samem/trainer/inspect"
)

// TestFlagReference: docs/flags/inspect.md is inspect's FlagSet as -h shows it.
func TestFlagReference(t *testing.T) {
	fs := newFlags(&inspect.Request{}, &options{})
	flagdoc.Check(t, fs, flagdoc.Page{Command: "inspect", Usage: usage}, "../../docs/flags/inspect.md", *update)
}
