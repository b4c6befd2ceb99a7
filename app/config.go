// Package app wires the trainer together from a configuration: the
// environment suite, the model backend (offline, an OpenAI-compatible server,
// local models run by llm/local, or a replay of a recorded cache), the memory methods, and the train and
// eval drivers that cmd/train and cmd/eval call. Flags and environment
// variables are read in cmd/ only; this package gets plain values.
package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/samem/trainer/arigraph"
	"github.com/samem/trainer/autoguide"
	"github.com/samem/trainer/awm"
	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/cdmem"
	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/expel"
	"github.com/samem/trainer/kgplan"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/local"
	"github.com/samem/trainer/memrl"
	"github.com/samem/trainer/memstream"
	"github.com/samem/trainer/pddl"
	"github.com/samem/trainer/samem"
	"github.com/samem/trainer/thought"
)

// ErrConfig is wrapped by every configuration error; the message names the
// flag and what is wrong with its value.
var ErrConfig = errors.New("invalid configuration")

// SettingError is a setting whose value cannot be used. It names the
// setting by its flag and wraps ErrConfig (exit code 2).
type SettingError struct {
	Flag   string // the flag, without its dash
	Reason string // what is wrong, with the value
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("%v: -%s: %s", ErrConfig, e.Flag, e.Reason)
}

// Unwrap makes errors.Is(err, ErrConfig) true.
func (e *SettingError) Unwrap() error { return ErrConfig }

