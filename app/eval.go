package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household/hhtext"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/report"
	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/stats"
)

// EvalResult is one method's evaluation (one JSON object per method with -json).
type EvalResult struct {
	Method      string   `json:"method"`
	Split       string   `json:"split"`
	Tasks       int      `json:"tasks"`
	SuccessRate float64  `json:"success_rate"`
	AvgScore    float64  `json:"avg_score"`
	SPL         *float64 `json:"spl"`
	SPLPaper    *float64 `json:"spl_paper,omitempty"`
	AvgSteps    float64  `json:"avg_steps"`
	// Errors is the number of errored episodes (left out of the rates).
	Errors    int `json:"errored"`
	Completed int `json:"completed"`
	// Parse is each model role's reply-parse account (replies, repaired,
	// unusable and what was done then); FallbackShare the largest share of
	// a role's replies replaced by rules or skipped, and MeasuresFallback
	// is set when it passes FallbackFlag: the method's numbers then measure
	// its fallback rules more than the model.
	Parse            map[string]llm.Stats `json:"parse,omitempty"`
	FallbackShare    float64              `json:"fallback_share"`
	MeasuresFallback bool                 `json:"measures_fallback,omitempty"`
	// Tokens are the tokens the method consumed (sent to a server or
	// served by the response cache: the same for every backend, so methods
	// compare alike; seed 002 Fig. 8); TokensSent those a server answered,
	// what CostUSD prices (docs/COST.md).
	Tokens     int64 `json:"tokens"`
	TokensSent int64 `json:"tokens_sent"`
	// ReasoningTokens is the part of the completion tokens the model
	// spent reasoning, as the server reported them (0 when it does not).
	ReasoningTokens int64   `json:"reasoning_tokens"`
	CostUSD         float64 `json:"cost_usd"`
	// Memory is the size of the method's memory (states, thoughts, entries,
	// abstractions, triplets, ...) at the end of the evaluation.
	Memory map[string]int `json:"memory,omitempty"`
	// Online is set when the memory kept learning during the evaluation
	// (-online): the rates are not those of a frozen memory.
	Online     *OnlineRecord             `json:"online,omitempty"`
	ByType     map[string]runner.Summary `json:"by_type"`
	Checkpoint string                    `json:"checkpoint,omitempty"`
	Usage      llm.Report                `json:"usage"`
	// Adapt is set for a method that retries each held-out task (CLIN's
	// G+A): the rates above are then each task's result over its trials
	// (runner.Final), and Adapt holds the first trial's.
	Adapt *AdaptResult `json:"adapt,omitempty"`
	// Seeds are the run seeds the result is over: one, or with -seeds the
	// seeds combined (the rates are then the means of the seeds' rates).
	Seeds []int64 `json:"seeds"`
	// CI holds the rates' 95 % intervals (over the seeds, or over the tasks
	// with one seed) and Paired the comparisons with the no-memory
	// baseline and SAMem on the same tasks and seeds (stats.PairedMethod).
	CI     Intervals      `json:"intervals"`
	Paired []PairedResult `json:"paired,omitempty"`
	// MemoryUse is how the memory was used (guided steps, invalid actions,
	// progress, tokens building and using memory).
	MemoryUse MemoryUse `json:"memory_use"`
	Table1
	EvalRecord
}

// AdaptResult is what seed 004 Table 2 reports of a method evaluated with
// trials on each held-out task: the first trial (GEN-ENV or GEN-TASK, from
// the meta-memory alone) beside the result after adaptation (G+A, the
// EvalResult's own rates).
type AdaptResult struct {
	// MaxTrials is the most trials a task may get (-clin-trials).
	MaxTrials int `json:"max_trials"`
	// AvgTrials is the mean number of trials played per task.
	AvgTrials float64 `json:"avg_trials"`
	// Episodes is the number of trials played in all.
	Episodes int `json:"episodes"`
	// FirstTrial summarises each task's first trial; FirstByType by type.
	FirstTrial  runner.Summary            `json:"first_trial"`
	FirstByType map[string]runner.Summary `json:"first_by_type"`
}

