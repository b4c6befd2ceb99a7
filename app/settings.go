package app

import (
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/samem/trainer/samem"
)

// Command is a set of commands that bind a setting as a flag.
type Command uint8

// The commands that bind settings.
const (
	CmdTrain Command = 1 << iota
	CmdEval
	CmdSweep
	CmdPlay

	cmdRun = CmdTrain | CmdEval | CmdSweep // the commands that run methods
	cmdAll = cmdRun | CmdPlay
)

// Effect is what a setting changes. It decides how a difference between a
// run's recorded value (config.json) and a new command's is treated.
type Effect uint8

const (
	// ChangesResult: the setting changes what a run learns or what an
	// evaluation measures (a learning, clustering, forgetting, schedule,
	// method, environment or model setting). Train refuses to resume a run
	// recorded with another value (CheckResume); an evaluation with another
	// value than the run's is kept in its own directory, named by it
	// (EvalOverrides).
	ChangesResult Effect = iota
	// ExecutionOnly: the setting changes only how a run executes (workers,
	// progress lines, timeouts, retries, concurrency, server addresses,
	// prices, the cache path). It may differ between a run, its resume and
	// its evaluations, and names nothing.
	ExecutionOnly
	// Selects: the setting says which run, methods or split a command works
	// on; the directories and rows are named by it already.
	Selects
)

func (e Effect) String() string {
	switch e {
	case ChangesResult:
		return "changes the result"
	case ExecutionOnly:
		return "execution only"
	}
	return "selects"
}

// Setting is one row of the table of settings: its flag, the commands that
// bind it, what it changes, and the Config field that owns its value.
// cmd/internal/cli binds the flags from the table, EvalOverrides names
// evaluation directories with it, CheckResume compares runs with it, and an
// experiment file (-config) sets it by its flag name.
type Setting struct {
	// Flag is the flag's name, without its dash.
	Flag string
	// Key names the setting in an experiment file when it is not Flag:
	// one key means one Config field whichever command reads the file.
	Key string
	// Usage is the flag's -h text; a word in back quotes names its value.
	Usage  string
	Effect Effect
	// Method is the registered method whose memory the setting changes (its
	// variants follow it), or "" when it concerns every method: the
	// environment, the model, the schedule. CheckResume compares a setting
	// only when a method it concerns is trained in the run.
	Method string
	// Cmds are the commands that bind it.
	Cmds Command
	// Field returns the field of c that holds the setting: *int, *int64,
	// *bool, *float64, *string, *time.Duration, or a flag.Value.
	Field func(c *Config) any
}

// FileKey is the setting's key in an experiment file.
func (s Setting) FileKey() string {
	if s.Key != "" {
		return s.Key
	}
	return s.Flag
}

// Value renders the setting's value in c as its flag takes it.
func (s Setting) Value(c *Config) string {
	switch p := s.Field(c).(type) {
	case *int:
		return strconv.Itoa(*p)
	case *int64:
		return strconv.FormatInt(*p, 10)
	case *bool:
		return strconv.FormatBool(*p)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *string:
		return *p
	case *time.Duration:
		return p.String()
	case flag.Value:
		return p.String()
	}
	panic(fmt.Sprintf("setting -%s: field of unknown type %T", s.Flag, s.Field(c)))
}

// Settings is the table of settings, in the order of -h. Adding a setting
// is adding one entry here (and the field it owns).
func Settings() []Setting { return settings() }

// SettingsOf is the part of the table that the command cmd binds.
func SettingsOf(cmd Command) []Setting {
	var out []Setting
	for _, s := range settings() {
		if s.Cmds&cmd != 0 {
			out = append(out, s)
		}
	}
	return out
}

// LookupSetting returns the setting that cmd binds as flag.
func LookupSetting(cmd Command, flag string) (Setting, bool) {
	for _, s := range SettingsOf(cmd) {
		if s.Flag == flag {
			return s, true
		}
	}
	return Setting{}, false
}

