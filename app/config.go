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
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/samem/trainer/llm"

	"github.com/samem/trainer/llm/local"
	"github.com/samem/trainer/samem"
)

// ErrConfig is wrapped by every configuration error; the message names the
// flag and what is wrong with its value.
var ErrConfig = errors.New("invalid configuration")

// Config is a run's resolved configuration. It is written to the run
// directory as config.json (it never holds a secret: the API key is kept
// apart, in LLM.APIKey, which is not serialised).
type Config struct {
	Run     string   `json:"run"`
	Methods []string `json:"methods"`
	// FitOnly (from -method all) drops the methods that cannot run on the
	// environment instead of refusing the run; not saved.
	FitOnly bool `json:"-"`
	// ProgressEvery is the longest silence of a batch in progress when
	// stderr is not a terminal (-progress-every; 0: 30 s); not saved.
	ProgressEvery time.Duration `json:"-"`
	Seed          int64         `json:"seed"`
	Workers       int           `json:"workers"`
	Iterations    int           `json:"iterations"`
	PerType       int           `json:"per_type"`
	// TaskOrder is the order of the training tasks in an iteration:
	// TaskOrderShuffled (Defaults) or TaskOrderSuite ("" in a config.json
	// written before issue 15 means the suite's order).
	TaskOrder string `json:"task_order,omitempty"`

	Env   EnvConfig    `json:"env"`
	LLM   LLMConfig    `json:"llm"`
	SAMem samem.Config `json:"samem"`
	// Thinker configures SAMem's (and the no-memory baseline's) thinker.
	Thinker ThinkerConfig `json:"thinker"`
	// CLIN configures the clin method (seed 004).
	CLIN CLINConfig `json:"clin"`
	// KGPlan configures the kgplan method (L3M+P).
	KGPlan KGPlanConfig `json:"kgplan"`
	// AriGraph configures the arigraph method (and its variants).
	AriGraph AriGraphConfig `json:"arigraph"`
	// Ablation is one of the Table 2 ablations of seed 002 ("", "no-q",
	// "no-situation", "no-decay"); it sets the matching SAMem switches.
	Ablation string `json:"ablation,omitempty"`

	// Eval
	Split string `json:"split,omitempty"`
	Tasks int    `json:"tasks,omitempty"` // evaluate (train: train on) only the first N tasks; 0: all
	// EvalPerType evaluates only the first N tasks of each task type of the
	// split (seed 002 App. B.1: "the top 3 variants of each task type" of
	// ScienceWorld; seed 004 App. C: "the first 10 test variants"); 0: all.
	EvalPerType int `json:"eval_per_type,omitempty"`
	// MaxErrors is how many errored episodes eval tolerates before it
	// keeps its results apart and exits non-zero (-max-errors); not saved.
	MaxErrors int `json:"-"`
}

// EnvConfig selects the environment.
type EnvConfig struct {
	Kind      string `json:"kind"`                // household, zmachine, jsonl, agentgym
	WorldSeed int64  `json:"world_seed"`          // household: the world's generator seed
	MaxSteps  int    `json:"max_steps,omitempty"` // 0: the environment's default
	Grammar   string `json:"grammar,omitempty"`   // household: "0.3" (default) or "0.4"
	Game      string `json:"game,omitempty"`      // zmachine: a story file or a folder of them
	// Interpreter: zmachine: "" (in-process, envbridge/zmachine/zvm) or "dfrotz" (a child process).
	Interpreter string `json:"interpreter,omitempty"`
	// ValidActions: zmachine: fill each observation's admissible list with the valid actions.
	ValidActions bool   `json:"valid_actions,omitempty"`
	Command      string `json:"command,omitempty"`   // jsonl: program and arguments, split on spaces
	URL          string `json:"url,omitempty"`       // agentgym: the server's base URL
	GymKind      string `json:"gym_kind,omitempty"`  // agentgym: alfworld or sciworld
	GymTrain     string `json:"gym_train,omitempty"` // agentgym: task indices of train, e.g. "0-99"
	GymValid     string `json:"gym_valid,omitempty"` // agentgym: task indices of valid_unseen
	GymSeen      string `json:"gym_seen,omitempty"`  // agentgym: task indices of valid_seen
}

// ThinkerConfig holds the thinker's switches.
type ThinkerConfig struct {
	// OneCall asks for thought and action in one call that also sees the
	// observation and the admissible actions (the earlier pipeline); off:
	// the thought from the state, then the action, two calls (seed 002 Eq. 3).
	OneCall bool `json:"one_call"`
}