// EpisodeRow is one evaluated episode in results.parquet.
type EpisodeRow struct {
	// Seed is the run seed; TaskIndex the task's position in the split's
	// evaluated list.
	Seed        int64   `parquet:"seed"`
	TaskIndex   int64   `parquet:"task_index"`
	Method      string  `parquet:"method,dict"`
	Split       string  `parquet:"split,dict"`
	TaskID      string  `parquet:"task_id"`
	Type        string  `parquet:"type,dict"`
	Goal        string  `parquet:"goal"`
	Won         bool    `parquet:"won"`
	Lost        bool    `parquet:"lost"`
	Truncated   bool    `parquet:"truncated"`
	Score       float64 `parquet:"score"`
	MaxScore    float64 `parquet:"max_score"`
	Steps       int64   `parquet:"steps"`
	OracleSteps int64   `parquet:"oracle_steps"`
	SPL         float64 `parquet:"spl"`
	Error       string  `parquet:"error"`
	// Trial is the trial of the task (0 unless the method retries held-out
	// tasks, CLIN's G+A); Final marks the row that is the task's result in
	// the summary (runner.Final): every row of a one-trial method.
	Trial int64 `parquet:"trial"`
	Final bool  `parquet:"final"`
	// The episode's use (runner.Use): tokens, guided steps, actions judged
	// and judged invalid, progress (nil where the environment gives none).
	Tokens         int64    `parquet:"tokens"`
	GuidedSteps    int64    `parquet:"guided_steps"`
	CheckedSteps   int64    `parquet:"checked_steps"`
	InvalidActions int64    `parquet:"invalid_actions"`
	Progress       *float64 `parquet:"progress,optional"`
	ProgressFrom   string   `parquet:"progress_from,dict"`
	RowRecord
}

// FallbackFlag is the share of a role's replies replaced by fallback rules
// (or skipped) above which a method is flagged as measuring its fallback
// rules rather than the model.
const FallbackFlag = 0.20

// ResultsFile and SummaryFile are written to <run>/eval/<split>/.
const (
	ResultsFile      = "results.parquet"
	SummaryFile      = "summary.json"
	TrajectoriesFile = "trajectories.jsonl"
)

// ErrNoCheckpoint is returned by Eval for a method that has not been trained in the run.
var ErrNoCheckpoint = errors.New("method has no checkpoint in this run")

// ErrErrored is returned by Eval when more episodes ended in an error than
// Config.MaxErrors allows: the results were kept apart (PartialSuffix) and
// the earlier complete results and report were left as they were.
var ErrErrored = errors.New("episodes ended in an error")

// PartialSuffix names the directory, beside eval/<split>, where an
// evaluation that did not complete (interrupted, or with more errored
// episodes than -max-errors) keeps its results: eval/<split>.partial.
const PartialSuffix = ".partial"

// Eval evaluates every method of cfg on the same held-out tasks, each from
// its latest checkpoint in cfg.Run (baselines need none), and writes the
// per-episode results, the trajectories, a summary and the usage account
// under <run>/eval/<split>/, then the report.
//
// An episode that ended in an error (the model failing after its retries,
// a replay miss, a dead environment) is errored: it is in no rate, each
// method's row counts them, and when there are more than cfg.MaxErrors in
// all, Eval writes its results to eval/<split>.partial instead, leaves the
// complete earlier results and the report untouched, and returns
// ErrErrored. Results are written to a temporary directory and swapped in
// only when complete.
func Eval(ctx context.Context, cfg Config, io Streams) (results []EvalResult, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Resolved()
	switch {
	case cfg.Shard.Active() && cfg.Online == OnlineOn:
		// The memory of an online evaluation is one sequence of updates
		// over every task; parts played apart would each learn from
		// their own tasks only.
		return nil, &SettingError{Flag: "online", Reason: "an evaluation whose memory keeps learning plays its tasks as one sequence and cannot be split with -shard; evaluate without -shard, or with -online=false"}
	case cfg.Shard.Active():
		return nil, evalShard(ctx, cfg, io)
	case len(cfg.Seeds) > 0:
		// The seeds' combination is written to the parent's evaluation
		// directory: one writer there too (each seed's evalOne locks its
		// own).
		outDir, _, err := EvalDir(cfg)
		if err != nil {
			return nil, err
		}
		unlock, err := lockDir(outDir+EvalLockSuffix, "evaluation directory "+outDir, io.Err)
		if err != nil {
			return nil, err
		}
		defer unlock()
		return evalSeeds(ctx, cfg, io)
	}
	return evalOne(ctx, cfg, io)
}

// evalSetup is what an evaluation of one run seed plays on.
type evalSetup struct {
	suite envbridge.Suite
	tasks []envbridge.Task
	paper map[string]int
}

