// Command play plays one task of any environment (household, zmachine,
// jsonl, agentgym) through the same drivers and configuration (package app)
// the trainer uses: interactively in a terminal, or scripted with -commands
// FILE or -walkthrough (the task's own winning commands), and with -json
// one JSON object per step. A scripted episode plays the whole script
// unless -max-steps sets a step limit. See docs/USAGE.md and `play -h`.
package main

import (
	"bufio"
	"context"
	"encoding/json"

	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/cmd/internal/cli"
	"github.com/samem/trainer/envbridge"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// stepRecord is one line of -json output; step 0 is the opening.
type stepRecord struct {
	Step        int      `json:"step"`
	Action      string   `json:"action"`
	Observation string   `json:"observation"`
	Reward      float64  `json:"reward"`
	Score       float64  `json:"score"`
	MaxScore    float64  `json:"max_score"`
	Done        bool     `json:"done"`
	Won         bool     `json:"won"`
	Lost        bool     `json:"lost"`
	Truncated   bool     `json:"truncated"`
	Moves       *int     `json:"moves,omitempty"` // the game's own move counter, where the driver reads one
	Admissible  []string `json:"admissible,omitempty"`
}

// mover is an Env that reads the game's own move counter (zmachine).
type mover interface{ Moves() (int, bool) }

// scorer is an Env that tells its score before the first step (zmachine).
type scorer interface{ Score() (score, max float64) }

// walkthroughs is a suite that knows its tasks' winning commands
// (zmachine: Jericho's suite.json beside the games, TextWorld's .json).
type walkthroughs interface{ Walkthrough(taskID string) []string }

// maxCommandBytes bounds one line of a -commands file.
const maxCommandBytes = 64 << 10

// usage is what -h prints before the flags.
const usage = `usage: play [flags]

Plays one task of an environment through the trainer's own drivers:
interactively, or scripted with -commands FILE (and -json).
`

// options are play's flags that are not part of the configuration.
type options struct {
	split, taskID string
	list          bool
	commands      string // a file of commands, "-" for stdin
	walk          bool   // the task's own walkthrough
	limited       bool   // -max-steps was given
	asJSON        bool
}

// newFlags defines play's flags on a new FlagSet, filling cfg and o.
// Parsing and playing stay in run.
func newFlags(cfg *app.Config, o *options) *flag.FlagSet {
	fset := flag.NewFlagSet("play", flag.ContinueOnError)
	cli.Bind(fset, cfg, app.CmdPlay)
	fset.StringVar(&o.split, "split", envbridge.SplitTrain, "split the task is taken from")
	fset.StringVar(&o.taskID, "task", "", "task ID to play (default: the first task of -split; -list shows them)")
	fset.BoolVar(&o.list, "list", false, "list the tasks of -split and exit")
	fset.StringVar(&o.commands, "commands", "", "play the actions of `FILE`, one per line (blank lines and lines starting with # are skipped; - is stdin), instead of reading them interactively; the whole file unless -max-steps is given")
	fset.BoolVar(&o.walk, "walkthrough", false, "play the task's own walkthrough (zmachine: Jericho's suite.json beside the game, or a TextWorld game's .json), every command, unless -max-steps is given")
	fset.BoolVar(&o.asJSON, "json", false, "print one JSON object per step (step, action, observation, reward, score, max_score, done, won, lost, truncated, moves, admissible)")
	fset.Usage = func() {
		fmt.Fprintf(fset.Output(), "%s\nflags:\n", usage)
		fset.PrintDefaults()
	}
	return fset
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg := app.Defaults()
	var o options
	fset := newFlags(&cfg, &o)
	fset.SetOutput(stderr)
	if err := cli.Parse(fset, args, app.CmdPlay); err != nil {
		return cli.ParseCode(err)
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "play: unexpected argument %q (flags only; see play -h)\n", fset.Arg(0))
		return cli.ExitUsage
	}
	if err := validateEnv(&cfg); err != nil {
		return cli.Code(err, stderr, "play")
	}
	if o.walk && o.commands != "" {
		fmt.Fprintln(stderr, "play: -walkthrough and -commands both give the commands; use one")
		return cli.ExitUsage
	}
	fset.Visit(func(f *flag.Flag) { o.limited = o.limited || f.Name == "max-steps" })
	ctx, _, stop := cli.Signals(ctx, stderr)
	defer stop()
	err := play(ctx, cfg, o, stdin, stdout, stderr)
	return cli.Code(err, stderr, "play")
}

// validateEnv checks the environment part of the configuration with the
// trainer's own rules.
func validateEnv(cfg *app.Config) error {
	c := app.Defaults()
	c.Env, c.Seed = cfg.Env, cfg.Seed
	return c.Validate()
}

