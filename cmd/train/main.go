// Command train trains memory methods (SAMem by default) on an environment's
// training tasks and saves checkpoints in a run directory; run it again to
// resume. See docs/USAGE.md and `train -h`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/cli"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// usage is what -h prints before the flags.
const usage = `usage: train [flags]

Trains memory methods on the training split and checkpoints them in -run after every iteration.
Running it again with the same flags resumes. Ctrl-C saves a checkpoint and stops.
`

// newFlags defines train's flags on a new FlagSet, filling cfg; asJSON is
// -json. Parsing and running stay in run.
func newFlags(cfg *app.Config, asJSON *bool) (*flag.FlagSet, *cli.Lists) {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	lists := cli.Bind(fs, cfg)
	fs.IntVar(&cfg.Iterations, "iterations", cfg.Iterations, "training iterations over the tasks (seed 002 Sec. 4.1.2: 9)")
	fs.StringVar(&cfg.TaskOrder, "task-order", cfg.TaskOrder, "order of the training tasks in an iteration: shuffled (with the run seed, the same every iteration) or suite (the suite's order, by task type)")
	fs.IntVar(&cfg.PerType, "per-type", cfg.PerType, "training tasks per task type (seed 002 Sec. 4.1: 5); 0 uses every training task")
	fs.BoolVar(asJSON, "json", false, "print the training history as JSON on stdout")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\nflags:\n", usage)
		fs.PrintDefaults()
	}
	return fs, lists
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := app.Defaults()
	var asJSON bool
	fs, lists := newFlags(&cfg, &asJSON)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return cli.ParseCode(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "train: unexpected argument %q (flags only; see train -h)\n", fs.Arg(0))
		return cli.ExitUsage
	}
	lists.Finish(false)
	// The key now lives in the configuration only: children (environment
	// programs, interpreters, planners) must not inherit it.
	os.Unsetenv("OPENAI_API_KEY")
	ctx, stop, release := cli.Signals(ctx, stderr)
	defer release()
	began := time.Now()
	res, err := app.Train(ctx, cfg, app.Streams{Out: stdout, Err: stderr, TTY: cli.IsTTY(stderr), Stop: stop})
	if asJSON && len(res) > 0 {
		enc := json.NewEncoder(stdout)
		for _, r := range res {
			enc.Encode(r)
		}
	}
	if err == nil {
		fmt.Fprintf(stderr, "trained in %s\n", cli.Elapsed(time.Since(began)))
	}
	return cli.Code(err, stderr, "train")
}
