// Package cli holds what cmd/train and cmd/eval share: their flags, the
// environment variables they read (OPENAI_API_KEY, OPENAI_BASE_URL), signal
// handling and the mapping of errors to exit codes.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/samem/trainer/app"
)

// Bind defines the flags shared by train and eval on fs, filling cfg.
func Bind(fs *flag.FlagSet, cfg *app.Config) *Lists {
	l := &Lists{cfg: cfg}
	fs.StringVar(&cfg.Run, "run", cfg.Run, "run `directory`: checkpoints, configuration, results and the LLM response cache go here")
	fs.Var(stringList{&l.methods}, "method", "memory method(s): a comma list; all (train: every method; eval: every method trained in -run, and the baselines) or ablations (samem and its Table 2 variants) (known: "+strings.Join(app.MethodNames(true), ", ")+")")
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "run seed: episode randomness (exploration, offline roles) derives from it")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "episodes played in parallel (default: the number of cores); 1 makes a run exactly reproducible")

	fs.StringVar(&cfg.Env.Kind, "env", cfg.Env.Kind, "environment: household (built in), zmachine (-game), jsonl (-env-cmd) or agentgym (-agentgym)")
	fs.Int64Var(&cfg.Env.WorldSeed, "world-seed", cfg.Env.WorldSeed, "household: seed of the generated world and its task splits")
	fs.StringVar(&cfg.Env.Grammar, "grammar", cfg.Env.Grammar, "household: ALFWorld action grammar, 0.3 (\"put X in/on Y\") or 0.4 (\"move X to Y\")")
	fs.IntVar(&cfg.Env.MaxSteps, "max-steps", cfg.Env.MaxSteps, "step limit of an episode (0: the environment's default: 50 household and agentgym, 100 zmachine)")
	fs.StringVar(&cfg.Env.Game, "game", cfg.Env.Game, "zmachine: a story `file` (.z3/.z5/.z8) or a folder of them, played through dfrotz")
	fs.StringVar(&cfg.Env.Command, "env-cmd", cfg.Env.Command, "jsonl: the environment program and its arguments, split on spaces and run without a shell (protocol: envbridge/jsonl/PROTOCOL.md)")
	fs.StringVar(&cfg.Env.URL, "agentgym", cfg.Env.URL, "agentgym: base `URL` of an AgentGym-style environment server")
	fs.StringVar(&cfg.Env.GymKind, "agentgym-kind", cfg.Env.GymKind, "agentgym: alfworld or sciworld")
	fs.StringVar(&cfg.Env.GymTrain, "agentgym-train", cfg.Env.GymTrain, "agentgym: server task indices of the train split, e.g. 0-99")
	fs.StringVar(&cfg.Env.GymValid, "agentgym-valid", cfg.Env.GymValid, "agentgym: server task indices of valid_unseen, e.g. 100-233")
	fs.StringVar(&cfg.Env.GymSeen, "agentgym-seen", cfg.Env.GymSeen, "agentgym: server task indices of valid_seen")

	fs.StringVar(&cfg.LLM.Backend, "llm", cfg.LLM.Backend, "model backend: offline (rule-based roles, no server), openai (any OpenAI-compatible server) or replay (answer from the response cache of an earlier openai run)")
	fs.StringVar(&cfg.LLM.ChatModel, "chat-model", cfg.LLM.ChatModel, "chat model name (openai, replay)")
	fs.StringVar(&cfg.LLM.EmbedModel, "embed-model", cfg.LLM.EmbedModel, "embedding model name (openai, replay)")
	fs.IntVar(&cfg.LLM.EmbedDim, "embed-dim", cfg.LLM.EmbedDim, "embedding dimension (seed 002 uses 1024)")
	fs.BoolVar(&cfg.LLM.SendDimensions, "send-dimensions", cfg.LLM.SendDimensions, "send -embed-dim to the server as \"dimensions\" (text-embedding-3-*)")
	fs.Var(stringList{&cfg.LLM.ChatURLs}, "chat-url", "chat server base URL(s), comma-separated; requests spread across them (default: $OPENAI_BASE_URL, else OpenAI)")
	fs.Var(stringList{&cfg.LLM.EmbedURLs}, "embed-url", "embedding server base URL(s), comma-separated (default: the chat URLs)")
	fs.DurationVar(&cfg.LLM.Timeout, "timeout", cfg.LLM.Timeout, "deadline of one model request")
	fs.IntVar(&cfg.LLM.Retries, "retries", cfg.LLM.Retries, "retries of a transient model failure (429, 5xx, timeouts), with exponential backoff")
	fs.IntVar(&cfg.LLM.Concurrency, "concurrency", cfg.LLM.Concurrency, "model requests in flight at once (0: max(8, -workers))")
	fs.Float64Var(&cfg.LLM.Temperature, "temperature", cfg.LLM.Temperature, "sampling temperature of the thinker (summariser and checker always use 0; 0 is sent as 0)")
	fs.StringVar(&cfg.LLM.Prices, "prices", cfg.LLM.Prices, "prices for cost estimates, USD per 1M tokens: model=prompt/completion,... e.g. gpt-4o-mini=0.15/0.60")
	fs.StringVar(&cfg.LLM.Cache, "cache", cfg.LLM.Cache, "response cache `file` (default <run>/llm-cache.db; off disables it)")

	fs.Var(float32Flag{&cfg.SAMem.Threshold}, "threshold", "samem: cosine similarity threshold of state clustering (default 0.85, seed 002 Sec. 4.4)")
	fs.Var(float32Flag{&cfg.SAMem.ThoughtThreshold}, "thought-threshold", "samem: cosine similarity threshold of thought clustering (default 0.85)")
	fs.BoolVar(&cfg.SAMem.NoForgetting, "no-forgetting", cfg.SAMem.NoForgetting, "samem: turn the forgetting step off (seed 002 Fig. 6)")
	fs.Float64Var(&cfg.SAMem.Alpha, "alpha", cfg.SAMem.Alpha, "samem: learning rate of Eq. 5 in (0, 1] (default 0.05, qlearn.DefaultAlpha)")
	fs.StringVar(&cfg.SAMem.Schedule, "schedule", cfg.SAMem.Schedule, "samem: what t and T of the epsilon schedule (Eq. 7) count: episode (default) or step (Algorithm 1)")
	fs.BoolVar(&cfg.SAMem.ForgetDropZero, "forget-drop-zero", cfg.SAMem.ForgetDropZero, "samem: after forgetting, also remove every all-zero state row and thought column (a clean-up beyond seed 002 Sec. 3.2)")
	fs.BoolVar(&cfg.SAMem.RetryZero, "retry-zero", cfg.SAMem.RetryZero, "samem: exploring steps retry, half of the time, a tried thought whose Q is still 0 in a state with a positive thought")
	fs.BoolVar(&cfg.SAMem.TaskProgress, "task-progress", cfg.SAMem.TaskProgress, "samem, offline summariser: the task's progress is part of the state (one of two objects delivered)")
	fs.StringVar(&cfg.Ablation, "ablation", cfg.Ablation, "samem ablation of seed 002 Table 2: no-q (retrieve thoughts by similarity only), no-situation (raw observation, no clustering), no-decay (always explore in training)")
	return l
}

