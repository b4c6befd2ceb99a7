package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/agentgym"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/llm/local"
)

// Resolved is the configuration with every default the code applies made
// explicit: the one place where a zero setting becomes the value a run
// uses. It is what the drivers run with and what is recorded (config.json,
// checkpoints, each evaluation's summary.json and results rows): the
// methods' own defaults (samem.Config.Resolved: thresholds, alpha, gamma,
// eps0, beta and forgetting bound; CLIN's; the thinker's), the ablation's
// switch, -temperature in every method's Config, the household grammar,
// the step limit where one applies to every task, the environment's task
// counts per type where they were left to it (PerTypeEnvDefault: see
// envPerType), the local models, the
// embedding dimension and the number of model requests in flight. A step
// limit that depends on the task (ScienceWorld's per level, Z-machine
// games') stays 0 here; each result row records its task's limit.
// Resolved is idempotent.
func (c Config) Resolved() Config {
	c.Version = ConfigVersion
	if c.TaskOrder == "" {
		c.TaskOrder = TaskOrderSuite
	}
	switch c.Ablation {
	case AblationNoQ:
		c.SAMem.NoQ = true
	case AblationNoSituation:
		c.SAMem.NoClustering = true
	case AblationNoDecay:
		c.SAMem.NoDecay = true
	}
	c.SAMem = c.SAMem.Resolved()
	c.Thinker = c.Thinker.Resolved()
	c.CLIN = c.CLIN.Resolved()
	c.AutoGuide = c.AutoGuide.Resolved()
	c.CDMem = c.CDMem.Resolved()
	c.ExpeL = c.ExpeL.Resolved()
	c.AWM = c.AWM.Resolved()
	t := c.LLM.Temperature
	c.Thinker.Temperature, c.CLIN.Temperature, c.AriGraph.Temperature = t, t, t
	c.MemStream.Temperature, c.KGPlan.Temperature = t, t
	c.AutoGuide.Temperature, c.CDMem.Temperature = t, t
	c.ExpeL.Temperature, c.AWM.Temperature = t, t
	c.MemRL = c.MemRL.Resolved()
	c.MemRL.Temperature = t
	c.FullHistory.Actor.Temperature, c.Summary.Actor.Temperature, c.Reflexion.Actor.Temperature = t, t, t
	switch c.Env.Kind {
	case EnvHousehold:
		if c.Env.Grammar == "" {
			c.Env.Grammar = Grammar03
		}
		if c.Env.MaxSteps == 0 {
			c.Env.MaxSteps = household.DefaultMaxSteps
		}
	case EnvZMachine:
		if c.Split == "" {
			c.Split = envbridge.SplitValidSeen
		}
		if c.Env.Interpreter == "" {
			c.Env.Interpreter = InterpreterZVM
		}
		if c.Env.GameSet == "" {
			c.Env.GameSet = GameSetFor(c.Env.Game)
		}
		if c.Env.MaxSteps == 0 && c.Env.GameSet == GameSetAgentBoard {
			c.Env.MaxSteps = AgentBoardMaxSteps
		}
	case EnvAgentGym:
		switch c.Env.GymKind {
		case "":
			c.Env.GymKind = GymALFWorld
		case "scienceworld":
			c.Env.GymKind = GymScienceWorld
		}
		if c.Env.MaxSteps == 0 && c.Env.GymKind == GymALFWorld {
			c.Env.MaxSteps = agentgym.DefaultMaxSteps
		}
	}
	if c.Split == "" {
		c.Split = envbridge.SplitValidUnseen
	}
	if c.Online == "" {
		c.Online = OnlineFor(c.Env)
	}
	train, eval := envPerType(c.Env)
	if c.PerType == PerTypeEnvDefault {
		c.PerType = train
	}
	if c.EvalPerType == PerTypeEnvDefault {
		c.EvalPerType = eval
	}
	if c.LLM.Embed == c.LLM.Backend {
		c.LLM.Embed = ""
	}
	if c.LLM.Backend == BackendLocal {
		c.LLM.ChatModel = local.ChatModel
	}
	switch {
	case c.LLM.EmbedBackend() == BackendLocal:
		c.LLM.EmbedModel, c.LLM.EmbedDim = local.EmbedModel, local.EmbedDim
	case c.LLM.EmbedDim == 0:
		c.LLM.EmbedDim = DefaultEmbedDim
	}
	if c.LLM.Concurrency == 0 {
		c.LLM.Concurrency = c.LLM.concurrency(c.Workers)
	}
	return c
}

