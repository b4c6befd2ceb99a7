// Command zcheck replays the walkthroughs of a set of Z-machine games
// through the trainer's in-process driver and reports, per game, how the
// episode ended (won, lost, the score and its maximum), whether the score,
// maximum and moves the driver reported equal the game's own answer to the
// score command at every step, and with -valid the recall of the valid
// actions: how often the list made before a step held the command played
// next, and the search's time per step on one machine.
//
//	go run ./cmd/zcheck -games ../shared/games/jericho
//	go run ./cmd/zcheck -games ../shared/games/jericho -valid -only zork1,lostpig
//	go run ./cmd/zcheck -games ../shared/games/jericho -valid -parallel 1   # timings on one core
//
// The walkthroughs are those of the folder's suite.json (Jericho's game
// data: seed, walkthrough, grammar) or of a TextWorld game's .json; a game
// without one is listed as such. The exit status is 1 when a game's
// walkthrough does not end won or a step's score differs from the game's.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/zmachine"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "zcheck:", err)
	}
	os.Exit(code)
}

type options struct {
	games    string
	only     []string
	valid    bool
	every    int
	budget   int
	check    bool
	parallel int
	verbose  bool
}

// usage is what -h prints before the flags.
const usage = `usage: zcheck -games DIR [flags]

Replays every walkthrough of a game set through the in-process Z-machine
driver and checks wins, scores and valid actions.
`

// newFlags binds zcheck's flags to o; -only's raw list goes to only.
func newFlags(o *options, only *string) *flag.FlagSet {
	fs := flag.NewFlagSet("zcheck", flag.ContinueOnError)
	fs.StringVar(&o.games, "games", "", "a story file or a `folder` of them (with suite.json: Jericho's walkthroughs)")
	fs.StringVar(only, "only", "", "comma-separated game names to replay (default: every game with a walkthrough)")
	fs.BoolVar(&o.valid, "valid", false, "measure the valid actions' recall and time at every step")
	fs.IntVar(&o.budget, "valid-budget", 0, "with -valid, the instructions one search may spend (0: the driver's default, -1: no bound)")
	fs.IntVar(&o.every, "valid-every", 1, "with -valid, measure at every `N`th step only (a quicker estimate)")
	fs.BoolVar(&o.check, "check", true, "compare the score, maximum and moves with the game's own answer at every step")
	fs.IntVar(&o.parallel, "parallel", runtime.GOMAXPROCS(0), "games replayed at once (1 for timings on one core)")
	fs.BoolVar(&o.verbose, "v", false, "print each game's score differences and missed commands")
	return fs
}

func parse(args []string, stderr io.Writer) (options, error) {
	o := options{}
	only := new(string)
	fs := newFlags(&o, only)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\nflags:\n", usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (flags only)", fs.Arg(0))
	}
	if o.games == "" {
		return o, fmt.Errorf("-games is required (a folder of story files, e.g. ../shared/games/jericho)")
	}
	if o.parallel < 1 {
		return o, fmt.Errorf("-parallel %d: want at least 1", o.parallel)
	}
	if *only != "" {
		for _, n := range strings.Split(*only, ",") {
			if n = strings.TrimSpace(n); n != "" {
				o.only = append(o.only, n)
			}
		}
	}
	return o, nil
}

// outcome is one game's replay.
type outcome struct {
	game string
	res  zmachine.ReplayResult
	err  error
	walk bool // the game has a walkthrough
	// source is where the driver reads the game's score.
	source string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	o, err := parse(args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0, nil
		}
		return 2, err
	}
	if o.valid && o.parallel > 1 {
		fmt.Fprintf(stderr, "zcheck: %d games at once: the valid actions' times include waiting for a core (-parallel 1 for times on one core)\n", o.parallel)
	}
	s, err := zmachine.NewSuite(ctx, zmachine.Config{MaxSteps: 1 << 30, ValidBudget: o.budget}, o.games)
	if err != nil {
		return 2, err
	}
	tasks, err := s.Tasks(envbridge.SplitTrain)
	if err != nil {
		return 2, err
	}
	var todo []envbridge.Task
	for _, t := range tasks {
		if len(o.only) == 0 || slices.Contains(o.only, t.Type) || slices.Contains(o.only, filepath.Base(t.Type)) {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return 2, fmt.Errorf("no game of %s matches -only %s", o.games, strings.Join(o.only, ","))
	}
	outs := make([]outcome, len(todo))
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.parallel)
	for i, t := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t0 := time.Now()
			outs[i] = replay(ctx, s, t, o)
			if o.valid {
				fmt.Fprintf(stderr, "zcheck: %s done in %.1f s\n", t.Type, time.Since(t0).Seconds())
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 130, err
	}
	return report(stdout, outs, o), nil
}