func play(ctx context.Context, cfg app.Config, o options, stdin io.Reader, stdout, stderr io.Writer) error {
	split, taskID, list, commands, asJSON := o.split, o.taskID, o.list, o.commands, o.asJSON
	suite, err := app.NewSuite(ctx, cfg.Env, cfg.Seed)
	if err != nil {
		return err
	}
	if c, ok := suite.(io.Closer); ok {
		defer c.Close()
	}
	tasks, err := suite.Tasks(split)
	if err != nil {
		return fmt.Errorf("%w: -split %q: %v (splits: %s)", app.ErrConfig, split, err, strings.Join(suite.Splits(), ", "))
	}
	if list {
		for _, t := range tasks {
			fmt.Fprintf(stdout, "%s\t%s\n", t.ID, t.Goal)
		}
		return nil
	}
	if len(tasks) == 0 {
		return fmt.Errorf("%w: -split %q has no tasks", app.ErrConfig, split)
	}
	task := tasks[0]
	if taskID != "" {
		found := false
		for _, t := range tasks {
			if t.ID == taskID {
				task, found = t, true
				break
			}
		}
		if !found {
			return fmt.Errorf("%w: -task %q: not in split %s (play -list shows the tasks)", app.ErrConfig, taskID, split)
		}
	}
	var in *bufio.Scanner
	interactive := commands == "" && !o.walk
	var script []string // the walkthrough's commands, empty ones included
	switch {
	case o.walk:
		ws, ok := suite.(walkthroughs)
		if ok {
			script = ws.Walkthrough(task.ID)
		}
		if len(script) == 0 {
			return fmt.Errorf("%w: -walkthrough: task %s has no walkthrough (zmachine: suite.json beside the game, or a TextWorld .json)", app.ErrConfig, task.ID)
		}
		commands = "the walkthrough"
		in = bufio.NewScanner(strings.NewReader(""))
	case commands == "" || commands == "-":
		in = bufio.NewScanner(stdin)
	default:
		f, err := os.Open(commands)
		if err != nil {
			return fmt.Errorf("%w: -commands: %v", app.ErrConfig, err)
		}
		defer f.Close()
		in = bufio.NewScanner(f)
	}
	in.Buffer(make([]byte, 4096), maxCommandBytes)

	// A script is played to its end unless a step limit is given (the
	// environment's default limit is training's and evaluation's).
	if !interactive && !o.limited {
		task.MaxSteps = math.MaxInt32
	}
	env, err := suite.Open(ctx)
	if err != nil {
		return err
	}
	defer env.Close()
	obs, err := env.Reset(ctx, task)
	if err != nil {
		return err
	}
	out := &printer{w: stdout, json: asJSON, env: env}
	if !asJSON {
		fmt.Fprintf(stdout, "task %s: %s\n\n", task.ID, task.Goal)
	}
	first := stepRecord{Observation: obs.Text, Admissible: obs.Admissible}
	if sc, ok := env.(scorer); ok {
		first.Score, first.MaxScore = sc.Score()
	}
	if err := out.print(first); err != nil {
		return err
	}
	step, pos := 0, 0
	next := func() (string, bool) {
		if o.walk {
			if pos >= len(script) {
				return "", false
			}
			pos++
			return script[pos-1], true
		}
		for in.Scan() {
			action := strings.TrimSpace(in.Text())
			if interactive || action != "" && !strings.HasPrefix(action, "#") {
				return action, true
			}
		}
		return "", false
	}
	for {
		if interactive && !asJSON {
			fmt.Fprint(stdout, "> ")
		}
		action, ok := next()
		if !ok {
			if err := in.Err(); err != nil {
				return fmt.Errorf("read commands: %w", err)
			}
			return nil
		}
		step++
		res, err := env.Step(ctx, action)
		if err != nil {
			return fmt.Errorf("step %d %q: %w", step, action, err)
		}
		rec := stepRecord{Step: step, Action: action, Observation: res.Text, Reward: res.Reward,
			Score: res.Score, MaxScore: res.MaxScore, Done: res.Done, Won: res.Won, Lost: res.Lost,
			Truncated: res.Truncated, Admissible: res.Admissible}
		if err := out.print(rec); err != nil {
			return err
		}
		if res.Done {
			if !interactive {
				left := 0
				for _, ok := next(); ok; _, ok = next() {
					left++
				}
				if left > 0 {
					fmt.Fprintf(stderr, "play: the episode ended at step %d; %d command(s) of %s not played\n", step, left, commands)
				}
			}
			return nil
		}
	}
}

type printer struct {
	w    io.Writer
	json bool
	env  envbridge.Env
}

func (p *printer) print(r stepRecord) error {
	if m, ok := p.env.(mover); ok {
		if n, ok := m.Moves(); ok {
			r.Moves = &n
		}
	}
	if p.json {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(p.w, "%s\n", b)
		return err
	}
	var b strings.Builder
	b.WriteString(r.Observation)
	b.WriteString("\n")
	if r.Admissible != nil {
		fmt.Fprintf(&b, "[valid actions: %s]\n", strings.Join(r.Admissible, ", "))
	}
	if r.Step > 0 || r.Score != 0 || r.MaxScore != 0 {
		fmt.Fprintf(&b, "[score %v of %v, reward %v", r.Score, r.MaxScore, r.Reward)
		if r.Moves != nil {
			fmt.Fprintf(&b, ", moves %d", *r.Moves)
		}
		b.WriteString("]\n")
	}
	switch {
	case r.Won:
		b.WriteString("[the episode is over: won]\n")
	case r.Lost:
		b.WriteString("[the episode is over: lost]\n")
	case r.Truncated:
		b.WriteString("[the episode is over: step limit]\n")
	case r.Done:
		b.WriteString("[the episode is over]\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(p.w, b.String())
	return err
}