// Config is a run's configuration. Each setting has one owner: a method's
// settings are that method's own Config, embedded by value; the settings
// the application adds are its fields here. The table of settings
// (settings.go) binds each to its flag. It is written to the run directory
// resolved (Resolved) as config.json; it never holds a secret: the API key
// is kept apart, in LLM.APIKey, which is not serialised.
type Config struct {
	// Version is the version of the record's format (ConfigVersion,
	// set by Resolved); 0 in a config.json written before it existed,
	// whose absent fields LoadConfig reads with the defaults of then
	// (legacyDefaults).
	Version int      `json:"version,omitempty"`
	Run     string   `json:"run"`
	Methods []string `json:"methods"`
	// FitOnly (from -method all) drops the methods that cannot run on the
	// environment instead of refusing the run; not saved.
	FitOnly bool `json:"-"`
	// ProgressEvery is the longest silence of a batch in progress when
	// stderr is not a terminal (-progress-every; 0: 30 s); not saved.
	ProgressEvery time.Duration `json:"-"`
	// RecordTrain records every training episode, step by step with what
	// memory read, in <run>/<method>/train-trajectories.jsonl when the
	// training schedule has at most this many episodes (-record-train;
	// 0: never, negative: always); not saved.
	RecordTrain int   `json:"-"`
	Seed        int64 `json:"seed"`
	// Seeds, when set, repeats the run once per run seed, each in its own
	// sub-run <run>/seeds/<seed>/ (SeedRun); eval then also combines them
	// with intervals over the seeds.
	Seeds []int64 `json:"seeds,omitempty"`
	// Shard is the part of the work this process does (-shard i/n); not
	// saved: every part records the same configuration.
	Shard Shard `json:"-"`
	// metricsAlso is a second run directory whose metrics.jsonl gets the
	// training's lines (the parent of a seed's sub-run).
	metricsAlso string
	Workers     int `json:"workers"`
	Iterations  int `json:"iterations"`
	// PerType is the number of training tasks per task type (0: every
	// one; PerTypeEnvDefault: the environment's paper's, see Resolved).
	PerType int `json:"per_type"`
	// TaskOrder is the order of the training tasks in an iteration ("" in
	// a config.json means TaskOrderSuite: it was written before the choice).
	TaskOrder TaskOrder `json:"task_order,omitempty"`

	Env   EnvConfig    `json:"env"`
	LLM   LLMConfig    `json:"llm"`
	SAMem samem.Config `json:"samem"`
	// Thinker configures SAMem's (and the no-memory baseline's) thinker.
	Thinker thought.Config `json:"thinker"`
	// CLIN configures clin and its variants (seed 004).
	CLIN clin.Config `json:"clin"`
	// KGPlan configures kgplan (L3M+P, seed 003).
	KGPlan kgplan.Config `json:"kgplan"`
	// AriGraph configures arigraph and its variant (seed 000).
	AriGraph arigraph.Config `json:"arigraph"`
	// MemStream configures the memory stream (seed 001).
	MemStream memstream.Config `json:"memstream,omitzero"`
	// AutoGuide configures autoguide (Fu et al. 2024).
	AutoGuide autoguide.Config `json:"autoguide,omitzero"`
	// CDMem configures cdmem (Gao et al. 2025).
	CDMem cdmem.Config `json:"cdmem,omitzero"`
	// ExpeL configures expel and its ablations (Zhao et al. 2024).
	ExpeL expel.Config `json:"expel,omitzero"`
	// AWM configures awm (Wang et al. 2025).
	AWM awm.Config `json:"awm,omitzero"`
	// MemRL configures memrl and its variant.
	MemRL memrl.Config `json:"memrl,omitzero"`
	// The baselines' settings.
	FullHistory baseline.FullHistoryConfig `json:"fullhistory,omitzero"`
	Summary     baseline.SummaryConfig     `json:"summary,omitzero"`
	Reflexion   baseline.ReflexionConfig   `json:"reflexion,omitzero"`
	// Ablation is one of the Table 2 ablations of seed 002; Resolved sets
	// the matching SAMem switch.
	Ablation Ablation `json:"ablation,omitempty"`

	// Eval
	Split string `json:"split,omitempty"`
	Tasks int    `json:"tasks,omitempty"` // evaluate (train: train on) only the first N tasks; 0: all
	// EvalPerType evaluates only the first N tasks of each task type of the
	// split (seed 002 App. B.1: "the top 3 variants of each task type" of
	// ScienceWorld; seed 004 App. C: "the first 10 test variants"); 0: all;
	// PerTypeEnvDefault: the environment's paper's, see Resolved.
	EvalPerType int `json:"eval_per_type,omitempty"`
	// Online: whether memory keeps learning during the evaluation
	// (agent.Online, runner.EvalConfig.Online); "": the environment's
	// paper's protocol, see Resolved (OnlineFor).
	Online Online `json:"online,omitempty"`
	// MaxErrors is how many errored episodes eval tolerates before it
	// keeps its results apart and exits non-zero (-max-errors); not saved.
	MaxErrors int `json:"-"`

	// Cost control (docs/COST.md); not saved. DryRun plays one short
	// episode per method and prints what the whole run would cost.
	// Budget (USD, at -prices) and MaxRequests (requests sent) cap what
	// training spends over all its runs into the directory: it stops at an
	// episode boundary, with a checkpoint, before the next episode would
	// cross them (0: no cap).
	DryRun      bool    `json:"-"`
	Budget      float64 `json:"-"`
	MaxRequests int64   `json:"-"`
}

// EnvConfig selects the environment.
type EnvConfig struct {
	Kind      EnvKind `json:"kind"`
	WorldSeed int64   `json:"world_seed"`          // household: the world's generator seed
	MaxSteps  int     `json:"max_steps,omitempty"` // 0: the environment's default
	Grammar   Grammar `json:"grammar,omitempty"`   // household: "" is Grammar03
	Game      string  `json:"game,omitempty"`      // zmachine: a story file or a folder of them
	// GameSet: zmachine: the games of a folder that are played; "" is
	// GameSetFor(Game), AgentBoard's 20 for a folder of Jericho's games.
	GameSet GameSet `json:"game_set,omitempty"`
	// Interpreter: zmachine: "" or InterpreterZVM (in-process) or InterpreterDfrotz.
	Interpreter Interpreter `json:"interpreter,omitempty"`
	// ValidActions: zmachine: fill each observation's admissible list with the valid actions.
	ValidActions bool    `json:"valid_actions,omitempty"`
	Command      string  `json:"command,omitempty"`   // jsonl: program and arguments, split on spaces
	URL          string  `json:"url,omitempty"`       // agentgym: the server's base URL
	GymKind      GymKind `json:"gym_kind,omitempty"`  // agentgym: "" is GymALFWorld
	GymTrain     string  `json:"gym_train,omitempty"` // agentgym: task indices of train, e.g. "0-99"
	GymValid     string  `json:"gym_valid,omitempty"` // agentgym: task indices of valid_unseen
	GymSeen      string  `json:"gym_seen,omitempty"`  // agentgym: task indices of valid_seen
}