// settings is built once, after the method registry is complete (the
// -method text lists every method, variants included).
var settings = sync.OnceValue(func() []Setting {
	return []Setting{
		{Flag: "run", Cmds: cmdRun, Effect: Selects,
			Usage: "run `directory`: checkpoints, configuration, results and the LLM response cache go here",
			Field: func(c *Config) any { return &c.Run }},
		{Flag: "method", Cmds: cmdRun, Effect: Selects,
			Usage: "memory `methods`: a comma list; all (train: every method; eval: every method trained in -run, and the baselines) or ablations (samem, its Table 2 and Table 3 variants, arigraph-no-episodic, clin with clin-ga, clin-gen-task and clin-advice, and memrl with memrl-no-q) (known: " + strings.Join(MethodNames(true), ", ") + ")",
			Field: func(c *Config) any { return (*methodList)(&c.Methods) }},
		{Flag: "seed", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "run seed: episode randomness (exploration, offline roles) derives from it",
			Field: func(c *Config) any { return &c.Seed }},
		{Flag: "seed", Cmds: CmdPlay, Effect: ChangesResult,
			Usage: "seed of the environment's tasks (zmachine: games without a seed of their own; any value, 0 included)",
			Field: func(c *Config) any { return &c.Seed }},
		{Flag: "seeds", Cmds: CmdTrain | CmdEval, Effect: Selects,
			Usage: "run `seeds` to repeat the run with, e.g. 1-5 or 1,7,9: each seed trains and evaluates in <run>/seeds/<seed>/ (resumed per seed), and eval combines them with 95 % intervals over the seeds (instead of -seed)",
			Field: func(c *Config) any { return (*seedList)(&c.Seeds) }},
		{Flag: "shard", Cmds: cmdRun, Effect: Selects,
			Usage: "do part `i/n` of the work (0 <= i < n): eval the (seed, method, task) items k with k mod n = i, into <run>/eval/<name>.shards/<i>-of-<n>/; train with -seeds the seeds k with k mod n = i; sweep the sub-runs k with k mod n = i; then merge the parts with go run ./cmd/merge -run RUN",
			Field: func(c *Config) any { return &c.Shard }},
		{Flag: "workers", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "episodes played in parallel (default: the number of cores); 1 makes a run exactly reproducible",
			Field: func(c *Config) any { return &c.Workers }},
		{Flag: "iterations", Cmds: CmdTrain | CmdSweep, Effect: ChangesResult,
			Usage: "training iterations over the tasks (seed 002 Sec. 4.1.2: 9)",
			Field: func(c *Config) any { return &c.Iterations }},
		{Flag: "task-order", Cmds: CmdTrain | CmdSweep, Effect: ChangesResult,
			Usage: "`order` of the training tasks in an iteration: shuffled (with the run seed, the same every iteration) or suite (the suite's order, by task type)",
			Field: func(c *Config) any { return &c.TaskOrder }},
		{Flag: "per-type", Cmds: CmdTrain, Effect: ChangesResult,
			Usage: "`count` of training tasks per task type (default: the environment's paper's, seed 002 Sec. 4.1 and App. B.1: 5, ScienceWorld 3); 0 uses every training task",
			Field: func(c *Config) any { return (*perTypeValue)(&c.PerType) }},
		{Flag: "split", Cmds: CmdEval | CmdSweep, Effect: Selects,
			Usage: "held-out split to evaluate: valid_unseen, valid_seen (or train); default: the environment's, valid_seen for zmachine (seed 002 App. B.1 trains and evaluates on the same Jericho games, and every game is in train and valid_seen) and valid_unseen elsewhere",
			Field: func(c *Config) any { return &c.Split }},
		{Flag: "tasks", Cmds: CmdEval | CmdSweep, Effect: ChangesResult,
			Usage: "evaluate only the first N tasks of the split (0: all)",
			Field: func(c *Config) any { return &c.Tasks }},
		{Flag: "per-type", Key: "eval-per-type", Cmds: CmdEval, Effect: ChangesResult,
			Usage: "evaluate only the first `count` tasks of each task type of the split (0: all; default: the environment's paper's, seed 002 App. B.1: every ALFWorld task, the top 3 variants of each ScienceWorld type)",
			Field: func(c *Config) any { return (*perTypeValue)(&c.EvalPerType) }},
		{Flag: "online", Cmds: CmdEval | CmdSweep, Effect: ChangesResult,
			Usage: "memory keeps learning during the evaluation: on (-online alone) or off; each episode acts greedily as in a frozen evaluation and updates memory as in training (SAMem: Eq. 4-5 updates, clustering, and forgetting at the end of the pass), and the memory left is saved in the evaluation's directory (memory/<method>/), never over the training checkpoint; default env: on for AgentBoard's Jericho games (seed 002 App. B.1's online evolving protocol), off elsewhere (seed 002 Sec. 4.1: frozen memory)",
			Field: func(c *Config) any { return &c.Online }},
		{Flag: "max-errors", Cmds: CmdEval, Effect: ExecutionOnly,
			Usage: "errored episodes (model or environment failures) tolerated; past it eval keeps its results apart in eval/<split>.partial and exits 1",
			Field: func(c *Config) any { return &c.MaxErrors }},

		// The environment (EnvConfig).
		{Flag: "env", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "environment `kind`: household (built in), zmachine (-game), jsonl (-env-cmd) or agentgym (-agentgym)",
			Field: func(c *Config) any { return &c.Env.Kind }},
		{Flag: "world-seed", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "household: seed of the generated world and its task splits",
			Field: func(c *Config) any { return &c.Env.WorldSeed }},
		{Flag: "grammar", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "household: ALFWorld action `grammar`, 0.3 (\"put X in/on Y\", the default) or 0.4 (\"move X to Y\")",
			Field: func(c *Config) any { return &c.Env.Grammar }},
		{Flag: "max-steps", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "step limit of an episode (0: the environment's default: 50 household and agentgym ALFWorld, ScienceWorld 20/20/40 by level; zmachine 150 for hunt* and clean* games, 60 for cook* (seed 000), 30 for AgentBoard's Jericho games (-game-set agentboard, AgentBoard's limit), 100 otherwise; play: none for a script unless given)",
			Field: func(c *Config) any { return &c.Env.MaxSteps }},
		{Flag: "game", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "zmachine: a story `file` (.z3/.z5/.z8) or a folder of them, played in-process",
			Field: func(c *Config) any { return &c.Env.Game }},
		{Flag: "game-set", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "zmachine: the games of a -game folder to play: agentboard (AgentBoard's 20 Jericho games, seed 002 App. B.1, with AgentBoard's 30-step limit unless -max-steps) or all; default: agentboard for a folder of Jericho's games (with its suite.json) in train, eval and sweep, all otherwise and in play",
			Field: func(c *Config) any { return &c.Env.GameSet }},
		{Flag: "interpreter", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "zmachine: `interpreter` zvm (in-process, the default) or dfrotz (Debian's dfrotz as a child process, for comparison)",
			Field: func(c *Config) any { return &c.Env.Interpreter }},
		{Flag: "valid-actions", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "zmachine: fill each observation's admissible list with the valid actions (Jericho's get_valid_actions; in-process only)",
			Field: func(c *Config) any { return &c.Env.ValidActions }},
		{Flag: "env-cmd", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "jsonl: the environment program and its arguments, split on spaces and run without a shell (protocol: envbridge/jsonl/PROTOCOL.md)",
			Field: func(c *Config) any { return &c.Env.Command }},
		{Flag: "agentgym", Cmds: cmdAll, Effect: ExecutionOnly,
			Usage: "agentgym: base `URL` of an AgentGym-style environment server",
			Field: func(c *Config) any { return &c.Env.URL }},
		{Flag: "agentgym-kind", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "agentgym: `kind` alfworld (the default) or sciworld",
			Field: func(c *Config) any { return &c.Env.GymKind }},
		{Flag: "agentgym-train", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "agentgym: server task indices of the train split, e.g. 0-99",
			Field: func(c *Config) any { return &c.Env.GymTrain }},
		{Flag: "agentgym-valid", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "agentgym: server task indices of valid_unseen, e.g. 100-233",
			Field: func(c *Config) any { return &c.Env.GymValid }},
		{Flag: "agentgym-seen", Cmds: cmdAll, Effect: ChangesResult,
			Usage: "agentgym: server task indices of valid_seen",
			Field: func(c *Config) any { return &c.Env.GymSeen }},

		// The model (LLMConfig).
		{Flag: "llm", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "model `backend`: offline (rule-based roles, no server), openai (any OpenAI-compatible server), local (TinyLlama chat and USE embeddings on this machine, installed with npm on first use; no key) or replay (answer from the response cache of an earlier run)",
			Field: func(c *Config) any { return &c.LLM.Backend }},
		{Flag: "embed", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "embedding `backend` when it differs from -llm's: offline (hashing), openai or local (Universal Sentence Encoder, 512 dimensions; -embed-dim follows)",
			Field: func(c *Config) any { return (*embedValue)(&c.LLM.Embed) }},
		{Flag: "local-dir", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "local models: install `folder` (default <user cache dir>/samem-trainer/local; make local-models fills it)",
			Field: func(c *Config) any { return &c.LLM.LocalDir }},
		{Flag: "local-threads", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "local chat model: CPU threads (0: 1)",
			Field: func(c *Config) any { return &c.LLM.LocalThreads }},
		{Flag: "local-max-tokens", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "local chat model: cap on the tokens of one reply, whatever a role asks (0: 256)",
			Field: func(c *Config) any { return &c.LLM.LocalMaxTokens }},
		{Flag: "chat-model", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "chat model name (openai, replay)",
			Field: func(c *Config) any { return &c.LLM.ChatModel }},
		{Flag: "embed-model", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "embedding model name (openai, replay)",
			Field: func(c *Config) any { return &c.LLM.EmbedModel }},
		{Flag: "embed-dim", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "embedding dimension (0: 1024, as seed 002; local embeddings: 512, set by themselves)",
			Field: func(c *Config) any { return &c.LLM.EmbedDim }},
		{Flag: "send-dimensions", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "send -embed-dim to the server as \"dimensions\" (text-embedding-3-*)",
			Field: func(c *Config) any { return &c.LLM.SendDimensions }},
		{Flag: "chat-url", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "chat server base `URLs`, comma-separated; requests spread across them (default: $OPENAI_BASE_URL, else OpenAI)",
			Field: func(c *Config) any { return (*listValue)(&c.LLM.ChatURLs) }},
		{Flag: "embed-url", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "embedding server base `URLs`, comma-separated (default: the chat URLs)",
			Field: func(c *Config) any { return (*listValue)(&c.LLM.EmbedURLs) }},
		{Flag: "record-train", Cmds: CmdTrain, Effect: ExecutionOnly,
			Usage: "record every training episode, step by step with what memory read, in <run>/<method>/train-trajectories.jsonl when the schedule has at most N episodes (0: never, negative: always)",
			Field: func(c *Config) any { return &c.RecordTrain }},
		{Flag: "progress-every", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "when stderr is not a terminal, print a progress line at least this often (and at every tenth of a batch); negative: only at tenths",
			Field: func(c *Config) any { return &c.ProgressEvery }},
		{Flag: "timeout", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "deadline of one model request",
			Field: func(c *Config) any { return &c.LLM.Timeout }},
		{Flag: "retries", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "retries of a transient model failure (429, 5xx, timeouts), with exponential backoff",
			Field: func(c *Config) any { return &c.LLM.Retries }},
		{Flag: "concurrency", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "model requests in flight at once (0: max(8, -workers))",
			Field: func(c *Config) any { return &c.LLM.Concurrency }},
		{Flag: "temperature", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "sampling temperature, 0 to 2, of every method's model calls: samem's and nomemory's thinker, clin's controller, memory generator and selector, arigraph's, memstream's and kgplan's roles, the actor of fullhistory, summary and reflexion (samem's summariser and forgetting checker, reflexion's reflection and summary's update always use 0; 0 is sent as 0)",
			Field: func(c *Config) any { return &c.LLM.Temperature }},
		{Flag: "structured", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "structured outputs: on sends each role's JSON schema (response_format json_schema, strict) and reads the JSON answer; auto does so for servers that take it (a server answering 400 about response_format is noted once and read as text); off never sends one (local models: llama.cpp grammars from the schema)",
			Field: func(c *Config) any { return &c.LLM.Structured }},
		{Flag: "reasoning-effort", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "reasoning models: sent as reasoning_effort with every chat request, e.g. none, minimal, low, medium, high (empty: not sent; servers that do not take it may refuse the request)",
			Field: func(c *Config) any { return &c.LLM.ReasoningEffort }},
		{Flag: "max-tokens", Cmds: cmdRun, Effect: ChangesResult,
			Usage: "bound on the tokens of a reply, reasoning included: N for every role and/or role=N,... by accounting name (summarize, think, act, check, clin.controller, or a method's prefix such as clin); sent as max_completion_tokens to servers that refuse max_tokens; a reply cut off at its bound is unusable and asked again with twice the room (default: each role's own bound)",
			Field: func(c *Config) any { return &c.LLM.MaxTokens }},
		{Flag: "prices", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "prices for cost estimates, USD per 1M tokens: model=prompt/completion,... e.g. gpt-4o-mini=0.15/0.60",
			Field: func(c *Config) any { return &c.LLM.Prices }},
		{Flag: "dry-run", Cmds: CmdTrain | CmdEval, Effect: ExecutionOnly,
			Usage: "play one short episode per method (or answer it from the response cache) and print the requests, tokens, cost (with -prices) and time the whole run would take; writes no configuration, checkpoint, usage account or result",
			Field: func(c *Config) any { return &c.DryRun }},
		{Flag: "budget", Cmds: CmdTrain, Effect: ExecutionOnly,
			Usage: "`USD` training may spend in the run directory, at -prices (0: no cap): it stops at an episode boundary with a checkpoint before the next episode would cross it (exit code 3); run again with a higher -budget to go on",
			Field: func(c *Config) any { return &c.Budget }},
		{Flag: "max-requests", Cmds: CmdTrain, Effect: ExecutionOnly,
			Usage: "model requests training may send in the run directory (0: no cap); stops as -budget does",
			Field: func(c *Config) any { return &c.MaxRequests }},
		{Flag: "cache", Cmds: cmdRun, Effect: ExecutionOnly,
			Usage: "response cache `file` (default <run>/llm-cache.db; off disables it)",
			Field: func(c *Config) any { return &c.LLM.Cache }},

		// The methods' own settings (each method's Config).
		{Flag: "threshold", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem: cosine `similarity` threshold of state clustering (default 0.85, seed 002 Sec. 4.4)",
			Field: func(c *Config) any { return (*float32Value)(&c.SAMem.Threshold) }},
		{Flag: "thought-threshold", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem: cosine `similarity` threshold of thought clustering (default 0.85)",
			Field: func(c *Config) any { return (*float32Value)(&c.SAMem.ThoughtThreshold) }},
		{Flag: "no-forgetting", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem: turn the forgetting step off (seed 002 Fig. 6)",
			Field: func(c *Config) any { return &c.SAMem.NoForgetting }},
		{Flag: "one-call", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem and nomemory: ask for thought and action in one call that also sees the observation (off: the thought from the state, then the action, two calls as seed 002 Eq. 3)",
			Field: func(c *Config) any { return &c.Thinker.OneCall }},
		{Flag: "clin-trials", Cmds: cmdRun, Effect: ChangesResult, Method: "clin",
			Usage: "clin: trials that adapt a training task's memory (0: 5, seed 004 Fig. 4's Trial-0 to Trial-4); later iterations replay the last memory; also the most trials clin-ga and clin-gen-task give a held-out task in eval (G+A)",
			Field: func(c *Config) any { return &c.CLIN.Trials }},
		{Flag: "clin-meta-first-trial", Cmds: cmdRun, Effect: ChangesResult, Method: "clin",
			Usage: "clin: start a training task's first trial from a meta-memory of the other trained tasks of its type (off: an empty memory, as ADAPT in seed 004 Sec. 5A)",
			Field: func(c *Config) any { return &c.CLIN.MetaFirstTrial }},
		{Flag: "clin-gen-task-other-types", Cmds: cmdRun, Effect: ChangesResult, Method: "clin",
			Usage: "clin-gen-task on household worlds: build a held-out task's meta-memory from the other task types' memories (transfer to an unseen type, as on ScienceWorld) instead of the other tasks of its own type (seed 004 Sec. 5C's ALFWorld runs)",
			Field: func(c *Config) any { return &c.CLIN.GenTaskOtherTypes }},
		{Flag: "clin-select-by-embedding", Cmds: cmdRun, Effect: ChangesResult, Method: "clin",
			Usage: "clin: choose the memory items shown to the controller by embedding similarity (top 20) even with a model (off: a model call selects them from the full memory and the task, seed 004 Sec. 3.3; offline always uses embeddings)",
			Field: func(c *Config) any { return &c.CLIN.SelectByEmbedding }},
		{Flag: "planner", Cmds: cmdRun, Effect: ChangesResult, Method: "kgplan",
			Usage: "kgplan: the classical planner: astar (built in, default), fast-downward=PATH (Fast Downward's driver, A* + LM-cut), or an external planner's command line \"PROG ARGS\" naming {domain}, {problem} and {plan} (no shell)",
			Field: func(c *Config) any { return &c.KGPlan.PlannerSpec }},
		{Flag: "kgplan-no-lifelong", Cmds: cmdRun, Effect: ChangesResult, Method: "kgplan",
			Usage: "kgplan: start every episode with an empty graph (off: a task's episode starts from the graph learned in training, seed 003's lifelong memory)",
			Field: func(c *Config) any { return &c.KGPlan.NoLifelong }},
		{Flag: "arigraph-carry", Cmds: cmdRun, Effect: ChangesResult, Method: "arigraph",
			Usage: "arigraph: keep each task's map and the placements seen in training for later episodes (off: every episode starts with an empty graph, as in seed 000)",
			Field: func(c *Config) any { return &c.AriGraph.Carry }},
		{Flag: "memstream-carry", Cmds: cmdRun, Effect: ChangesResult, Method: "memstream",
			Usage: "memstream: keep one stream over the training episodes and evaluate with it (off: every episode starts with an empty stream, as AriGraph's start with an empty graph, seed 000)",
			Field: func(c *Config) any { return &c.MemStream.Carry }},
		{Flag: "fullhistory-agent", Cmds: cmdRun, Effect: ChangesResult, Method: "fullhistory",
			Usage: "fullhistory: the `agent` given the history: ariadne (default; seed 000 Sec. 4.2: Ariadne's planning and decision modules with the graph replaced by the whole episode) or actor (one Thought/Action call)",
			Field: func(c *Config) any { return &c.FullHistory.Agent }},
		{Flag: "summary-agent", Cmds: cmdRun, Effect: ChangesResult, Method: "summary",
			Usage: "summary: the `agent` given the running summary: ariadne (default; seed 000 Sec. 4.2) or actor (one Thought/Action call)",
			Field: func(c *Config) any { return &c.Summary.Agent }},
		{Flag: "arigraph-no-episodic", Cmds: cmdRun, Effect: ChangesResult, Method: "arigraph",
			Usage: "arigraph: turn episodic retrieval off (seed 000 Fig. 4 ablation; -method ablations also trains it as arigraph-no-episodic)",
			Field: func(c *Config) any { return &c.AriGraph.NoEpisodic }},
		{Flag: "alpha", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem: learning rate of Eq. 5 in (0, 1] (default 0.05, qlearn.DefaultAlpha)",
			Field: func(c *Config) any { return &c.SAMem.Alpha }},
		{Flag: "schedule", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem: what t and T of the epsilon `schedule` (Eq. 7) count: budget (default; T the episodes times the step limit, t the episode's index times the limit plus its steps, so epsilon decays every step and ends at eps0*exp(-beta)), step (t the transitions applied so far) or episode (t the episode, T the episodes)",
			Field: func(c *Config) any { return &c.SAMem.Schedule }},
		{Flag: "guide-positive", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem: memory guides only with a thought whose Q is above 0 (not in Eq. 6, which follows the argmax whatever its sign)",
			Field: func(c *Config) any { return &c.SAMem.GuidePositive }},
		{Flag: "forget-drop-zero", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem: after forgetting, also remove every all-zero state row and thought column (a clean-up beyond seed 002 Sec. 3.2)",
			Field: func(c *Config) any { return &c.SAMem.ForgetDropZero }},
		{Flag: "retry-zero", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem: exploring steps retry, half of the time, a tried thought whose Q is still 0 in a state with a positive thought",
			Field: func(c *Config) any { return &c.SAMem.RetryZero }},
		{Flag: "tie-margin", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem, evaluation: thoughts whose Q is within this fraction of the state's best are tied and the most visited is followed (0: plain argmax, seed 002 Sec. 3.3)",
			Field: func(c *Config) any { return &c.SAMem.TieMargin }},
		{Flag: "summary-history", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem, model summariser: the earlier `steps` its prompt carries (0, the default: the whole history, Eq. 2)",
			Field: func(c *Config) any { return &c.SAMem.SummaryHistory }},
		{Flag: "task-progress", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem, offline summariser: the task's progress is part of the state (one of two objects delivered)",
			Field: func(c *Config) any { return &c.SAMem.TaskProgress }},
		{Flag: "ablation", Cmds: cmdRun, Effect: ChangesResult, Method: "samem",
			Usage: "samem `ablation` of seed 002 Table 2: no-q (retrieve thoughts by similarity only), no-situation (raw observation, no clustering), no-decay (always explore in training)",
			Field: func(c *Config) any { return &c.Ablation }},
	}
})

// methodList is the -method flag: a comma list of registered methods and
// the keywords all and ablations (expanded by the command).
type methodList []string

func (m *methodList) String() string { return strings.Join(*m, ",") }

func (m *methodList) Set(v string) error {
	var out []string
	for _, x := range strings.Split(v, ",") {
		x = strings.TrimSpace(x)
		if x == "" {
			continue
		}
		if _, ok := registry[x]; !ok && x != "all" && x != AblationsKeyword {
			return fmt.Errorf("unknown method %q (known: %s, or all, ablations)", x, strings.Join(MethodNames(true), ", "))
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return fmt.Errorf("no method given")
	}
	*m = out
	return nil
}

// perTypeValue is a count of tasks per task type: a number >= 0, or "env"
// (PerTypeEnvDefault, the flags' default) for the environment's protocol.
type perTypeValue int

func (p *perTypeValue) String() string {
	if *p == PerTypeEnvDefault {
		return "env"
	}
	return strconv.Itoa(int(*p))
}

func (p *perTypeValue) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "env" {
		*p = PerTypeEnvDefault
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("%q: want a count >= 0 (0: every task) or env (the environment's paper's)", v)
	}
	*p = perTypeValue(n)
	return nil
}

// listValue is a comma-separated list flag.
type listValue []string

func (l *listValue) String() string { return strings.Join(*l, ",") }

func (l *listValue) Set(v string) error {
	*l = nil
	for _, x := range strings.Split(v, ",") {
		if x = strings.TrimSpace(x); x != "" {
			*l = append(*l, x)
		}
	}
	return nil
}

// float32Value is a float32 flag.
type float32Value float32

func (f *float32Value) String() string { return strconv.FormatFloat(float64(*f), 'g', -1, 32) }

func (f *float32Value) Set(v string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 32)
	if err != nil {
		return fmt.Errorf("not a number: %q", v)
	}
	*f = float32Value(x)
	return nil
}

