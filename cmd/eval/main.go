// Command eval evaluates trained memory methods on held-out tasks with
// frozen memory, beside the no-memory baseline, and writes per-episode
// results (Parquet), trajectories and a summary to the run directory.
// See the README and `eval -h`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/cmd/internal/cli"
)

// usage is what -h prints before the flags.
const usage = `usage: eval [flags]

Evaluates the methods trained in -run (and the no-memory baseline) on held-out tasks with frozen memory.
Defaults come from the run's config.json; an experiment file (-config) and the flags override them.
`

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// The run's saved configuration gives the defaults (the same environment
	// and model as training); flags override it.
	cfg, err := cli.SavedDefaults(args, app.Defaults())
	if err != nil {
		return cli.Code(err, stderr, "eval")
	}
	// By default: every method trained in the run (several train calls may
	// have added methods), then the no-memory baseline.
	if trained := app.TrainedMethods(cfg.Run); len(trained) > 0 {
		cfg.Methods = trained
	}
	cfg.Methods = append(cfg.Methods, baseline.NoMemoryName)
	fset, lists, reportOnly, asJSON := newFlags(&cfg, stderr)
	if err := cli.Parse(fset, args, app.CmdEval); err != nil {
		return cli.ParseCode(err)
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "eval: unexpected argument %q (flags only; see eval -h)\n", fset.Arg(0))
		return cli.ExitUsage
	}
	lists.Finish(true)
	if cfg.MaxErrors < 0 {
		return cli.Code(&app.SettingError{Flag: "max-errors", Reason: fmt.Sprintf("%d: want 0 or more", cfg.MaxErrors)}, stderr, "eval")
	}
	if *reportOnly {
		dir, _, err := app.EvalDir(cfg)
		if err != nil {
			return cli.Code(err, stderr, "eval")
		}
		files, err := app.WriteReport(cfg.Run, filepath.Base(dir))
		for _, f := range files {
			fmt.Fprintln(stdout, f)
		}
		return cli.Code(err, stderr, "eval")
	}
	// The key now lives in the configuration only: children (environment
	// programs, interpreters, planners) must not inherit it.
	os.Unsetenv("OPENAI_API_KEY")
	ctx, stop, release := cli.Signals(ctx, stderr)
	defer release()
	if cfg.DryRun {
		return cli.DryRun(ctx, cfg, app.CmdEval, *asJSON, stdout, stderr)
	}
	began := time.Now()
	res, err := app.Eval(ctx, cfg, app.Streams{Out: stdout, Err: stderr, TTY: cli.IsTTY(stderr), Stop: stop})
	if len(res) > 0 {
		if *asJSON {
			enc := json.NewEncoder(stdout)
			for _, r := range res {
				enc.Encode(r)
			}
		} else {
			if note := app.ResultsNote(cfg); note != "" {
				fmt.Fprintln(stdout, note)
			}
			if note := app.OnlineNote(res); note != "" {
				fmt.Fprintln(stdout, note)
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			app.PrintTable(tw, res)
			fmt.Fprintln(stdout)
			app.PrintByType(tw, res, false)
			fmt.Fprintln(stdout)
			app.PrintPaired(tw, res)
			if slices.ContainsFunc(res, func(r app.EvalResult) bool { return strings.HasPrefix(r.Method, "clin") }) {
				fmt.Fprintln(stdout)
				app.PrintCLINTable2(tw, res)
			}
			if cfg.Env.Kind != app.EnvHousehold {
				// Scored environments: SR and AR as seed 002 Table 1, and
				// the normalised score per game (seed 000 Sec. 4.1).
				fmt.Fprintln(stdout)
				app.PrintTable1(tw, res)
				fmt.Fprintln(stdout)
				app.PrintByType(tw, res, true)
			}
		}
	}
	if err == nil {
		fmt.Fprintf(stderr, "evaluated in %s\n", cli.Elapsed(time.Since(began)))
	}
	return cli.Code(err, stderr, "eval")
}

// newFlags builds eval's flags over cfg (the settings of app.Settings that
// eval binds, -report-only and -json), writing usage to stderr.
func newFlags(cfg *app.Config, stderr io.Writer) (fset *flag.FlagSet, lists *cli.Lists, reportOnly, asJSON *bool) {
	fset = flag.NewFlagSet("eval", flag.ContinueOnError)
	fset.SetOutput(stderr)
	lists = cli.Bind(fset, cfg, app.CmdEval)
	reportOnly = fset.Bool("report-only", false, "only redraw the report from the saved results of -split and the other flags (<run>/report, or <run>/report/<split-overrides> with overrides; no evaluation)")
	asJSON = fset.Bool("json", false, "print one JSON object per method on stdout (method, split, tasks, success_rate, avg_score, spl, avg_steps, tokens, ...)")
	fset.Usage = func() {
		fmt.Fprintf(fset.Output(), "%s\nflags:\n", usage)
		fset.PrintDefaults()
	}
	return fset, lists, reportOnly, asJSON
}