// LLMConfig selects and configures the model backend.
type LLMConfig struct {
	// Backend is the chat backend (and the embedder's unless Embed says
	// otherwise).
	Backend LLMBackend `json:"backend"`
	// Embed is the embedding backend when it differs from Backend's; ""
	// means Backend's own (see EmbedBackend).
	Embed LLMBackend `json:"embed,omitempty"`
	// LocalDir holds the local models' installs ("" : the user's cache
	// folder); LocalThreads and LocalMaxTokens configure the local chat
	// model (0: llm/local's defaults, 1 thread and 256 tokens).
	LocalDir       string `json:"local_dir,omitempty"`
	LocalThreads   int    `json:"local_threads,omitempty"`
	LocalMaxTokens int    `json:"local_max_tokens,omitempty"`

	ChatModel  string `json:"chat_model,omitempty"`
	EmbedModel string `json:"embed_model,omitempty"`
	// EmbedDim is the embedding dimension; 0: DefaultEmbedDim, or
	// local.EmbedDim for local embeddings.
	EmbedDim  int           `json:"embed_dim"`
	ChatURLs  []string      `json:"chat_urls,omitempty"`
	EmbedURLs []string      `json:"embed_urls,omitempty"`
	Timeout   time.Duration `json:"timeout,omitempty"`
	Retries   int           `json:"retries,omitempty"`
	// Concurrency bounds the model requests in flight; 0 means
	// max(8, workers), so that parallel episodes are never throttled by the
	// client (measured: 16 workers with 8 in flight ran at half speed).
	Concurrency int    `json:"concurrency,omitempty"`
	Prices      string `json:"prices,omitempty"`
	// Temperature is every method's sampling temperature: Resolved copies
	// it into each method's Config (the only place they get it).
	Temperature float64 `json:"temperature"`
	// Cache is the response cache file; "" means <run>/llm-cache.db; "off" disables it.
	Cache string `json:"cache,omitempty"`
	// SendDimensions sends EmbedDim to the server (text-embedding-3-*).
	SendDimensions bool `json:"send_dimensions,omitempty"`
	// Structured says when roles send their JSON schema as response_format
	// (-structured): "" (auto: on for servers that take it), "on" or "off".
	Structured Structured `json:"structured,omitempty"`
	// ReasoningEffort is sent as reasoning_effort with every chat request
	// (-reasoning-effort; "": none).
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// MaxTokens bounds the replies of every role or of some (-max-tokens,
	// llm.ParseMaxTokens: "N", "role=N,...", or both); "": the roles' own.
	MaxTokens string `json:"max_tokens,omitempty"`

	APIKey string `json:"-"` // from OPENAI_API_KEY, never written anywhere
}

// DefaultEmbedDim is the embedding dimension of seed 002 (Sec. 4.1).
const DefaultEmbedDim = 1024

// MaxTemperature is the highest sampling temperature OpenAI-compatible
// servers accept.
const MaxTemperature = 2

// PerTypeEnvDefault, as PerType or EvalPerType, stands for the protocol of
// the environment's paper, which Resolved fills in: seed 002 Sec. 4.1 and
// Appendix B.1 train on 5 tasks per type of ALFWorld and 3 of ScienceWorld,
// and evaluate on every unseen ALFWorld task but on the top 3 variants of
// each ScienceWorld task type. It is the flags' default, so that a count
// the user gives always wins; a zero Config (PerType 0) keeps meaning every
// task.
const PerTypeEnvDefault = -1

