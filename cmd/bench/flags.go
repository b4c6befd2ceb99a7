package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

type flags struct {
	only    []string
	quick   bool
	profile string
	record  string
	root    string
	child   string
}

// usage is what -h prints before the flags.
const usage = `usage: bench [flags]

Runs the performance suite (make bench) and prints one table: each figure, its target, the
baseline measured in the same run, their ratio and whether the target is met.
`

// newFlags defines bench's flags on a new FlagSet, filling f (and only,
// the raw -only list). Parsing stays in parseFlags.
func newFlags(f *flags, only *string) *flag.FlagSet {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(only, "only", "", "comma-separated groups to run (cluster, step, parallel, checkpoint, household, zmachine); default all")
	fs.BoolVar(&f.quick, "quick", false, "small sizes: a smoke run whose figures do not answer the targets")
	fs.StringVar(&f.profile, "profile", "", "write a CPU profile per group (<group>.pprof) to this directory")
	fs.StringVar(&f.record, "record", "", "also write the table to DIR/<date>.md (keeping a '## Findings' section already there)")
	fs.StringVar(&f.root, "root", ".", "module root (where go run and go test start)")
	fs.StringVar(&f.child, "child", "", "internal: run one group in this process and print its rows as JSON")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\nflags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

func parseFlags(args []string, stderr io.Writer) (flags, error) {
	var f flags
	var only string
	fs := newFlags(&f, &only)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, g := range strings.Split(only, ",") {
		if g = strings.TrimSpace(g); g != "" {
			f.only = append(f.only, g)
		}
	}
	if f.child != "" && f.record != "" {
		return f, errors.New("-child and -record exclude each other")
	}
	return f, nil
}