// envPerType is the protocol of env's paper: training tasks and evaluated
// tasks per task type (0: every one). Seed 002 Sec. 4.1 trains on "five
// tasks from each task type" of ALFWorld and evaluates on all its unseen
// tasks; for ScienceWorld (Appendix B.1) it "randomly select[s] three tasks
// per task type" for training and evaluates on "the top 3 variants of each
// task type", the first three of the split in its order (runner.PerType).
// Every other environment keeps the household protocol. env is resolved
// (its GymKind named).
func envPerType(env EnvConfig) (train, eval int) {
	if env.Kind == EnvAgentGym && env.GymKind == GymScienceWorld {
		return 3, 3
	}
	return 5, 0
}

// EvalOverrides lists, as sorted "flag=value", the settings of an
// evaluation that change what it measures and differ from the
// configuration the run was trained with (base): -world-seed, -grammar,
// -max-steps, -seed, -tasks, a model or a threshold; each is named by its
// eval flag (Settings). Both sides are compared resolved, so that naming a
// default explicitly is no override. Settings that only change how the
// evaluation executes (workers, timeouts, the cache) are never overrides.
func EvalOverrides(base, eval Config) []string {
	var out []string
	for _, d := range differences(base, eval, func(s Setting) bool {
		return s.Cmds&CmdEval != 0 && s.Effect == ChangesResult
	}) {
		v := d.New
		if v == "" {
			v = "none"
		}
		out = append(out, d.Flag+"="+v)
	}
	sort.Strings(out)
	return out
}

// EvalName is the directory of an evaluation under <run>/eval/: the split,
// then each override as -flag=value (valid_unseen, valid_unseen-world-seed=7),
// so that evaluations with other settings never overwrite each other. A
// name over 120 bytes keeps its first overrides and a hash of all of them.
func EvalName(split string, overrides []string) string {
	name := split
	for _, o := range overrides {
		name += "-" + o
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\' || r == ' ' || r == ':' || r < 0x20 || r == 0x7f:
			return '_'
		}
		return r
	}, name)
	if len(name) > 120 {
		sum := sha256.Sum256([]byte(name))
		name = fmt.Sprintf("%s-%x", name[:100], sum[:6])
	}
	return name
}

// EvalDir is where the evaluation of cfg writes: <run>/eval/<EvalName>,
// with the overrides against the run's config.json. A run never trained
// has none: its environment and model are the evaluation's own, and only
// the selection of tasks (-tasks, -per-type) can be an override.
func EvalDir(cfg Config) (dir string, overrides []string, err error) {
	base, err := LoadConfig(cfg.Run)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, err
		}
		base = cfg
		base.Tasks, base.EvalPerType = 0, PerTypeEnvDefault
	}
	overrides = EvalOverrides(base, cfg)
	return filepath.Join(cfg.Run, "eval", EvalName(cfg.Resolved().Split, overrides)), overrides, nil
}

// Table1 is an evaluation as seed 002 Table 1 reports it: success ratio
// (%) and average reward (score, of 100); see runner.Summary.
type Table1 struct {
	SR float64 `json:"sr"`
	AR float64 `json:"ar"`
}

// EvalRecord is what makes an evaluation what it is, kept with each
// method's result in summary.json: the evaluation's overrides of the run's
// configuration and every resolved parameter.
type EvalRecord struct {
	Overrides []string `json:"overrides"`
	Config    *Config  `json:"config,omitempty"`
}

// RowRecord is the same for each row of results.parquet: the task's step
// limit as it was played (ScienceWorld's per level), the overrides, and the
// resolved configuration as JSON (one dictionary entry per file).
type RowRecord struct {
	MaxSteps   int64  `parquet:"max_steps"`
	Overrides  string `parquet:"overrides,dict"`
	ConfigJSON string `parquet:"config_json,dict"`
}