// Defaults returns the configuration of `make run`: SAMem on the built-in
// household world with the offline backend and the paper's schedule
// (5 training tasks per type, 9 iterations; seed 002 Sec. 4.1; the task
// counts are the environment's, PerTypeEnvDefault). These are
// the flags' defaults; a default that depends on other settings (a step
// limit, a local model, the ablation's switch) is left zero here and filled
// by Resolved.
func Defaults() Config {
	return Config{
		Run:           filepath.Join("runs", "default"),
		Methods:       []string{samem.Name},
		ProgressEvery: DefaultProgressEvery,
		RecordTrain:   DefaultRecordTrain,
		Seed:          1,
		Workers:       runtime.NumCPU(),
		Iterations:    9,
		PerType:       PerTypeEnvDefault,
		EvalPerType:   PerTypeEnvDefault,
		TaskOrder:     TaskOrderShuffled,
		Env:           EnvConfig{Kind: EnvHousehold, WorldSeed: 1},
		LLM:           LLMConfig{Backend: BackendOffline, Timeout: 120 * time.Second, Retries: 5},
		Split:         "", // the environment's held-out split: Config.Resolved
	}
}

// Validate checks the configuration as given (a zero field means its
// default) and changes nothing. The first problem is returned as a
// *SettingError naming its flag.
func (c Config) Validate() error {
	bad := func(flag string, format string, args ...any) error {
		return &SettingError{Flag: flag, Reason: fmt.Sprintf(format, args...)}
	}
	if strings.TrimSpace(c.Run) == "" {
		return bad("run", "the run directory must not be empty")
	}
	if c.Shard.N < 0 || c.Shard.N > 0 && (c.Shard.Index < 0 || c.Shard.Index >= c.Shard.N) {
		return bad("shard", "%d/%d: want i/n with 0 <= i < n", c.Shard.Index, c.Shard.N)
	}
	if c.Workers < 1 {
		return bad("workers", "%d: need at least 1", c.Workers)
	}
	if c.Iterations < 1 {
		return bad("iterations", "%d: need at least 1", c.Iterations)
	}
	if c.PerType < 0 && c.PerType != PerTypeEnvDefault {
		return bad("per-type", "%d: must not be negative", c.PerType)
	}
	if !c.TaskOrder.valid() {
		return bad("task-order", "%q: want %s", c.TaskOrder, joinEnum(TaskOrders))
	}
	if c.EvalPerType < 0 && c.EvalPerType != PerTypeEnvDefault {
		return bad("per-type", "%d: must not be negative", c.EvalPerType)
	}
	if c.Tasks < 0 {
		return bad("tasks", "%d: must not be negative", c.Tasks)
	}
	if !c.Online.valid() {
		return bad("online", "%q: want on, off or env", string(c.Online))
	}
	if c.MaxErrors < 0 {
		return bad("max-errors", "%d: want 0 or more", c.MaxErrors)
	}
	if !(c.Budget >= 0) || math.IsInf(c.Budget, 0) {
		return bad("budget", "%v: want an amount of US dollars, 0 or more (0: no cap)", c.Budget)
	}
	if c.MaxRequests < 0 {
		return bad("max-requests", "%d: want 0 or more (0: no cap)", c.MaxRequests)
	}
	if c.Budget > 0 {
		prices, err := llm.ParsePrices(c.LLM.Prices)
		if err != nil {
			return bad("prices", "%v", err)
		}
		if len(prices) == 0 {
			return bad("budget", "needs -prices: what requests cost is counted at the models' prices (e.g. -prices gpt-4o-mini=0.15/0.60,text-embedding-3-small=0.02)")
		}
		for _, m := range c.LLM.paidModels() {
			if _, ok := prices[m]; !ok {
				return bad("budget", "-prices has no price for %s, whose requests would then count as free", m)
			}
		}
	}
	if len(c.Methods) == 0 {
		return bad("method", "no method given")
	}
	for _, m := range c.Methods {
		if _, ok := registry[m]; !ok {
			return bad("method", "unknown method %q (known: %s, or all)", m, strings.Join(MethodNames(true), ", "))
		}
	}
	if err := c.Env.validate(); err != nil {
		return err
	}
	if err := c.LLM.validate(); err != nil {
		return err
	}
	if !c.Ablation.valid() {
		return bad("ablation", "unknown ablation %q (known: %s)", c.Ablation, joinEnum(AblationKinds))
	}
	if c.CLIN.Trials < 0 {
		return bad("clin-trials", "%d: must not be negative", c.CLIN.Trials)
	}
	if _, err := pddl.ParsePlanner(c.KGPlan.PlannerSpec); err != nil {
		return bad("planner", "%v", err)
	}
	if t := c.SAMem.Threshold; t < 0 || t > 1 {
		return bad("threshold", "%v: want a cosine similarity in [0, 1]", t)
	}
	if t := c.SAMem.ThoughtThreshold; t < 0 || t > 1 {
		return bad("thought-threshold", "%v: want a cosine similarity in [0, 1]", t)
	}
	if a := c.SAMem.Alpha; a != 0 && !(a > 0 && a <= 1) {
		return bad("alpha", "%v: want a learning rate in (0, 1]", a)
	}
	if s := c.SAMem.Schedule; s != "" && !s.Known() {
		return bad("schedule", "%q: want %s, %s or %s", s, samem.ScheduleBudget, samem.ScheduleEpisode, samem.ScheduleStep)
	}
	if n := c.SAMem.SummaryHistory; n < 0 {
		return bad("summary-history", "%d: want a number of steps, 0 for all", n)
	}
	if m := c.SAMem.TieMargin; !(m >= 0 && m < 1) {
		return bad("tie-margin", "%v: want a fraction in [0, 1)", m)
	}
	return nil
}

