// Command sweep trains and evaluates SAMem once per similarity threshold
// (seed 002 Fig. 7 for states, Fig. 9 for thoughts), each in a sub-run
// <run>/sweep/<param>-<value>/, records success and memory size per value
// in <run>/sweep/sweep.json, and redraws the run's report. See `sweep -h`.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/cli"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// usage is what -h prints before the flags.
const usage = `usage: sweep [flags]

Trains and evaluates SAMem once per similarity threshold in sub-runs of -run, records success
and memory size per threshold in <run>/sweep/sweep.json and redraws <run>/report.

Grid mode (-world-seeds and/or -seeds): trains and evaluates SAMem and the no-memory baseline
over world seeds x run seeds x -per-type sizes, each in <run>/grid/w<W>-s<S>-p<P>, and prints
one table: per (size, world seed) SAMem's mean and lowest success over the run seeds, the
no-memory mean and the margin; then per size the mean and its change from the previous size.
`

// options are sweep's flags that are not part of the configuration.
type options struct {
	perType, worldSeeds, runSeeds, param, values string
	ablations, asJSON                            bool
}

// newFlags defines sweep's flags on a new FlagSet, filling cfg and o.
// Parsing and running stay in run.
func newFlags(cfg *app.Config, o *options) (*flag.FlagSet, *cli.Lists) {
	fset := flag.NewFlagSet("sweep", flag.ContinueOnError)
	lists := cli.Bind(fset, cfg, app.CmdSweep)
	perType := strconv.Itoa(cfg.PerType)
	if cfg.PerType == app.PerTypeEnvDefault {
		perType = "env"
	}
	fset.StringVar(&o.perType, "per-type", perType, "training tasks per task type; 0 uses every training task, env the environment's paper's (5, ScienceWorld 3); with -world-seeds or -seeds a list (1,5,20,0)")
	fset.StringVar(&o.worldSeeds, "world-seeds", "", "grid mode: household world seeds, e.g. 1-10 or -5,13,1234")
	fset.StringVar(&o.runSeeds, "seeds", "", "grid mode: run seeds, e.g. 1-5")
	fset.BoolVar(&o.ablations, "ablations", false, "grid mode: also train samem-no-decay and samem-no-forgetting in every cell")
	fset.StringVar(&o.param, "param", app.SweepThreshold, "parameter to sweep: threshold (state clustering, Fig. 7) or thought-threshold (Fig. 9)")
	fset.StringVar(&o.values, "thresholds", "0.7,0.8,0.85,0.9,0.95", "threshold values, comma-separated cosine similarities in (0, 1]")
	fset.BoolVar(&o.asJSON, "json", false, "print the sweep's points as JSON on stdout")
	fset.Usage = func() {
		fmt.Fprintf(fset.Output(), "%s\nflags:\n", usage)
		fset.PrintDefaults()
	}
	return fset, lists
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Like eval: the run's saved configuration gives the defaults, so that
	// the sweep uses the run's environment, model and schedule.
	cfg, err := cli.SavedDefaults(args, app.Defaults())
	if err != nil {
		return cli.Code(err, stderr, "sweep")
	}
	var o options
	fset, lists := newFlags(&cfg, &o)
	fset.SetOutput(stderr)
	if err := cli.Parse(fset, args, app.CmdSweep); err != nil {
		return cli.ParseCode(err)
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "sweep: unexpected argument %q (flags only; see sweep -h)\n", fset.Arg(0))
		return cli.ExitUsage
	}
	lists.Finish(false)
	var sizes []int64
	if strings.TrimSpace(o.perType) == "env" {
		sizes = []int64{int64(cfg.Resolved().PerType)}
	} else {
		sizes, err = app.ParseSeedList(o.perType)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sweep: -per-type: %v\n", err)
		return cli.ExitUsage
	}
	if o.worldSeeds != "" || o.runSeeds != "" {
		return runGrid(ctx, cfg, o.worldSeeds, o.runSeeds, sizes, o.ablations, o.asJSON, stdout, stderr)
	}
	if len(sizes) != 1 {
		fmt.Fprintf(stderr, "sweep: -per-type: a list of sizes needs grid mode (-world-seeds or -seeds)\n")
		return cli.ExitUsage
	}
	cfg.PerType = int(sizes[0])
	vs, err := parseValues(o.values)
	if err != nil {
		fmt.Fprintf(stderr, "sweep: -thresholds: %v\n", err)
		return cli.ExitUsage
	}
	ctx, stop, release := cli.Signals(ctx, stderr)
	defer release()
	began := time.Now()
	pts, err := app.Sweep(ctx, app.SweepConfig{Base: cfg, Param: o.param, Values: vs}, app.Streams{Out: stdout, Err: stderr, TTY: cli.IsTTY(stderr), Stop: stop})
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		for _, p := range pts {
			enc.Encode(p)
		}
	} else {
		if note := app.ResultsNote(cfg); note != "" && len(pts) > 0 {
			fmt.Fprintln(stdout, note)
		}
		for _, p := range pts {
			fmt.Fprintf(stdout, "%s %.2f: success %.3f, avg score %.3f, states %d, thoughts %d, entries %d\n", p.Param, p.Value, p.SuccessRate, p.AvgScore, p.States, p.Thoughts, p.Entries)
		}
	}
	if err == nil {
		fmt.Fprintf(stderr, "swept in %s\n", cli.Elapsed(time.Since(began)))
	}
	return cli.Code(err, stderr, "sweep")
}