func replay(ctx context.Context, s *zmachine.Suite, t envbridge.Task, o options) outcome {
	out := outcome{game: t.Type, source: s.ScoreSource(t.ID)}
	walk := s.Walkthrough(t.ID)
	if len(walk) == 0 {
		return out
	}
	out.walk = true
	env, err := s.OpenEnv(ctx)
	if err != nil {
		out.err = err
		return out
	}
	defer env.Close()
	out.res, out.err = zmachine.Replay(ctx, env, t, walk, zmachine.ReplayOptions{Check: o.check, Valid: o.valid, ValidEvery: o.every})
	return out
}

// report prints the table and returns the exit status.
func report(w io.Writer, outs []outcome, o options) int {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	head := "game\tplayed\tend\tscore\tmax\tmoves\tchecked\tdiffer\t"
	if o.valid {
		head += "tree steps\tlisted %\tmatched %\tacts\tmatched %\tempty\tmedian ms\tmax ms\tcpu median\tcpu max\t"
	}
	fmt.Fprintln(tw, head)
	status := 0
	var all zmachine.Recall
	var won, games int
	for _, g := range outs {
		if !g.walk {
			fmt.Fprintf(tw, "%s\t-\tno walkthrough\t\t\t\t\t\t\n", g.game)
			continue
		}
		games++
		if g.err != nil {
			status = 1
			fmt.Fprintf(tw, "%s\t%d/%d\terror\t\t\t\t\t\t\n", g.game, g.res.Played, g.res.Planned)
			continue
		}
		r := g.res
		end := "not done"
		switch {
		case r.Last.Won:
			end = "won"
			won++
		case r.Last.Lost:
			end = "lost"
		case r.Last.Truncated:
			end = "truncated"
		case r.Last.Done:
			end = "ended"
		}
		if !r.Last.Won || len(r.Mismatches) > 0 {
			status = 1
		}
		moves := "-"
		if r.MovesKnown {
			moves = fmt.Sprint(r.Moves)
		}
		line := fmt.Sprintf("%s\t%d/%d\t%s\t%v\t%v\t%s\t%d\t%d\t", g.game, r.Played, r.Planned, end, r.Last.Score, r.Last.MaxScore, moves, r.Checked, len(r.Mismatches))
		if o.valid {
			line += recallCells(r.Recall)
			all.Add(r.Recall)
		}
		fmt.Fprintln(tw, line)
	}
	if o.valid {
		fmt.Fprintf(tw, "all %d games\t\t%d won\t\t\t\t\t\t%s\n", games, won, recallCells(all))
	} else {
		fmt.Fprintf(tw, "all %d games\t\t%d won\t\t\t\t\t\t\n", games, won)
	}
	tw.Flush()
	for _, g := range outs {
		if g.err != nil {
			fmt.Fprintf(w, "%s: %v\n", g.game, g.err)
		}
	}
	if o.verbose {
		for _, g := range outs {
			fmt.Fprintf(w, "%s: score from %s\n", g.game, g.source)
			for _, m := range g.res.Mismatches {
				fmt.Fprintf(w, "%s: %s\n", g.game, m)
			}
			for _, m := range g.res.Recall.Misses {
				fmt.Fprintf(w, "%s: missed %s\n", g.game, m)
			}
		}
	}
	if o.valid && len(all.Times) > 0 {
		fmt.Fprintf(w, "valid actions: %d steps, %.1f candidates tried per step; tree-changing steps %d: listed %.1f %%, matched %.1f %%; empty where the walkthrough acts: %d; time per step median %.1f ms, slowest %.1f ms (CPU: median %.1f ms, slowest %.1f ms)\n",
			all.Steps, float64(all.Candidates)/float64(max(all.Steps, 1)), all.TreeSteps, pct(all.TreeListed, all.TreeSteps), pct(all.TreeMatched, all.TreeSteps), all.EmptyActs,
			ms(quantile(all.Times, 0.5)), ms(quantile(all.Times, 1)), ms(quantile(all.CPUTimes, 0.5)), ms(quantile(all.CPUTimes, 1)))
		fmt.Fprintf(w, "instructions per search (the extra walkthrough command's included): median %d, slowest %d\n", quantileU(all.Instructions, 0.5), quantileU(all.Instructions, 1))
	}
	return status
}

func recallCells(r zmachine.Recall) string {
	return fmt.Sprintf("%d\t%.1f\t%.1f\t%d\t%.1f\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t", r.TreeSteps, pct(r.TreeListed, r.TreeSteps), pct(r.TreeMatched, r.TreeSteps),
		r.ActSteps, pct(r.ActMatched, r.ActSteps), r.EmptyActs, ms(quantile(r.Times, 0.5)), ms(quantile(r.Times, 1)),
		ms(quantile(r.CPUTimes, 0.5)), ms(quantile(r.CPUTimes, 1)))
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// quantile is the q-quantile of ds (0.5 the median, 1 the largest; the
// lower of the two middle values for an even count).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(q * float64(len(s)-1))
	return s[k]
}

// quantileU is quantile for counts.
func quantileU(xs []uint64, q float64) uint64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}