func (e EnvConfig) validate() error {
	bad := func(flag string, format string, args ...any) error {
		return &SettingError{Flag: flag, Reason: fmt.Sprintf(format, args...)}
	}
	switch e.Kind {
	case EnvHousehold:
		if !e.Grammar.valid() {
			return bad("grammar", "%q: want %s", e.Grammar, joinEnum(Grammars))
		}
	case EnvZMachine:
		if e.Game == "" {
			return bad("game", "-env zmachine needs a story file or a folder of them")
		}
		if _, err := os.Stat(e.Game); err != nil {
			return bad("game", "%v", err)
		}
		if !e.GameSet.valid() {
			return bad("game-set", "%q: want %s", e.GameSet, joinEnum(GameSets))
		}
		if !e.Interpreter.valid() {
			return bad("interpreter", "%q: want zvm (in-process, the default) or dfrotz", e.Interpreter)
		}
		if e.ValidActions && e.Interpreter == InterpreterDfrotz {
			return bad("valid-actions", "needs the in-process interpreter, not -interpreter dfrotz")
		}
	case EnvJSONL:
		if strings.TrimSpace(e.Command) == "" {
			return bad("env-cmd", "-env jsonl needs the command of the environment program")
		}
	case EnvAgentGym:
		if e.URL == "" {
			return bad("agentgym", "-env agentgym needs the server URL")
		}
		if !e.GymKind.valid() {
			return bad("agentgym-kind", "%q: want %s", e.GymKind, joinEnum(GymKinds))
		}
	default:
		return bad("env", "unknown environment %q (known: %s)", e.Kind, joinEnum(EnvKinds))
	}
	if e.MaxSteps < 0 {
		return bad("max-steps", "%d: must not be negative", e.MaxSteps)
	}
	return nil
}

