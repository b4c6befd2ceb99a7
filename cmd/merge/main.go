// Command merge puts together the parts of a sharded evaluation (eval
// -shard i/n, each part in eval/<name>.shards/<i>-of-<n>/ of the run) and
// of a sharded sweep or grid: it checks that the parts belong together
// (one work list, every part present, the same provenance) and writes the
// results one process would have written. See docs/SCALING.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/cli"
)

// usage is what -h prints before the flags.
const usage = `usage: merge [flags]

Merges every complete set of parts made with -shard i/n under -run: eval's into the evaluation
directories (and, with -seeds, their combination) and the report, sweep's into sweep/sweep.json,
the grid's into its table. Parts that do not belong together are refused, naming the difference.
`

// newFlags defines merge's flags on a new FlagSet, filling runDir, and
// writes usage to stderr.
func newFlags(runDir *string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(runDir, "run", "runs/default", "run `directory` whose sharded evaluations (eval/<name>.shards/), sweep (sweep/shards/) and grid (grid/shards/) are merged")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\nflags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var runDir string
	fs := newFlags(&runDir, stderr)
	if err := cli.Parse(fs, args, 0); err != nil {
		return cli.ParseCode(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "merge: unexpected argument %q (flags only; see merge -h)\n", fs.Arg(0))
		return cli.ExitUsage
	}
	streams := app.Streams{Out: stdout, Err: stderr}
	merged := 0
	dirs, err := app.Merge(ctx, runDir, streams)
	for _, d := range dirs {
		fmt.Fprintln(stdout, d)
	}
	merged += len(dirs)
	if err != nil && !errors.Is(err, app.ErrNoParts) {
		return cli.Code(err, stderr, "merge")
	}
	n, err := app.MergeSweeps(ctx, runDir, stdout, stderr)
	merged += n
	if err != nil && !errors.Is(err, app.ErrNoParts) {
		return cli.Code(err, stderr, "merge")
	}
	if merged == 0 {
		fmt.Fprintf(stderr, "merge: nothing to merge under %s (no eval/<name>%s/, sweep/shards/ or grid/shards/)\n", runDir, app.ShardsSuffix)
		return cli.ExitError
	}
	return cli.ExitOK
}