// CLINConfig holds the clin method's settings (seed 004).
type CLINConfig struct {
	// Trials adapting a training task's memory; 0: clin.DefaultTrials (5).
	Trials int `json:"trials"`
	// MetaFirstTrial starts a training task's first trial from a
	// meta-memory of the other tasks of its type (off: empty, ADAPT).
	MetaFirstTrial bool `json:"meta_first_trial"`
	// SelectByEmbedding chooses the memory items shown by embedding top-20
	// even with a model (off: a model call selects them, seed 004 Sec. 3.3).
	SelectByEmbedding bool `json:"select_by_embedding"`
}

// KGPlanConfig holds the kgplan method's switches (seed 003).
type KGPlanConfig struct {
	// Planner is "" or "astar" (the built-in A*), "fast-downward=PATH"
	// (Fast Downward's driver, A* + LM-cut), or an external planner's
	// command line "PROG ARGS" with the placeholders {domain}, {problem} and
	// {plan} (split on spaces, run without a shell).
	Planner string `json:"planner,omitempty"`
	// NoLifelong starts every episode with an empty graph (off: an episode
	// of a task starts from the graph learned in training, seed 003).
	NoLifelong bool `json:"no_lifelong"`
}

// AriGraphConfig holds the arigraph method's switches (seed 000).
type AriGraphConfig struct {
	// Carry keeps each task's map and the type-level placements across
	// episodes (this project's option); off: every episode starts empty, as
	// in the paper.
	Carry bool `json:"carry"`
	// NoEpisodic turns episodic retrieval off (seed 000 Fig. 4's ablation).
	NoEpisodic bool `json:"no_episodic"`
}

// LLMConfig selects and configures the model backend.
type LLMConfig struct {
	// Backend: "offline" (rule-based roles, hashing embedder; no server),
	// "openai" (any OpenAI-compatible server), "local" (TinyLlama chat and
	// USE embeddings run on this machine by llm/local; no key), or "replay"
	// (answer every request from the cache of an earlier run; no server).
	Backend string `json:"backend"`
	// Embed is the embedding backend when it differs from Backend's:
	// "offline" (hashing), "openai" or "local" (USE, 512 dimensions);
	// "" means Backend's own (see EmbedBackend).
	Embed string `json:"embed,omitempty"`
	// LocalDir holds the local models' installs ("" : the user's cache
	// folder); LocalThreads and LocalMaxTokens configure the local chat
	// model (0: llm/local's defaults, 1 thread and 256 tokens).
	LocalDir       string `json:"local_dir,omitempty"`
	LocalThreads   int    `json:"local_threads,omitempty"`
	LocalMaxTokens int    `json:"local_max_tokens,omitempty"`

	ChatModel  string        `json:"chat_model,omitempty"`
	EmbedModel string        `json:"embed_model,omitempty"`
	EmbedDim   int           `json:"embed_dim"`
	ChatURLs   []string      `json:"chat_urls,omitempty"`
	EmbedURLs  []string      `json:"embed_urls,omitempty"`
	Timeout    time.Duration `json:"timeout,omitempty"`
	Retries    int           `json:"retries,omitempty"`
	// Concurrency bounds the model requests in flight; 0 means
	// max(8, workers), so that parallel episodes are never throttled by the
	// client (measured: 16 workers with 8 in flight ran at half speed).
	Concurrency int     `json:"concurrency,omitempty"`
	Prices      string  `json:"prices,omitempty"`
	Temperature float64 `json:"temperature"`
	// Cache is the response cache file; "" means <run>/llm-cache.db; "off" disables it.
	Cache string `json:"cache,omitempty"`
	// SendDimensions sends EmbedDim to the server (text-embedding-3-*).
	SendDimensions bool `json:"send_dimensions,omitempty"`
	// Structured says when roles send their JSON schema as response_format
	// (-structured): "" (auto: on for servers that take it), "on" or "off".
	Structured string `json:"structured,omitempty"`
	// ReasoningEffort is sent as reasoning_effort with every chat request
	// (-reasoning-effort; "": none).
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// MaxTokens bounds the replies of every role or of some (-max-tokens,
	// llm.ParseMaxTokens: "N", "role=N,...", or both); "": the roles' own.
	MaxTokens string `json:"max_tokens,omitempty"`

	APIKey string `json:"-"` // from OPENAI_API_KEY, never written anywhere
}

// Defaults returns the configuration of `make run`: SAMem on the built-in
// household world with the offline backend and the paper's schedule
// (5 training tasks per type, 9 iterations; seed 002 Sec. 4.1).
func Defaults() Config {
	return Config{
		Run:        filepath.Join("runs", "default"),
		Methods:    []string{samem.Name},
		Seed:       1,
		Workers:    runtime.NumCPU(),
		Iterations: 9,
		PerType:    5,
		TaskOrder:  TaskOrderShuffled,
		Env:        EnvConfig{Kind: "household", WorldSeed: 1},
		LLM:        LLMConfig{Backend: "offline", EmbedDim: 1024, Timeout: 120 * time.Second, Retries: 5},
		Split:      "valid_unseen",
	}
}