// setUpEval opens the suite of cfg and selects the split's tasks.
func setUpEval(ctx context.Context, cfg *Config, log io.Writer) (evalSetup, error) {
	suite, err := NewSuite(ctx, cfg.Env, cfg.Seed)
	if err != nil {
		return evalSetup{}, fmt.Errorf("environment: %w", err)
	}
	if err := fitMethods(cfg, suite, log); err != nil {
		return evalSetup{}, err
	}
	if err := IdentifySuite(ctx, suite, cfg.Run); err != nil {
		return evalSetup{}, fmt.Errorf("environment: %w", err)
	}
	tasks, err := suite.Tasks(cfg.Split)
	if err != nil {
		return evalSetup{}, fmt.Errorf("%w: -split %s: %v (the splits of %s: %s)", ErrConfig, cfg.Split, err, suite.Name(), strings.Join(suite.Splits(), ", "))
	}
	if len(tasks) == 0 {
		return evalSetup{}, fmt.Errorf("%w: -split %s: %s has no tasks in it (its splits: %s)", ErrConfig, cfg.Split, suite.Name(), strings.Join(suite.Splits(), ", "))
	}
	tasks = runner.PerType(tasks, cfg.EvalPerType)
	if cfg.Tasks > 0 && cfg.Tasks < len(tasks) {
		tasks = tasks[:cfg.Tasks]
	}
	return evalSetup{suite: suite, tasks: tasks, paper: paperOracle(cfg.Env)}, nil
}

// methodRun is one method's evaluation on one run seed: every episode in
// (task, trial) order, as one process played them or as the parts of a
// sharded evaluation merged.
type methodRun struct {
	Name       string
	Episodes   []runner.Episode
	Usage      llm.Report
	Checkpoint string
	Memory     map[string]int
	Trials     int
	// Online is set when the memory kept learning; Learned is then the
	// directory saveOnline wrote the memory to ("": nothing saved), moved
	// into the evaluation's directory by writeEvaluation.
	Online  *OnlineRecord
	Learned string
}

// loadMethod builds a method of cfg on backend and loads its latest
// checkpoint, printing what the load and the checkpoint warn of.
func loadMethod(ctx context.Context, cfg Config, name string, backend *Backend, meter *llm.Meter, log io.Writer) (agent.Method, string, error) {
	m, err := NewMethod(name, cfg, backend.ForMethod(meter))
	if err != nil {
		return nil, "", fmt.Errorf("method %s: %w", name, err)
	}
	ckpt, err := loadLatest(ctx, cfg, name, m, backend)
	if err != nil {
		return nil, "", err
	}
	if lr, ok := m.(agent.LoadReporter); ok {
		for _, n := range lr.LoadNotes() {
			fmt.Fprintf(log, "warning: %s\n", n)
		}
	}
	if ckpt != "" {
		// A memory saved in the middle of an iteration is not the
		// trained one; say so.
		if it, mid, perr := runner.CheckpointProgress(ckpt); perr == nil && mid > 0 {
			fmt.Fprintf(log, "warning: %s is evaluated from checkpoint %s, saved in the middle of training iteration %d (%d episodes of it done): its training did not finish (run train again to complete it)\n", name, ckpt, it+1, mid)
		}
	}
	return m, ckpt, nil
}

// evalOne evaluates the methods of cfg on one run seed (cfg.Run, cfg.Seed).
func evalOne(ctx context.Context, cfg Config, io Streams) (results []EvalResult, err error) {
	outDir, overrides, err := EvalDir(cfg)
	if err != nil {
		return nil, err
	}
	// One writer per evaluation directory, from before anything costs or
	// writes (other evaluations of the run, and training, may go on).
	unlock, err := lockDir(outDir+EvalLockSuffix, "evaluation directory "+outDir, io.Err)
	if err != nil {
		return nil, err
	}
	defer unlock()
	set, err := setUpEval(ctx, &cfg, io.Err)
	if err != nil {
		return nil, err
	}
	backend, err := NewBackend(ctx, cfg, io.Err)
	if err != nil {
		return nil, err
	}
	defer backend.Close()
	kept, movedTo, err := keepEarlier(ctx, outDir, cfg.Methods, cfg.Online == OnlineOn)
	if err != nil {
		return nil, err
	}
	if movedTo != "" {
		fmt.Fprintf(io.Err, "the earlier evaluation in %s could not be extended; moved to %s\n", outDir, movedTo)
	}
	fmt.Fprintf(io.Err, "evaluating %v on %s %s: %d tasks, %d workers, %s\n", cfg.Methods, set.suite.Name(), cfg.Split, len(set.tasks), cfg.Workers, cfg.LLM.Describe())

	// The usage account is printed at the end whatever happens, and saved
	// with the results (complete or partial).
	acct := newAccount("eval", cfg)
	defer func() {
		acct.Run = backend.Meter.Report()
		fmt.Fprint(io.Err, acct.String())
	}()
	var runs []methodRun
	var runErr error
	for _, name := range cfg.Methods {
		meter := llm.NewMeter(mustPrices(cfg))
		m, ckpt, err := loadMethod(ctx, cfg, name, backend, meter, io.Err)
		if err != nil {
			return results, err
		}
		prog := NewProgress(io.Err, io.TTY)
		prog.Meter = meter
		prog.Every = cfg.ProgressEvery
		online := cfg.Online == OnlineOn
		var trained map[string]int
		if sz, ok := m.(agent.Sizer); ok && online {
			trained = sz.Size()
		}
		eps, err := runner.Evaluate(llm.WithMeter(ctx, meter), runner.EvalConfig{Method: m, Suite: set.suite, Tasks: set.tasks, Workers: cfg.Workers, Seed: cfg.Seed, Stop: io.Stop, Progress: prog, Online: online})
		acct.Methods[name] = meter.Report()
		run := methodRun{Name: name, Episodes: eps, Usage: acct.Methods[name], Checkpoint: ckpt, Trials: 1}
		if tr, ok := m.(agent.EvalTrialer); ok {
			run.Trials = max(1, tr.EvalTrials())
		}
		if sz, ok := m.(agent.Sizer); ok {
			run.Memory = sz.Size()
		}
		if online {
			run.Online = &OnlineRecord{Trained: trained, Order: onlineOrder(cfg.Workers)}
			dir, tmp, serr := saveOnline(ctx, outDir, name, ckpt, m)
			if serr != nil {
				err = errors.Join(err, serr)
			}
			if dir != "" {
				defer os.RemoveAll(tmp) // dir is moved into place by writeEvaluation, else dropped with tmp
				run.Learned = dir
				run.Online.Memory = filepath.ToSlash(filepath.Join(checkpoints.OnlineFolder, name))
			}
		}
		runs = append(runs, run)
		if err != nil {
			runErr = fmt.Errorf("eval %s: %w", name, err)
			break
		}
	}
	acct.Run = backend.Meter.Report()
	prov := NewProvenance(ctx, "eval", cfg, set.suite, backend.Embedder, acct.Run.Served)
	return writeEvaluation(ctx, cfg, set.paper, outDir, overrides, kept, runs, acct, prov, runErr, io.Err)
}