func (l LLMConfig) validate() error {
	bad := func(flag string, format string, args ...any) error {
		return &SettingError{Flag: flag, Reason: fmt.Sprintf(format, args...)}
	}
	switch l.Backend {
	case BackendOffline:
	case BackendLocal:
		if l.ChatModel != "" && l.ChatModel != local.ChatModel {
			return bad("chat-model", "%q: -llm local runs %s only", l.ChatModel, local.ChatModel)
		}
	case BackendOpenAI, BackendReplay:
		if l.ChatModel == "" {
			return bad("chat-model", "-llm %s needs a chat model", l.Backend)
		}
		if l.EmbedModel == "" && (l.Embed == "" || l.Embed == l.Backend) {
			return bad("embed-model", "-llm %s needs an embedding model", l.Backend)
		}
		if l.Backend == BackendReplay && l.Cache == "off" {
			return bad("cache", "-llm replay answers from the cache; it cannot be off")
		}
	default:
		return bad("llm", "unknown backend %q (known: %s)", l.Backend, joinEnum(Backends))
	}
	switch l.Embed {
	case "", l.Backend:
	case BackendOffline, BackendLocal, BackendOpenAI:
		if l.Backend == BackendReplay {
			return bad("embed", "%q: -llm replay answers embeddings from the cache too; leave -embed out", l.Embed)
		}
		if l.Embed == BackendOpenAI && l.EmbedModel == "" {
			return bad("embed-model", "-embed openai needs an embedding model")
		}
	default:
		return bad("embed", "unknown embedding backend %q (known: %s)", l.Embed, joinEnum(EmbedBackends))
	}
	if l.EmbedBackend() == BackendLocal {
		if l.EmbedModel != "" && l.EmbedModel != local.EmbedModel {
			return bad("embed-model", "%q: local embeddings are %s only", l.EmbedModel, local.EmbedModel)
		}
		if l.EmbedDim != 0 && l.EmbedDim != local.EmbedDim {
			return bad("embed-dim", "%d: local embeddings (%s) have %d dimensions", l.EmbedDim, local.EmbedModel, local.EmbedDim)
		}
	}
	if l.EmbedDim < 0 {
		return bad("embed-dim", "%d: must not be negative (0: %d, or %d for local embeddings)", l.EmbedDim, DefaultEmbedDim, local.EmbedDim)
	}
	if l.LocalThreads < 0 {
		return bad("local-threads", "%d: must not be negative (0: 1 thread)", l.LocalThreads)
	}
	if l.LocalMaxTokens < 0 || l.LocalMaxTokens >= local.DefaultContext {
		return bad("local-max-tokens", "%d: want 0 (the default, %d) to %d", l.LocalMaxTokens, local.DefaultMaxTokens, local.DefaultContext-1)
	}
	if l.Concurrency < 0 {
		return bad("concurrency", "%d: must not be negative (0: max(8, -workers))", l.Concurrency)
	}
	if l.Timeout < 0 {
		return bad("timeout", "%v: must not be negative", l.Timeout)
	}
	if l.Retries < 0 {
		return bad("retries", "%d: must not be negative", l.Retries)
	}
	if t := l.Temperature; !(t >= 0 && t <= MaxTemperature) {
		return bad("temperature", "%v: want 0 to %d", t, MaxTemperature)
	}
	return l.validateReasoning()
}

// ModelRoles are the accounting names of the roles that ask a chat model,
// as -max-tokens names them: a role ("summarize", "clin.controller") is
// named by itself or by the part before its dot.
var ModelRoles = []string{"summarize", "think", "act", "check", "clin", "arigraph", "memstream", "kgplan", "reflexion", "summary", "fullhistory", "autoguide", "cdmem", "memrl", "memrl-no-q"}

var reEffort = regexp.MustCompile(`^[a-z][a-z_-]{0,19}$`)

// validateReasoning checks -structured, -reasoning-effort and -max-tokens.
func (l LLMConfig) validateReasoning() error {
	bad := func(flag string, format string, args ...any) error {
		return &SettingError{Flag: flag, Reason: fmt.Sprintf(format, args...)}
	}
	if !l.Structured.valid() {
		return bad("structured", "%q: want auto, on or off", string(l.Structured))
	}
	if l.ReasoningEffort != "" && !reEffort.MatchString(l.ReasoningEffort) {
		return bad("reasoning-effort", "%q: want a level such as none, minimal, low, medium or high", l.ReasoningEffort)
	}
	bounds, err := llm.ParseMaxTokens(l.MaxTokens)
	if err != nil {
		return bad("max-tokens", "%v", err)
	}
	for name := range bounds {
		if role, _, _ := strings.Cut(name, "."); name != "" && !slices.Contains(ModelRoles, role) {
			return bad("max-tokens", "%q names no role (roles: %s, or one of theirs such as clin.controller)", name, strings.Join(ModelRoles, ", "))
		}
	}
	return nil
}