func parseValues(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("no value given")
	}
	return out, nil
}

// runGrid is grid mode: world seeds x run seeds x training-set sizes.
func runGrid(ctx context.Context, cfg app.Config, worlds, seeds string, sizes []int64, ablations, asJSON bool, stdout, stderr io.Writer) int {
	g := app.GridConfig{Base: cfg, Ablations: ablations}
	var err error
	if worlds == "" {
		g.WorldSeeds = []int64{cfg.Env.WorldSeed}
	} else if g.WorldSeeds, err = app.ParseSeedList(worlds); err != nil {
		fmt.Fprintf(stderr, "sweep: -world-seeds: %v\n", err)
		return cli.ExitUsage
	}
	if seeds == "" {
		g.Seeds = []int64{cfg.Seed}
	} else if g.Seeds, err = app.ParseSeedList(seeds); err != nil {
		fmt.Fprintf(stderr, "sweep: -seeds: %v\n", err)
		return cli.ExitUsage
	}
	for _, p := range sizes {
		if p < 0 {
			fmt.Fprintf(stderr, "sweep: -per-type: %d: want a count >= 0 (0: every training task)\n", p)
			return cli.ExitUsage
		}
		g.PerTypes = append(g.PerTypes, int(p))
	}
	ctx, stop, release := cli.Signals(ctx, stderr)
	defer release()
	began := time.Now()
	total := 0
	for k := range len(g.WorldSeeds) * len(g.Seeds) * len(g.PerTypes) {
		if cfg.Shard.Takes(k) {
			total++
		}
	}
	n := 0
	enc := json.NewEncoder(stdout)
	pts, err := app.Grid(ctx, g, app.Streams{Out: stdout, Err: stderr, TTY: cli.IsTTY(stderr), Stop: stop}, func(p app.GridPoint) {
		n++
		fmt.Fprintf(stderr, "grid %d/%d: world %d seed %d per-type %d: samem %.3f, nomemory %.3f (%s)\n", n, total, p.WorldSeed, p.Seed, p.PerType, p.Success["samem"], p.Success["nomemory"], cli.Elapsed(time.Since(began)))
		if asJSON {
			enc.Encode(p)
		}
	})
	if !asJSON && len(pts) > 0 {
		var abl []string
		if ablations {
			abl = g.GridMethods()[1:]
		}
		if note := app.ResultsNote(g.Base); note != "" {
			fmt.Fprintln(stdout, note)
		}
		app.WriteGridTable(stdout, pts, abl)
	}
	if err == nil {
		fmt.Fprintf(stderr, "swept %d runs in %s\n", len(pts), cli.Elapsed(time.Since(began)))
		if cfg.Shard.Active() {
			fmt.Fprintf(stderr, "part %s of the grid: when every part is done, go run ./cmd/merge -run %s\n", cfg.Shard.String(), cfg.Run)
		}
	}
	return cli.Code(err, stderr, "sweep")
}