// writeEvaluation writes the evaluation of runs (one run seed) into
// outDir, beside what it keeps of earlier methods: the results, the tidy
// table, the summary with its intervals and comparisons, the trajectories,
// the usage account and the provenance record; then the report. With more
// errored episodes than cfg.MaxErrors, or after runErr, the results go to
// outDir.partial instead and the complete earlier ones stay.
func writeEvaluation(ctx context.Context, cfg Config, paper map[string]int, outDir string, overrides []string, kept earlier, runs []methodRun, acct *Account, prov Provenance, runErr error, log io.Writer) ([]EvalResult, error) {
	var (
		results []EvalResult
		rows    []EpisodeRow
		trajs   []runner.Episode
		methods []string
		// superseded marks the trials that are not their task's result
		// (G+A's earlier trials), for trajectories.jsonl.
		superseded []bool
	)
	for _, run := range runs {
		history, herr := TrainingHistory(cfg.Run, run.Name)
		if herr != nil {
			fmt.Fprintf(log, "warning: %v (the training tokens of %s are left out)\n", herr, run.Name)
		}
		res := evalSummary(cfg.Seed, run.Name, cfg.Split, run.Episodes, run.Trials, paper, run.Usage, history)
		res.Checkpoint = run.Checkpoint
		res.Memory = run.Memory
		res.Online = run.Online
		results = append(results, res)
		rows = append(rows, episodeRows(cfg.Seed, run.Name, cfg.Split, run.Episodes, paper)...)
		fin := finalTrials(run.Episodes)
		for _, e := range run.Episodes {
			trajs = append(trajs, e)
			methods = append(methods, run.Name)
			superseded = append(superseded, !fin(e))
		}
	}
	recordSettings(cfg, overrides, results, rows)
	// The intervals and the paired comparisons are over every method of
	// the directory, the earlier ones kept included.
	allResults := append(slices.Clip(kept.results), results...)
	allRows := append(slices.Clip(kept.rows), rows...)
	addStatistics(allResults, allRows, scoredEnv(cfg))
	results = allResults[len(kept.results):]
	prov.Warnings = append(prov.Warnings, evalWarnings(cfg.Run, prov)...)
	for _, w := range prov.Warnings {
		fmt.Fprintf(log, "warning: %s\n", w)
	}
	errored, firstErr := 0, ""
	for i, e := range trajs {
		if e.Outcome.Err != "" {
			errored++
			if firstErr == "" {
				firstErr = fmt.Sprintf("%s on %s: %s", methods[i], e.Task.ID, e.Outcome.Err)
			}
		}
	}
	if runErr == nil && errored > cfg.MaxErrors {
		per := make([]string, 0, len(results))
		for _, r := range results {
			if r.Errors > 0 {
				per = append(per, fmt.Sprintf("%s %d of %d", r.Method, r.Errors, r.Tasks))
			}
		}
		runErr = fmt.Errorf("%w: %d (%s; -max-errors %d); the first: %s", ErrErrored, errored, strings.Join(per, ", "), cfg.MaxErrors, firstErr)
	}
	complete := runErr == nil
	dest := outDir
	if !complete {
		dest = outDir + PartialSuffix
	}
	evalDir := filepath.Dir(outDir)
	if err := os.MkdirAll(evalDir, 0o755); err != nil {
		return results, errors.Join(runErr, fmt.Errorf("eval directory: %w", err))
	}
	tmp, err := os.MkdirTemp(evalDir, "."+filepath.Base(outDir)+"-*")
	if err != nil {
		return results, errors.Join(runErr, fmt.Errorf("eval directory: %w", err))
	}
	defer os.RemoveAll(tmp)
	write := func() error {
		if err := checkpoints.WriteFile(ctx, filepath.Join(tmp, ResultsFile), allRows, checkpoints.WriteOptions{}); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
		if err := writeTidy(ctx, tmp, allRows); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(tmp, SummaryFile), allResults); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(tmp, ProvenanceFile), prov); err != nil {
			return err
		}
		if err := writeTrajectories(filepath.Join(tmp, TrajectoriesFile), cfg.Seed, methods, superseded, trajs); err != nil {
			return err
		}
		if err := appendLines(filepath.Join(tmp, TrajectoriesFile), kept.traj); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(tmp, EvalUsageFile), acct); err != nil {
			return err
		}
		if err := placeOnlineMemory(tmp, outDir, kept, runs); err != nil {
			return err
		}
		return swapDir(tmp, dest)
	}
	if err := write(); err != nil {
		return results, errors.Join(runErr, err)
	}
	if !complete {
		fmt.Fprintf(log, "partial results: %s (the complete results in %s and the report were left as they were)\n", dest, outDir)
		return results, runErr
	}
	// A complete evaluation supersedes an earlier partial one.
	if err := os.RemoveAll(outDir + PartialSuffix); err != nil {
		return results, err
	}
	fmt.Fprintf(log, "results: %s\n", outDir)
	if _, err := WriteReport(cfg.Run, filepath.Base(outDir)); err != nil {
		return results, err
	}
	fmt.Fprintf(log, "report: %s\n", filepath.Join(ReportPath(cfg.Run, filepath.Base(outDir)), report.MarkdownFile))
	return results, nil
}

