// Command train trains memory methods (SAMem by default) on an environment's
// training tasks and saves checkpoints in a run directory; run it again to
// resume. See the README and `train -h`.
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

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := app.Defaults()
	fs, lists, asJSON := newFlags(&cfg, stderr)
	if err := cli.Parse(fs, args, app.CmdTrain); err != nil {
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
	if cfg.DryRun {
		return cli.DryRun(ctx, cfg, app.CmdTrain, *asJSON, stdout, stderr)
	}
	began := time.Now()
	res, err := app.Train(ctx, cfg, app.Streams{Out: stdout, Err: stderr, TTY: cli.IsTTY(stderr), Stop: stop})
	if *asJSON && len(res) > 0 {
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

// usage is what -h prints before the flags.
const usage = `usage: train [flags]

Trains memory methods on the training split and checkpoints them in -run after every iteration.
Running it again with the same settings resumes; settings that change what is learned must be
those of the run (its config.json). Ctrl-C saves a checkpoint and stops. -dry-run estimates the
cost first; -budget and -max-requests cap it (exit code 3 when a cap stops the run; docs/COST.md).
`

// newFlags builds train's flags over cfg (the settings of app.Settings that
// train binds, and -json), writing usage to stderr.
func newFlags(cfg *app.Config, stderr io.Writer) (*flag.FlagSet, *cli.Lists, *bool) {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lists := cli.Bind(fs, cfg, app.CmdTrain)
	asJSON := fs.Bool("json", false, "print the training history as JSON on stdout")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\nflags:\n", usage)
		fs.PrintDefaults()
	}
	return fs, lists, asJSON
}
