package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/runner"
)

// DryRunSteps is the step limit of the episode -dry-run plays per method.
const DryRunSteps = 10

// Estimate is what -dry-run measured of one method's short episode and
// what it expects of the rest of the run (docs/COST.md defines the words).
type Estimate struct {
	Method string `json:"method"`
	// Played is the measured episode: its steps (at most DryRunSteps),
	// whether it ended by itself before that cap, its usage account (the
	// requests sent, cache hits, tokens sent) and its wall time.
	Steps   int        `json:"steps"`
	Cap     int        `json:"cap"` // the played episode's step limit
	Ended   bool       `json:"ended"`
	Usage   llm.Report `json:"usage"`
	Seconds float64    `json:"seconds"`
	// TokensConsumed and ConsumedUSD are the tokens of every model reply
	// of the episode, served or cached, and their cost at -prices.
	TokensConsumed int64   `json:"tokens_consumed"`
	ConsumedUSD    float64 `json:"consumed_usd"`
	// Episodes are the episodes left in the run (train: the schedule
	// less what its checkpoint holds; eval: the tasks, times the trials of
	// a method that retries them, at most); StepsPerEpisode the steps
	// expected of each (the played episode's, or the step limit when it was
	// cut short).
	Episodes        int     `json:"episodes"`
	StepsPerEpisode float64 `json:"steps_per_episode"`
	// The rest of the run, from the played episode's figures per step:
	// model calls (each a request unless the response cache has it), tokens
	// consumed, their cost, and wall time with the run's workers.
	Calls, Tokens, CostUSD, RunSeconds float64
}