// paidModels are the models the run sends requests to at a price: those
// of an OpenAI-compatible server (local models and the offline backend
// cost nothing; replay answers from the cache).
func (l LLMConfig) paidModels() []string {
	var out []string
	if l.Backend == BackendOpenAI && l.ChatModel != "" {
		out = append(out, l.ChatModel)
	}
	if l.EmbedBackend() == BackendOpenAI && l.EmbedModel != "" {
		out = append(out, l.EmbedModel)
	}
	return out
}

// Settings are the model settings of the configuration that apply to every
// chat request (see llm.Settings); l must have passed Validate.
func (l LLMConfig) Settings() llm.Settings {
	bounds, _ := llm.ParseMaxTokens(l.MaxTokens)
	return llm.Settings{MaxTokens: bounds, ReasoningEffort: l.ReasoningEffort, NoSchemas: l.Structured == StructuredOff}
}

// EmbedBackend is the backend of the embedder: Embed when set, else
// Backend ("replay": from the cache).
func (c LLMConfig) EmbedBackend() LLMBackend {
	if c.Embed != "" {
		return c.Embed
	}
	return c.Backend
}

// Describe names the backend and, when it differs, the embedding backend,
// for the first line of a run.
func (c LLMConfig) Describe() string {
	if c.Embed == "" || c.Embed == c.Backend {
		return string(c.Backend) + " backend"
	}
	return string(c.Backend) + " backend, " + string(c.Embed) + " embeddings"
}

// CachePath is the response cache file, or "" when caching is off.
func (c *Config) CachePath() string {
	switch c.LLM.Cache {
	case "off":
		return ""
	case "":
		return filepath.Join(c.Run, "llm-cache.db")
	}
	return c.LLM.Cache
}

// ConfigFile is the resolved configuration inside a run directory.
const ConfigFile = "config.json"

// JSON renders the configuration (no secret: APIKey is not serialised).
func (c Config) JSON() string {
	b, _ := json.MarshalIndent(c, "", "  ")
	return string(b)
}

// LoadConfig reads a run directory's config.json.
func LoadConfig(run string) (Config, error) {
	path := filepath.Join(run, ConfigFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	return legacyDefaults(c), nil
}

// ConfigVersion is the version of config.json's format that Resolved
// records. Version 1: the record holds a value for every setting whose
// default changed before it (see legacyDefaults).
const ConfigVersion = 1

// legacyDefaults fills the settings a config.json written before
// ConfigVersion leaves out with the defaults the run was made with, so
// that a resumed or evaluated old run keeps what it trained with (a train
// command with today's defaults is then refused by CheckResume, naming the
// setting, the run's value and the flag that keeps it):
//   - the memory stream kept one stream over training and evaluated with
//     it (-memstream-carry);
//   - the model's summariser saw the last 30 steps (-summary-history 30;
//     not filled for the offline backend, whose summariser reads none);
//   - a folder of Z-machine games was played whole (-game-set all), with
//     the games' own step limits.
//
// A record without a version whose schedule is ScheduleBudget was written
// after the first two changed (they came with that schedule): only the
// game set is filled there.
func legacyDefaults(c Config) Config {
	if c.Version != 0 {
		return c
	}
	if c.Env.Kind == EnvZMachine && c.Env.GameSet == "" {
		c.Env.GameSet = GameSetAll
	}
	if c.SAMem.Schedule == samem.ScheduleBudget {
		return c
	}
	c.MemStream.Carry = true
	// The bound applied to the model's summariser only: an offline run's
	// summariser reads no history, and its record keeps the default.
	if c.SAMem.SummaryHistory == 0 && c.LLM.Backend != BackendOffline {
		c.SAMem.SummaryHistory = LegacySummaryHistory
	}
	return c
}

// LegacySummaryHistory is the summariser's history bound of runs recorded
// before ConfigVersion (summarize.LLM.MaxHistory was 30 then).
const LegacySummaryHistory = 30