// swapDir replaces dest by the directory src (on the same file system):
// dest is either the old directory or the new one, never a mix; a crash
// between the two renames leaves the old one as dest+".old".
func swapDir(src, dest string) error {
	old := dest + ".old"
	os.RemoveAll(old)
	if _, err := os.Stat(dest); err == nil {
		if err := os.Rename(dest, old); err != nil {
			return fmt.Errorf("replace %s: %w", dest, err)
		}
	}
	if err := os.Rename(src, dest); err != nil {
		os.Rename(old, dest) // put the old results back
		return fmt.Errorf("replace %s: %w", dest, err)
	}
	os.RemoveAll(old)
	return nil
}

func mustPrices(cfg Config) map[string]llm.Price {
	p, _ := llm.ParsePrices(cfg.LLM.Prices) // validated by NewBackend
	return p
}

// loadLatest loads the method's latest checkpoint; baselines have none.
func loadLatest(ctx context.Context, cfg Config, name string, m agent.Method, b *Backend) (string, error) {
	saver, ok := m.(agent.Saver)
	if !ok || IsBaseline(name) {
		return "", nil
	}
	dir := filepath.Join(cfg.Run, name)
	if _, err := os.Stat(filepath.Join(dir, checkpoints.Folder)); err != nil {
		return "", fmt.Errorf("%w: %s in %s (train it first: go run ./cmd/train -run %s -method %s)", ErrNoCheckpoint, name, cfg.Run, cfg.Run, name)
	}
	store, err := checkpoints.Open(dir, 0)
	if err != nil {
		return "", fmt.Errorf("method %s: %w", name, err)
	}
	defer store.Close()
	ckpt, meta, err := store.Latest(ctx)
	if errors.Is(err, checkpoints.ErrNoCheckpoint) {
		return "", fmt.Errorf("%w: %s in %s (train it first)", ErrNoCheckpoint, name, cfg.Run)
	}
	if err != nil {
		return "", fmt.Errorf("method %s: %w", name, err)
	}
	if err := checkpoints.CheckCompatible(meta, b.Embedder.Model(), b.Embedder.Dim()); err != nil {
		return "", fmt.Errorf("method %s: %w", name, err)
	}
	if err := saver.Load(ctx, filepath.Join(ckpt, name)); err != nil {
		return "", fmt.Errorf("method %s: %w", name, err)
	}
	return ckpt, nil
}