// recordSettings writes the evaluation's settings into its results and rows.
func recordSettings(cfg Config, overrides []string, results []EvalResult, rows []EpisodeRow) {
	r := cfg.Resolved()
	js := r.JSON()
	if overrides == nil {
		overrides = []string{}
	}
	for i := range results {
		results[i].EvalRecord = EvalRecord{Overrides: overrides, Config: &r}
	}
	joined := strings.Join(overrides, " ")
	for i := range rows {
		rows[i].Overrides, rows[i].ConfigJSON = joined, js
	}
}

// paperOracle is seed 002 Table 4's oracle steps per ALFWorld task type,
// for the SPL of the built-in household world and of real ALFWorld through
// AgentGym (whose tasks carry ALFWorld's type names once identified); nil
// for other environments.
func paperOracle(env EnvConfig) map[string]int {
	if env.Kind == EnvHousehold || (env.Kind == EnvAgentGym && (env.GymKind == "" || env.GymKind == GymALFWorld)) {
		return household.PaperOracleSteps()
	}
	return nil
}

// earlier is what an evaluation directory holds of methods that the
// evaluation under way does not evaluate again.
type earlier struct {
	results []EvalResult
	rows    []EpisodeRow
	traj    [][]byte // trajectories.jsonl lines
}

// keepEarlier reads what dir holds of methods other than those evaluated
// now, so that evaluating another method with the same settings adds it
// beside the earlier ones instead of dropping them. When the earlier files
// cannot be read (a results file of an older format, a damaged file), the
// directory is moved aside to dir.earlier-N, whose path is returned: nothing
// saved is lost either way. Earlier results of the other protocol (a
// frozen evaluation beside an online one, online true) are not mixed with
// the new ones: the directory is moved aside too.
func keepEarlier(ctx context.Context, dir string, methods []string, online bool) (earlier, string, error) {
	var prev []EvalResult
	if err := readJSON(filepath.Join(dir, SummaryFile), &prev); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return earlier{}, "", nil
		}
		return moveAside(dir)
	}
	var e earlier
	for _, r := range prev {
		if !slices.Contains(methods, r.Method) {
			if (r.Online != nil) != online {
				return moveAside(dir)
			}
			e.results = append(e.results, r)
		}
	}
	if len(e.results) == 0 {
		return earlier{}, "", nil // every earlier method is evaluated again
	}
	rows, err := checkpoints.ReadFile[EpisodeRow](ctx, filepath.Join(dir, ResultsFile))
	if err != nil {
		return moveAside(dir)
	}
	for _, r := range rows {
		if !slices.Contains(methods, r.Method) {
			e.rows = append(e.rows, r)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, TrajectoriesFile))
	if err != nil {
		return moveAside(dir)
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var head struct {
			Method string `json:"method"`
		}
		if len(line) > 0 && json.Unmarshal(line, &head) == nil && !slices.Contains(methods, head.Method) {
			e.traj = append(e.traj, line)
		}
	}
	return e, "", nil
}

// moveAside renames dir to the first free dir.earlier-N.
func moveAside(dir string) (earlier, string, error) {
	for n := 1; ; n++ {
		to := fmt.Sprintf("%s.earlier-%d", dir, n)
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		if err := os.Rename(dir, to); err != nil {
			return earlier{}, "", fmt.Errorf("move the earlier evaluation aside: %w", err)
		}
		return earlier{}, to, nil
	}
}

// appendLines adds lines to the end of a file.
func appendLines(path string, lines [][]byte) error {
	if len(lines) == 0 {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if _, err := f.Write(append(l, '\n')); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return f.Close()
}

// ReportPath is the report folder of the evaluation named evalName (a
// directory under <run>/eval/): <run>/report for an evaluation with the
// run's own settings, <run>/report/<evalName> for one with overrides, so
// that its report does not replace the run's.
func ReportPath(run, evalName string) string {
	if strings.Contains(evalName, "=") {
		return filepath.Join(run, ReportDir, evalName)
	}
	return filepath.Join(run, ReportDir)
}