// DryRun plays, for every method of cfg that cmd (CmdTrain or CmdEval)
// would run, one episode of at most DryRunSteps steps: the first training
// task in training mode (a fresh memory) or the first held-out task with
// the method's trained memory. It returns what each episode cost and what
// the rest of the run would cost at that rate. It writes no configuration,
// checkpoint, usage account or result, and takes no lock; the response
// cache is used only when its file exists (so the real run's first episode
// replays the dry run's replies for free).
func DryRun(ctx context.Context, cfg Config, cmd Command, w io.Writer) ([]Estimate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Resolved()
	if path := cfg.CachePath(); path != "" {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && cfg.LLM.Backend != BackendReplay {
			cfg.LLM.Cache = "off" // make no cache file
		}
	}
	suite, err := NewSuite(ctx, cfg.Env, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	if err := fitMethods(&cfg, suite, w); err != nil {
		return nil, err
	}
	// AgentGym's task identities: from the run's file when it has one,
	// else found into a scratch folder.
	idDir := cfg.Run
	if _, err := os.Stat(filepath.Join(cfg.Run, GymTasksFile)); err != nil {
		tmp, err := os.MkdirTemp("", "dry-run-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		idDir = tmp
	}
	if err := IdentifySuite(ctx, suite, idDir); err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	var tasks []envbridge.Task
	if cmd == CmdEval {
		if tasks, err = suite.Tasks(cfg.Split); err != nil {
			return nil, fmt.Errorf("%w: -split %s: %v", ErrConfig, cfg.Split, err)
		}
		tasks = runner.PerType(tasks, cfg.EvalPerType)
	} else {
		if tasks, err = suite.Tasks(envbridge.SplitTrain); err != nil {
			return nil, fmt.Errorf("environment %s: %w", suite.Name(), err)
		}
		tasks = TrainingTasks(suite, tasks, cfg.PerType, cfg.Seed, cfg.TaskOrder)
	}
	if cfg.Tasks > 0 && cfg.Tasks < len(tasks) {
		tasks = tasks[:cfg.Tasks]
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%w: no tasks to play", ErrConfig)
	}
	backend, err := NewBackend(ctx, cfg, w)
	if err != nil {
		return nil, err
	}
	defer backend.Close()
	env, err := suite.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	defer env.Close()
	var out []Estimate
	for _, name := range cfg.Methods {
		if cmd == CmdTrain && IsBaseline(name) {
			continue // nothing to train
		}
		e, err := dryEpisode(ctx, cfg, cmd, name, backend, env, suite.Style(), tasks)
		if err != nil {
			return out, fmt.Errorf("dry run of %s: %w", name, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// dryEpisode plays one short episode of method name and extrapolates.
func dryEpisode(ctx context.Context, cfg Config, cmd Command, name string, b *Backend, env envbridge.Env, style envbridge.Style, tasks []envbridge.Task) (Estimate, error) {
	meter := llm.NewMeter(mustPrices(cfg))
	consumed := llm.NewMeter(mustPrices(cfg))
	seen := *b
	if b.Chat != nil {
		seen.Chat = consumingChat{next: b.Chat, meter: consumed, model: cfg.LLM.ChatModel}
	}
	m, err := NewMethod(name, cfg, seen.ForMethod(meter))
	if err != nil {
		return Estimate{}, err
	}
	e := Estimate{Method: name}
	start := agent.Start{Mode: agent.Train, Style: style, Rand: runner.EpisodeRand(cfg.Seed, 0, 0)}
	trials := 1
	if cmd == CmdEval {
		start.Mode, start.Rand = agent.Eval, runner.EpisodeRand(cfg.Seed, 0, 0)
		if cfg.Resolved().Online == OnlineOn {
			start.Mode = agent.Online // its learning calls are part of the cost
		}
		if _, err := loadLatest(ctx, cfg, name, m, b); err != nil {
			return e, err
		}
		if tr, ok := m.(agent.EvalTrialer); ok {
			trials = max(1, tr.EvalTrials())
		}
		e.Episodes = len(tasks) * trials
	} else {
		total := len(tasks) * cfg.Iterations
		start.Episodes = total
		e.Episodes = total - episodesDone(cfg.Run, name, len(tasks))
		if e.Episodes <= 0 {
			e.Episodes, e.Ended = 0, true
			return e, nil // trained already: nothing to play, nothing to spend
		}
	}
	task := tasks[0]
	limit := task.MaxSteps
	if limit <= 0 {
		limit = runner.DefaultMaxSteps
	}
	task.MaxSteps = min(limit, DryRunSteps)
	e.Cap = task.MaxSteps
	start.Task = task
	began := time.Now()
	ep, err := runner.Run(llm.WithMeter(ctx, meter), env, m, start)
	if err != nil {
		return e, err
	}
	e.Seconds = time.Since(began).Seconds()
	e.Steps = ep.Outcome.Steps
	// An episode that reached the task's own step limit is over too.
	e.Ended = ep.Outcome.Won || ep.Outcome.Lost || ep.Outcome.Steps < task.MaxSteps || task.MaxSteps == limit
	e.Usage = meter.Report()
	embed := e.Usage.ByPurpose[llm.EmbedPurpose]
	c := consumed.Report().Total
	e.TokensConsumed = c.PromptTokens + c.CompletionTokens + embed.PromptTokens + embed.CompletionTokens
	e.ConsumedUSD = c.CostUSD + embed.CostUSD
	e.StepsPerEpisode = float64(limit)
	if e.Ended {
		e.StepsPerEpisode = float64(e.Steps)
	}
	if steps := float64(max(1, e.Steps)); e.Episodes > 0 {
		n := float64(e.Episodes) * e.StepsPerEpisode / steps
		t := e.Usage.Total
		e.Calls = n * float64(t.Calls+t.CacheHits)
		e.Tokens = n * float64(e.TokensConsumed)
		e.CostUSD = n * e.ConsumedUSD
		e.RunSeconds = n * e.Seconds / float64(max(1, cfg.Workers))
	}
	return e, nil
}

// episodesDone is how many of a training schedule's episodes (n tasks per
// iteration) the method's latest checkpoint in run holds, read without
// opening the store (a dry run writes nothing).
func episodesDone(run, method string, n int) int {
	root := filepath.Join(run, method, checkpoints.Folder)
	b, err := os.ReadFile(filepath.Join(root, checkpoints.LatestFile))
	if err != nil {
		return 0
	}
	it, mid, err := runner.CheckpointProgress(filepath.Join(root, strings.TrimSpace(string(b))))
	if err != nil {
		return 0
	}
	return it*n + mid
}

// consumingChat records every reply a method gets, from a server or the
// response cache, as a call in meter: the tokens the method consumed.
type consumingChat struct {
	next  llm.Chatter
	meter *llm.Meter
	model string
}

func (c consumingChat) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	r, err := c.next.Chat(ctx, req)
	if err == nil {
		c.meter.Call(req.Purpose, c.model, r.Usage)
	}
	return r, err
}

// PrintEstimates writes the dry run's table: what each method's episode
// took, and what the rest of the run would take at that rate.
func PrintEstimates(w io.Writer, cfg Config, cmd Command, est []Estimate) {
	what := "training"
	if cmd == CmdEval {
		what = "evaluation"
	}
	fmt.Fprintf(w, "dry run: one episode of at most %d steps per method; nothing was written to %s\n", DryRunSteps, cfg.Run)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tsteps played\trequests sent\tcache hits\ttokens sent\ttokens consumed\tcost (USD)\ttime")
	for _, e := range est {
		t := e.Usage.Total
		played := fmt.Sprintf("%d (cut at %d)", e.Steps, e.Cap)
		switch {
		case e.Episodes == 0 && e.Steps == 0:
			played = "none (nothing left to play)"
		case e.Ended:
			played = fmt.Sprintf("%d (episode over)", e.Steps)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%.4f\t%.1fs\n", e.Method, played, t.Requests, t.CacheHits,
			llm.FormatCount(t.PromptTokens+t.CompletionTokens), llm.FormatCount(e.TokensConsumed), e.ConsumedUSD, e.Seconds)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nexpected for the rest of the %s, at the played episode's rate per step (workers: %d):\n", what, cfg.Workers)
	fmt.Fprintln(tw, "method\tepisodes left\tsteps per episode\trequests (model calls)\ttokens consumed\tcost (USD)\ttime")
	var cost, secs float64
	for _, e := range est {
		per := fmt.Sprintf("%.0f (the step limit)", e.StepsPerEpisode)
		switch {
		case e.Episodes == 0:
			per = "-"
		case e.Ended:
			per = fmt.Sprintf("%.0f (as played)", e.StepsPerEpisode)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.2f\t%s\n", e.Method, e.Episodes, per, llm.FormatCount(int64(e.Calls)), llm.FormatCount(int64(e.Tokens)), e.CostUSD, duration(e.RunSeconds))
		cost += e.CostUSD
		secs += e.RunSeconds
	}
	fmt.Fprintf(tw, "all\t\t\t\t\t%.2f\t%s\n", cost, duration(secs))
	tw.Flush()
	if cfg.LLM.Backend == BackendOffline {
		fmt.Fprintln(w, "(offline backend: no model requests; the time is what the rules take)")
	} else if cfg.LLM.Prices == "" {
		fmt.Fprintln(w, "(no -prices: costs are not counted)")
	}
	fmt.Fprintln(w, "Requests are model calls; those already in the response cache are answered free. Episodes differ: this is one episode's rate, not a bound.")
}

func duration(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%.1f h", d.Hours())
	case d >= time.Minute:
		return fmt.Sprintf("%.0f min", d.Minutes())
	}
	return d.Round(100 * time.Millisecond).String()
}