// evalSummary summarises a method's evaluation. With trials > 1 (G+A) eps
// holds every trial; the rates are over each task's result (runner.Final)
// and Adapt holds the first trials'.
func evalSummary(seed int64, name, split string, eps []runner.Episode, trials int, paper map[string]int, usage llm.Report, history []runner.IterationStats) EvalResult {
	all := eps
	if trials > 1 {
		eps = runner.Final(all)
	}
	s := runner.Summarize(eps, paper)
	res := EvalResult{
		Method: name, Split: split, Tasks: s.Tasks, SuccessRate: s.SuccessRate, AvgScore: s.AvgScore,
		SPL: s.SPL, SPLPaper: s.SPLPaper, AvgSteps: s.AvgSteps, Errors: s.Errors, Completed: s.Completed,
		Tokens:          usage.Total.ConsumedTokens(),
		TokensSent:      usage.Total.SentTokens(),
		ReasoningTokens: usage.Total.ReasoningTokens,
		CostUSD:         usage.Total.CostUSD,
		ByType:          map[string]runner.Summary{}, Usage: usage,
		Table1: Table1{SR: s.SR, AR: s.AR},
		Seeds:  []int64{seed},
	}
	res.MemoryUse = memoryUse(eps, usage, res.Tokens, s.Successes, history)
	for role, st := range usage.ByPurpose {
		if st.Replies == 0 {
			continue
		}
		if res.Parse == nil {
			res.Parse = map[string]llm.Stats{}
		}
		res.Parse[role] = st
		res.FallbackShare = max(res.FallbackShare, st.FallbackShare())
	}
	res.MeasuresFallback = res.FallbackShare > FallbackFlag
	types, groups := runner.ByType(eps)
	for _, t := range types {
		res.ByType[t] = runner.Summarize(groups[t], paper)
	}
	if trials > 1 {
		first := runner.First(all)
		a := &AdaptResult{MaxTrials: trials, Episodes: len(all), FirstTrial: runner.Summarize(first, paper), FirstByType: map[string]runner.Summary{}}
		if len(eps) > 0 {
			a.AvgTrials = float64(len(all)) / float64(len(eps))
		}
		types, groups := runner.ByType(first)
		for _, t := range types {
			a.FirstByType[t] = runner.Summarize(groups[t], paper)
		}
		res.Adapt = a
	}
	return res
}

// trialKey names one trial of one task.
type trialKey struct {
	task  string
	trial int
}

// finalTrials tells the trials that are their task's result
// (runner.Final): every episode when no task was retried.
func finalTrials(eps []runner.Episode) func(runner.Episode) bool {
	retried := false
	for _, e := range eps {
		retried = retried || e.Trial > 0
	}
	if !retried {
		return func(runner.Episode) bool { return true }
	}
	final := map[trialKey]bool{}
	for _, f := range runner.Final(eps) {
		final[trialKey{f.Task.ID, f.Trial}] = true
	}
	return func(e runner.Episode) bool { return final[trialKey{e.Task.ID, e.Trial}] }
}

