// Package cli holds what cmd/train and cmd/eval share: their flags, the
// environment variables they read (OPENAI_API_KEY, OPENAI_BASE_URL), signal
// handling and the mapping of errors to exit codes.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/samem/trainer/app"
)

// Bind defines on fs the flags of the settings that cmd binds, from the
// table of settings (app.Settings), each filling its field of cfg; and,
// for the commands that run methods, -config, an experiment file (see
// Parse). The FlagSet can be built this way without running the command.
func Bind(fs *flag.FlagSet, cfg *app.Config, cmd app.Command) *Lists {
	for _, s := range app.SettingsOf(cmd) {
		switch p := s.Field(cfg).(type) {
		case *int:
			fs.IntVar(p, s.Flag, *p, s.Usage)
		case *int64:
			fs.Int64Var(p, s.Flag, *p, s.Usage)
		case *bool:
			fs.BoolVar(p, s.Flag, *p, s.Usage)
		case *float64:
			fs.Float64Var(p, s.Flag, *p, s.Usage)
		case *string:
			fs.StringVar(p, s.Flag, *p, s.Usage)
		case *time.Duration:
			fs.DurationVar(p, s.Flag, *p, s.Usage)
		case flag.Value:
			fs.Var(p, s.Flag, s.Usage)
		default:
			panic(fmt.Sprintf("setting -%s: field of type %T", s.Flag, p))
		}
	}
	if cmd&(app.CmdTrain|app.CmdEval|app.CmdSweep) != 0 {
		fs.String(ConfigFlag, "", "experiment `file` (.toml or .json): settings as top-level keys named as the flags (eval's -per-type is eval-per-type), e.g. alpha = 0.1; flags given on the command line override it")
	}
	return &Lists{cfg: cfg}
}

// Lists finishes the settings that depend on others after parsing.
type Lists struct {
	cfg *app.Config
}

// Finish expands the keywords of -method and reads the OPENAI_*
// environment variables. For train, "all" is every registered method but
// the ablation variants; for eval, every method with a checkpoint in the
// run and the baselines.
func (l *Lists) Finish(forEval bool) {
	// -method all takes the methods that fit the environment; a method
	// named on its own that cannot run there is refused.
	l.cfg.FitOnly = slices.Contains(l.cfg.Methods, "all") || slices.Contains(l.cfg.Methods, app.AblationsKeyword)
	l.cfg.Methods = expandMethods(l.cfg.Methods, l.cfg.Run, forEval)
	// Secrets and endpoints come from the environment, read here only.
	l.cfg.LLM.APIKey = os.Getenv("OPENAI_API_KEY")
	if len(l.cfg.LLM.ChatURLs) == 0 {
		if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
			l.cfg.LLM.ChatURLs = []string{u}
		}
	}
}

// Signals returns a context cancelled on a second SIGINT or SIGTERM, and a
// channel closed on the first: the first asks for a graceful stop (running
// episodes finish, a checkpoint is saved), the second cuts episodes short
// (a checkpoint is still saved).
func Signals(parent context.Context, stderr io.Writer) (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(parent)
	stop := make(chan struct{})
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		n := 0
		for {
			select {
			case s := <-sig:
				n++
				if n == 1 {
					fmt.Fprintf(stderr, "\n%v: finishing running episodes and saving a checkpoint (again to stop at once)\n", s)
					close(stop)
				} else {
					fmt.Fprintf(stderr, "\n%v: stopping now, saving a checkpoint\n", s)
					cancel()
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return ctx, stop, func() { signal.Stop(sig); cancel() }
}

// IsTTY reports whether w is a terminal (progress bars are drawn only there).
func IsTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// SavedDefaults is the configuration eval and sweep start from: the saved
// config.json of the run that args name with -run (or the experiment file
// of -config names; else the default run), so that they use the
// environment and model of training, or def when the run has none.
// Workers, split and task count are never taken from the saved file. The
// experiment file and the flags, parsed afterwards, override all of it.
func SavedDefaults(args []string, def app.Config) (app.Config, error) {
	saved, err := app.LoadConfig(RunFlag(args, def.Run))
	if errors.Is(err, fs.ErrNotExist) {
		return def, nil
	}
	if err != nil {
		return def, err
	}
	saved.Workers, saved.Split, saved.Tasks, saved.EvalPerType = def.Workers, def.Split, def.Tasks, def.EvalPerType
	return saved, nil
}

// RunFlag finds -run's value before flags are parsed: in args, else in the
// experiment file -config names; def when neither has it.
func RunFlag(args []string, def string) string {
	if run, ok := flagValue(args, "run"); ok {
		return run
	}
	if path, ok := flagValue(args, ConfigFlag); ok && path != "" {
		if vals, err := ReadExperiment(path); err == nil {
			if run, ok := vals["run"]; ok {
				return run
			}
		}
	}
	return def
}

// flagValue finds the last value of flag name in args, before parsing.
func flagValue(args []string, name string) (string, bool) {
	val, found := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case a == "-"+name || a == "--"+name:
			if i+1 < len(args) {
				val, found = args[i+1], true
				i++
			}
		case strings.HasPrefix(a, "-"+name+"="):
			val, found = strings.TrimPrefix(a, "-"+name+"="), true
		case strings.HasPrefix(a, "--"+name+"="):
			val, found = strings.TrimPrefix(a, "--"+name+"="), true
		}
	}
	return val, found
}

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
	// ExitBudget: training stopped, with a checkpoint, before -budget or
	// -max-requests would be crossed; a higher cap goes on.
	ExitBudget      = 3
	ExitInterrupted = 130
)

// ParseCode is the exit code of a failed flag.Parse: 0 for -h (the usage was
// printed), else ExitUsage (the flag package printed what was wrong).
func ParseCode(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	return ExitUsage
}

// Code maps a command's error to its exit code and prints it.
func Code(err error, stderr io.Writer, name string) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.Is(err, app.ErrBudget):
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitBudget
	case app.IsInterrupted(err):
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitInterrupted
	case errors.Is(err, app.ErrConfig):
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return ExitError
}

// DryRun runs cmd's -dry-run (app.DryRun) and prints its estimates on
// stdout, as a table or one JSON object per method; it returns the exit
// code.
func DryRun(ctx context.Context, cfg app.Config, cmd app.Command, asJSON bool, stdout, stderr io.Writer) int {
	name := "train"
	if cmd == app.CmdEval {
		name = "eval"
	}
	est, err := app.DryRun(ctx, cfg, cmd, stderr)
	if len(est) > 0 {
		if asJSON {
			enc := json.NewEncoder(stdout)
			for _, e := range est {
				enc.Encode(e)
			}
		} else {
			app.PrintEstimates(stdout, cfg.Resolved(), cmd, est)
		}
	}
	return Code(err, stderr, name)
}

// Elapsed formats a duration for the end of a run.
func Elapsed(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }

// expandMethods expands the keywords of -method and drops repeats, keeping
// the first place of each name.
func expandMethods(names []string, run string, forEval bool) []string {
	var out []string
	seen := map[string]bool{}
	add := func(ms ...string) {
		for _, m := range ms {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	for _, m := range names {
		switch {
		case m == "all" && forEval:
			add(app.EvalAll(run)...)
		case m == "all":
			add(app.MainMethods(false)...)
		case m == app.AblationsKeyword:
			add(app.AblationMethods()...)
		default:
			add(m)
		}
	}
	return out
}