// Difference is a setting whose value differs between two configurations.
type Difference struct {
	Setting
	Old, New string
}

// differences lists the settings of the table selected by keep whose
// values differ between the resolved a and b, in table order.
func differences(a, b Config, keep func(Setting) bool) []Difference {
	a, b = a.Resolved(), b.Resolved()
	var out []Difference
	for _, s := range settings() {
		if !keep(s) {
			continue
		}
		if va, vb := s.Value(&a), s.Value(&b); va != vb {
			out = append(out, Difference{Setting: s, Old: va, New: vb})
		}
	}
	return out
}

// family is the registered method whose settings a method follows: a
// variant's base method, else the method itself.
func family(name string) string {
	for _, v := range variants {
		if v.name == name {
			return samem.Name
		}
	}
	for _, v := range methodVariants {
		if v.name == name {
			return v.base
		}
	}
	return name
}

// concerns reports whether s changes the memory of one of methods.
func (s Setting) concerns(methods []string) bool {
	return s.Method == "" || slices.ContainsFunc(methods, func(m string) bool { return family(m) == s.Method })
}

// Owner names the field that owns the setting, as a path from Config and
// the type that declares it: "SAMem.Alpha (samem.Config)".
func (s Setting) Owner() string {
	var c Config
	target := reflect.ValueOf(s.Field(&c)).Pointer()
	var find func(v reflect.Value, path string) string
	find = func(v reflect.Value, path string) string {
		t := v.Type()
		for i := range t.NumField() {
			f := v.Field(i)
			name := strings.TrimPrefix(path+"."+t.Field(i).Name, ".")
			if f.Addr().Pointer() == target && (f.Kind() != reflect.Struct || f.Type().NumField() == 0) {
				return name + " (" + t.String() + ")"
			}
			if f.Kind() == reflect.Struct {
				if got := find(f, name); got != "" {
					return got
				}
			}
		}
		return ""
	}
	return find(reflect.ValueOf(&c).Elem(), "")
}