func episodeRows(seed int64, name, split string, eps []runner.Episode, paper map[string]int) []EpisodeRow {
	rows := make([]EpisodeRow, len(eps))
	final := finalTrials(eps)
	for i, e := range eps {
		o := e.Outcome
		spl := 0.0
		if o.Won && o.Err == "" && e.Task.OracleSteps > 0 {
			spl = runner.SPLTerm(e.Task.OracleSteps, o.Steps)
		}
		rows[i] = EpisodeRow{
			Method: name, Split: split, TaskID: e.Task.ID, Type: e.Task.Type, Goal: e.Task.Goal,
			Won: o.Won && o.Err == "", Lost: o.Lost, Truncated: o.Truncated, Score: o.Score, MaxScore: o.MaxScore,
			Steps: int64(o.Steps), OracleSteps: int64(e.Task.OracleSteps), SPL: spl, Error: o.Err,
			Trial: int64(e.Trial), Final: final(e),
			Seed: seed, TaskIndex: int64(e.Index),
			Tokens: e.Use.Tokens, GuidedSteps: int64(e.Use.GuidedSteps), CheckedSteps: int64(e.Use.CheckedSteps),
			InvalidActions: int64(e.Use.InvalidActions), Progress: e.Use.Progress, ProgressFrom: e.Use.ProgressFrom,
			RowRecord: RowRecord{MaxSteps: int64(e.Task.MaxSteps)},
		}
	}
	return rows
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// trajectory is one line of trajectories.jsonl.
type trajectory struct {
	Method     string `json:"method"`
	Seed       int64  `json:"seed"`
	Superseded bool   `json:"superseded,omitempty"`
	runner.Episode
}

// writeTrajectories writes one JSON line per episode: method, task and
// every step (thought, action, observation, reward); a trial that is not
// its task's result (G+A's earlier trials) is marked superseded.
func writeTrajectories(path string, seed int64, methods []string, superseded []bool, eps []runner.Episode) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	w := bufio.NewWriter(f)
	for i, e := range eps {
		b, err := trajectoryLine(methods[i], seed, superseded[i], e)
		if err == nil {
			_, err = w.Write(append(b, '\n'))
		}
		if err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// PrintTable writes the comparison table, one row per method, in the
// words of docs/COST.md; a method whose memory guided no step is flagged
// in its row and named under the table.
func PrintTable(w *tabwriter.Writer, results []EvalResult) {
	fmt.Fprintln(w, "method\tsplit\ttasks\terrored\tsuccess\t95% CI\tavg score\tSPL\tSPL (Table 4)\tavg steps\tfallback\tmemory guided\trequests sent\tcache hits\ttokens sent\ttokens consumed\tcost (USD)\tmemory")
	var never []string
	for _, r := range results {
		fb := "-"
		if len(r.Parse) > 0 {
			fb = fmt.Sprintf("%.0f%%", 100*r.FallbackShare)
			if r.MeasuresFallback {
				fb += " (measures its fallback rules)"
			}
		}
		if r.NeverGuided() {
			never = append(never, r.Method)
		}
		t := r.Usage.Total
		tokens := fmt.Sprint(r.Tokens)
		if r.ReasoningTokens > 0 {
			tokens += fmt.Sprintf(" (%d reasoning)", r.ReasoningTokens)
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.3f\t%s\t%.3f\t%s\t%s\t%.1f\t%s\t%s\t%d\t%d\t%d\t%s\t%.4f\t%s\n", r.Method, r.Split, r.Tasks, r.Errors, r.SuccessRate, intervalText(r.CI.Success), r.AvgScore, fmtPtr(r.SPL), fmtPtr(r.SPLPaper), r.AvgSteps, fb,
			r.GuidedCell(), t.Requests, t.CacheHits, r.TokensSent, tokens, r.CostUSD, runner.FormatSize(r.Memory))
	}
	w.Flush()
	if len(never) > 0 {
		fmt.Fprintf(w, "⚠ %s: memory never guided a step of this evaluation; the row measures the method as if it had no memory\n", strings.Join(never, ", "))
	}
	if len(results) > 0 {
		iv := results[0].CI.Success
		switch iv.Over {
		case "seeds":
			fmt.Fprintf(w, "95%% intervals over %d run seeds (Student's t on the per-seed rates)\n", iv.N)
		case "tasks":
			fmt.Fprintf(w, "95%% intervals over the tasks of one run seed (Wilson); -seeds gives intervals over seeds\n")
		}
	}
	w.Flush()
}

// intervalText is an interval's bounds, "[0.41, 0.93]", or "-".
func intervalText(iv stats.Interval) string {
	if !iv.Defined() {
		return "-"
	}
	return fmt.Sprintf("[%.3f, %.3f]", iv.Low, iv.High)
}

// PrintPaired writes the paired comparisons of each method with the
// no-memory baseline and SAMem (stats.PairedMethod).
func PrintPaired(w *tabwriter.Writer, results []EvalResult) {
	any := false
	for _, r := range results {
		any = any || len(r.Paired) > 0
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "paired comparison\tagainst\tmetric\tpairs\tdifference\t95% CI\tp-value\tbetter\tworse")
	for _, r := range results {
		for _, p := range r.Paired {
			q := p.Result
			if q.Pairs == 0 {
				fmt.Fprintf(w, "%s\t%s\t%s\t0\t-\t-\t-\t0\t0\n", r.Method, p.Against, p.Metric)
				continue
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%+.3f\t[%+.3f, %+.3f]\t%.3g\t%d\t%d\n", r.Method, p.Against, p.Metric, q.Pairs, q.Difference, q.Low, q.High, q.P, q.Better, q.Worse)
		}
	}
	w.Flush()
	fmt.Fprintf(w, "(%s)\n", stats.PairedMethod)
}

// ResultsNote is the line printed above results of the offline backend
// (report.OfflineNote), or "".
func ResultsNote(cfg Config) string {
	if cfg.LLM.Backend == BackendOffline {
		return report.OfflineNote
	}
	return ""
}

// PrintTable1 writes seed 002 Table 1's columns for environments that keep
// a score (ScienceWorld, Jericho): SR (%) and AR, one row per method.
func PrintTable1(w *tabwriter.Writer, results []EvalResult) {
	fmt.Fprintln(w, "method\tSR (%)\tAR")
	for _, r := range results {
		fmt.Fprintf(w, "%s\t%.1f\t%.1f\n", r.Method, r.SR, r.AR)
	}
	w.Flush()
}

// PrintByType writes a per-type table, one column per method: success
// rates, or with score set, average normalised scores ("-" for a type
// without a score).
func PrintByType(w *tabwriter.Writer, results []EvalResult, score bool) {
	types := map[string]bool{}
	for _, r := range results {
		for t := range r.ByType {
			types[t] = true
		}
	}
	var ts []string
	for t := range types {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	head := []string{"success by type"}
	if score {
		head[0] = "normalised score by type"
	}
	for _, r := range results {
		head = append(head, r.Method)
	}
	fmt.Fprintln(w, strings.Join(head, "\t"))
	for _, t := range ts {
		row := []string{t}
		for _, r := range results {
			s := r.ByType[t]
			switch {
			case !score:
				c := r.CI.ByType[t].Success
				if c.Defined() {
					row = append(row, fmt.Sprintf("%.2f [%.2f, %.2f] (%d)", s.SuccessRate, c.Low, c.High, s.Tasks))
				} else {
					row = append(row, fmt.Sprintf("%.2f (%d)", s.SuccessRate, s.Tasks))
				}
			case s.Unscored:
				row = append(row, "unscored")
			default:
				row = append(row, fmt.Sprintf("%.3f", s.AvgScore))
			}
		}
		fmt.Fprintln(w, strings.Join(row, "\t"))
	}
	w.Flush()
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

// table2Types are ALFWorld's task types in the column order of seed 004
// Table 2, and table2Names the names it gives them.
var (
	table2Types = []string{hhtext.PickAndPlace, hhtext.PickClean, hhtext.PickHeat, hhtext.PickCool, hhtext.LookInLight, hhtext.PickTwo}
	table2Names = []string{"Pick", "Clean", "Heat", "Cool", "Look", "Pick2"}
)

// PrintCLINTable2 writes CLIN's rows as seed 004 Table 2 lays them out:
// success (%) per task type and over all tasks, one row per setting. A
// method evaluated with trials (G+A) gives two rows: its first trial (the
// meta-memory alone: GEN-ENV, or GEN-TASK for clin-gen-task) and its result
// after adaptation (+A), with the mean trials played. It prints nothing
// when no CLIN method was evaluated.
func PrintCLINTable2(w *tabwriter.Writer, results []EvalResult) {
	var rows []EvalResult
	types := map[string]bool{}
	for _, r := range results {
		if r.Method != "clin" && !strings.HasPrefix(r.Method, "clin-") {
			continue
		}
		rows = append(rows, r)
		for t := range r.ByType {
			types[t] = true
		}
	}
	if len(rows) == 0 {
		return
	}
	ts := make([]string, 0, len(types))
	for t := range types {
		ts = append(ts, t)
	}
	// ALFWorld's types in Table 2's order and names; others sorted after.
	sort.Slice(ts, func(i, j int) bool {
		a, b := slices.Index(table2Types, ts[i]), slices.Index(table2Types, ts[j])
		if (a < 0) != (b < 0) {
			return a >= 0
		}
		if a != b {
			return a < b
		}
		return ts[i] < ts[j]
	})
	head := make([]string, len(ts))
	for i, t := range ts {
		head[i] = t
		if k := slices.Index(table2Types, t); k >= 0 {
			head[i] = table2Names[k]
		}
	}
	fmt.Fprintln(w, "seed 004 Table 2 (success %)\t"+strings.Join(head, "\t")+"\tAll\ttrials/task\terrored")
	line := func(label string, all runner.Summary, by map[string]runner.Summary, trials string) {
		cells := []string{label}
		for _, t := range ts {
			s, ok := by[t]
			if !ok || s.Completed == 0 {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, fmt.Sprintf("%.1f", 100*s.SuccessRate))
		}
		cells = append(cells, fmt.Sprintf("%.1f", 100*all.SuccessRate), trials, fmt.Sprint(all.Errors))
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	for _, r := range rows {
		setting := "GEN-ENV"
		if r.Method == CLINGenTaskName {
			setting = "GEN-TASK"
		}
		whole := runner.Summary{Tasks: r.Tasks, Completed: r.Completed, SuccessRate: r.SuccessRate, Errors: r.Errors}
		if r.Adapt == nil {
			line(fmt.Sprintf("%s (%s)", r.Method, setting), whole, r.ByType, "1")
			continue
		}
		line(fmt.Sprintf("%s first trial (%s)", r.Method, setting), r.Adapt.FirstTrial, r.Adapt.FirstByType, "1")
		line(fmt.Sprintf("%s (%s+A)", r.Method, setting), whole, r.ByType, fmt.Sprintf("%.2f of %d", r.Adapt.AvgTrials, r.Adapt.MaxTrials))
	}
	w.Flush()
}