// Lists finishes the list-valued flags after parsing.
type Lists struct {
	cfg     *app.Config
	methods []string
}

// Finish applies -method (with "all" and "ablations") and the OPENAI_*
// environment variables. For train, "all" is every registered method but the
// ablation variants; for eval, every method with a checkpoint in the run and
// the baselines.
func (l *Lists) Finish(forEval bool) {
	if len(l.methods) > 0 {
		l.cfg.Methods = expandMethods(l.methods, l.cfg.Run, forEval)
	}
	// Secrets and endpoints come from the environment, read here only.
	l.cfg.LLM.APIKey = os.Getenv("OPENAI_API_KEY")
	if len(l.cfg.LLM.ChatURLs) == 0 {
		if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
			l.cfg.LLM.ChatURLs = []string{u}
		}
	}
}

type stringList struct{ p *[]string }

func (s stringList) String() string {
	if s.p == nil {
		return ""
	}
	return strings.Join(*s.p, ",")
}

func (s stringList) Set(v string) error {
	*s.p = nil
	for _, x := range strings.Split(v, ",") {
		if x = strings.TrimSpace(x); x != "" {
			*s.p = append(*s.p, x)
		}
	}
	return nil
}

type float32Flag struct{ p *float32 }

func (f float32Flag) String() string {
	if f.p == nil {
		return "0"
	}
	return fmt.Sprint(*f.p)
}

func (f float32Flag) Set(v string) error {
	var x float64
	if _, err := fmt.Sscan(v, &x); err != nil {
		return fmt.Errorf("not a number: %q", v)
	}
	*f.p = float32(x)
	return nil
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
// config.json of the run that args name with -run (or of the default run),
// so that they use the environment and model of training, or def when the
// run has none. Workers, split and task count are never taken from the
// saved file. Flags parsed afterwards override all of it.
func SavedDefaults(args []string, def app.Config) (app.Config, error) {
	saved, err := app.LoadConfig(RunFlag(args, def.Run))
	if errors.Is(err, fs.ErrNotExist) {
		return def, nil
	}
	if err != nil {
		return def, err
	}
	saved.Workers, saved.Split, saved.Tasks = def.Workers, def.Split, def.Tasks
	return saved, nil
}

// RunFlag finds -run's value in args before flags are parsed; def when absent.
func RunFlag(args []string, def string) string {
	run := def
	for i, a := range args {
		switch {
		case a == "-run" || a == "--run":
			if i+1 < len(args) {
				run = args[i+1]
			}
		case strings.HasPrefix(a, "-run="):
			run = strings.TrimPrefix(a, "-run=")
		case strings.HasPrefix(a, "--run="):
			run = strings.TrimPrefix(a, "--run=")
		}
	}
	return run
}

// Exit codes.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
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