// Validate checks the configuration and applies the ablation switches.
func (c *Config) Validate() error {
	bad := func(flag string, format string, args ...any) error {
		return fmt.Errorf("%w: -%s: %s", ErrConfig, flag, fmt.Sprintf(format, args...))
	}
	if strings.TrimSpace(c.Run) == "" {
		return bad("run", "the run directory must not be empty")
	}
	if c.Workers < 1 {
		return bad("workers", "%d: need at least 1", c.Workers)
	}
	if c.Iterations < 1 {
		return bad("iterations", "%d: need at least 1", c.Iterations)
	}
	if c.PerType < 0 {
		return bad("per-type", "%d: must not be negative", c.PerType)
	}
	if c.TaskOrder != "" && c.TaskOrder != TaskOrderShuffled && c.TaskOrder != TaskOrderSuite {
		return bad("task-order", "%q: want %q or %q", c.TaskOrder, TaskOrderShuffled, TaskOrderSuite)
	}
	if c.EvalPerType < 0 {
		return bad("per-type", "%d: must not be negative", c.EvalPerType)
	}
	if c.Tasks < 0 {
		return bad("tasks", "%d: must not be negative", c.Tasks)
	}
	if len(c.Methods) == 0 {
		return bad("method", "no method given")
	}
	for _, m := range c.Methods {
		if _, ok := registry[m]; !ok {
			return bad("method", "unknown method %q (known: %s, or all)", m, strings.Join(MethodNames(true), ", "))
		}
	}
	switch c.Env.Kind {
	case "household":
		if c.Env.Grammar != "" && c.Env.Grammar != "0.3" && c.Env.Grammar != "0.4" {
			return bad("grammar", "%q: want 0.3 or 0.4", c.Env.Grammar)
		}
	case "zmachine":
		if c.Env.Game == "" {
			return bad("game", "-env zmachine needs a story file or a folder of them")
		}
		if _, err := os.Stat(c.Env.Game); err != nil {
			return bad("game", "%v", err)
		}
		if i := c.Env.Interpreter; i != "" && i != "zvm" && i != "dfrotz" {
			return bad("interpreter", "%q: want zvm (in-process, the default) or dfrotz", i)
		}
		if c.Env.ValidActions && c.Env.Interpreter == "dfrotz" {
			return bad("valid-actions", "needs the in-process interpreter, not -interpreter dfrotz")
		}
	case "jsonl":
		if strings.TrimSpace(c.Env.Command) == "" {
			return bad("env-cmd", "-env jsonl needs the command of the environment program")
		}
	case "agentgym":
		if c.Env.URL == "" {
			return bad("agentgym", "-env agentgym needs the server URL")
		}
	default:
		return bad("env", "unknown environment %q (known: household, zmachine, jsonl, agentgym)", c.Env.Kind)
	}
	if c.Env.MaxSteps < 0 {
		return bad("max-steps", "%d: must not be negative", c.Env.MaxSteps)
	}
	switch c.LLM.Backend {
	case "offline":
	case "local":
		if c.LLM.ChatModel != "" && c.LLM.ChatModel != local.ChatModel {
			return bad("chat-model", "%q: -llm local runs %s only", c.LLM.ChatModel, local.ChatModel)
		}
		c.LLM.ChatModel = local.ChatModel
	case "openai", "replay":
		if c.LLM.ChatModel == "" {
			return bad("chat-model", "-llm %s needs a chat model", c.LLM.Backend)
		}
		if c.LLM.EmbedModel == "" && (c.LLM.Embed == "" || c.LLM.Embed == c.LLM.Backend) {
			return bad("embed-model", "-llm %s needs an embedding model", c.LLM.Backend)
		}
		if c.LLM.Backend == "replay" && c.LLM.Cache == "off" {
			return bad("cache", "-llm replay answers from the cache; it cannot be off")
		}
	default:
		return bad("llm", "unknown backend %q (known: offline, openai, local, replay)", c.LLM.Backend)
	}
	switch c.LLM.Embed {
	case "", c.LLM.Backend:
		c.LLM.Embed = ""
	case "offline", "local":
		if c.LLM.Backend == "replay" {
			return bad("embed", "%q: -llm replay answers embeddings from the cache too; leave -embed out", c.LLM.Embed)
		}
	case "openai":
		if c.LLM.Backend == "replay" {
			return bad("embed", "%q: -llm replay answers embeddings from the cache too; leave -embed out", c.LLM.Embed)
		}
		if c.LLM.EmbedModel == "" {
			return bad("embed-model", "-embed openai needs an embedding model")
		}
	default:
		return bad("embed", "unknown embedding backend %q (known: offline, openai, local)", c.LLM.Embed)
	}
	if c.LLM.EmbedBackend() == "local" {
		if c.LLM.EmbedModel != "" && c.LLM.EmbedModel != local.EmbedModel {
			return bad("embed-model", "%q: local embeddings are %s only", c.LLM.EmbedModel, local.EmbedModel)
		}
		c.LLM.EmbedModel = local.EmbedModel
		if c.LLM.EmbedDim != local.EmbedDim {
			return bad("embed-dim", "%d: local embeddings (%s) have %d dimensions", c.LLM.EmbedDim, local.EmbedModel, local.EmbedDim)
		}
	}
	if c.LLM.LocalThreads < 0 {
		return bad("local-threads", "%d: must not be negative (0: 1 thread)", c.LLM.LocalThreads)
	}
	if c.LLM.LocalMaxTokens < 0 || c.LLM.LocalMaxTokens >= local.DefaultContext {
		return bad("local-max-tokens", "%d: want 0 (the default, %d) to %d", c.LLM.LocalMaxTokens, local.DefaultMaxTokens, local.DefaultContext-1)
	}
	if c.LLM.Concurrency < 0 {
		return bad("concurrency", "%d: must not be negative (0: max(8, -workers))", c.LLM.Concurrency)
	}
	if c.LLM.Timeout < 0 {
		return bad("timeout", "%v: must not be negative", c.LLM.Timeout)
	}
	if c.LLM.EmbedDim < 1 {
		return bad("embed-dim", "%d: need at least 1", c.LLM.EmbedDim)
	}
	if err := c.LLM.validateReasoning(); err != nil {
		return err
	}
	switch c.Ablation {
	case "":
	case "no-q":
		c.SAMem.NoQ = true
	case "no-situation":
		c.SAMem.NoClustering = true
	case "no-decay":
		c.SAMem.NoDecay = true
	default:
		return bad("ablation", "unknown ablation %q (known: no-q, no-situation, no-decay)", c.Ablation)
	}
	if c.CLIN.Trials < 0 {
		return bad("clin-trials", "%d: must not be negative", c.CLIN.Trials)
	}
	if _, err := NewPlanner(c.KGPlan.Planner); err != nil {
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
	if s := c.SAMem.Schedule; s != "" && s != samem.ScheduleStep && s != samem.ScheduleEpisode {
		return bad("schedule", "%q: want %s or %s", s, samem.ScheduleEpisode, samem.ScheduleStep)
	}
	if m := c.SAMem.TieMargin; !(m >= 0 && m < 1) {
		return bad("tie-margin", "%v: want a fraction in [0, 1)", m)
	}
	return nil
}

// ModelRoles are the accounting names of the roles that ask a chat model,
// as -max-tokens names them: a role ("summarize", "clin.controller") is
// named by itself or by the part before its dot.
var ModelRoles = []string{"summarize", "think", "act", "check", "clin", "arigraph", "memstream", "kgplan", "reflexion", "summary", "fullhistory"}

var reEffort = regexp.MustCompile(`^[a-z][a-z_-]{0,19}$`)

// validateReasoning checks -structured, -reasoning-effort and -max-tokens,
// and writes -structured auto as "".
func (c *LLMConfig) validateReasoning() error {
	bad := func(flag string, format string, args ...any) error {
		return fmt.Errorf("%w: -%s: %s", ErrConfig, flag, fmt.Sprintf(format, args...))
	}
	switch c.Structured {
	case "", "auto":
		c.Structured = ""
	case "on", "off":
	default:
		return bad("structured", "%q: want auto, on or off", c.Structured)
	}
	if c.ReasoningEffort != "" && !reEffort.MatchString(c.ReasoningEffort) {
		return bad("reasoning-effort", "%q: want a level such as none, minimal, low, medium or high", c.ReasoningEffort)
	}
	bounds, err := llm.ParseMaxTokens(c.MaxTokens)
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

// Settings are the model settings of the configuration that apply to every
// chat request (see llm.Settings); c must have passed Validate.
func (c LLMConfig) Settings() llm.Settings {
	bounds, _ := llm.ParseMaxTokens(c.MaxTokens)
	return llm.Settings{MaxTokens: bounds, ReasoningEffort: c.ReasoningEffort, NoSchemas: c.Structured == "off"}
}

// EmbedBackend is the backend of the embedder: Embed when set, else
// Backend ("replay": from the cache).
func (c LLMConfig) EmbedBackend() string {
	if c.Embed != "" {
		return c.Embed
	}
	return c.Backend
}

// Describe names the backend and, when it differs, the embedding backend,
// for the first line of a run.
func (c LLMConfig) Describe() string {
	if c.Embed == "" {
		return c.Backend + " backend"
	}
	return c.Backend + " backend, " + c.Embed + " embeddings"
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
	return c, nil
}
