package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/report"
	"github.com/samem/trainer/runner"
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
	Errors      int      `json:"errors"`
	Tokens      int64    `json:"tokens"`
	CostUSD     float64  `json:"cost_usd"`
	// Memory is the size of the method's memory (states, thoughts, entries,
	// abstractions, triplets, ...).
	Memory     map[string]int            `json:"memory,omitempty"`
	ByType     map[string]runner.Summary `json:"by_type"`
	Checkpoint string                    `json:"checkpoint,omitempty"`
	Usage      llm.Report                `json:"usage"`
	Table1
	EvalRecord
}

// EpisodeRow is one evaluated episode in results.parquet.
type EpisodeRow struct {
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
	RowRecord
}

// ResultsFile and SummaryFile are written to <run>/eval/<split>/.
const (
	ResultsFile      = "results.parquet"
	SummaryFile      = "summary.json"
	TrajectoriesFile = "trajectories.jsonl"
)

// ErrNoCheckpoint is returned by Eval for a method that has not been trained in the run.
var ErrNoCheckpoint = errors.New("method has no checkpoint in this run")

// Eval evaluates every method of cfg on the same held-out tasks, each from
// its latest checkpoint in cfg.Run (baselines need none), and writes the
// per-episode results, the trajectories and a summary under
// <run>/eval/<split>/.
func Eval(ctx context.Context, cfg Config, io Streams) ([]EvalResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	suite, err := NewSuite(ctx, cfg.Env, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	if err := IdentifySuite(ctx, suite, cfg.Run); err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	tasks, err := suite.Tasks(cfg.Split)
	if err != nil {
		return nil, fmt.Errorf("%w: -split %s: %v (the splits of %s: %s)", ErrConfig, cfg.Split, err, suite.Name(), strings.Join(suite.Splits(), ", "))
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%w: -split %s: %s has no tasks in it (its splits: %s)", ErrConfig, cfg.Split, suite.Name(), strings.Join(suite.Splits(), ", "))
	}
	tasks = runner.PerType(tasks, cfg.EvalPerType)
	if cfg.Tasks > 0 && cfg.Tasks < len(tasks) {
		tasks = tasks[:cfg.Tasks]
	}
	paper := paperOracle(cfg.Env)
	backend, err := NewBackend(ctx, cfg, io.Err)
	if err != nil {
		return nil, err
	}
	defer backend.Close()
	outDir, overrides, err := EvalDir(cfg)
	if err != nil {
		return nil, err
	}
	kept, movedTo, err := keepEarlier(ctx, outDir, cfg.Methods)
	if err != nil {
		return nil, err
	}
	if movedTo != "" {
		fmt.Fprintf(io.Err, "the earlier evaluation in %s could not be extended; moved to %s\n", outDir, movedTo)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("eval directory: %w", err)
	}
	fmt.Fprintf(io.Err, "evaluating %v on %s %s: %d tasks, %d workers, %s\n", cfg.Methods, suite.Name(), cfg.Split, len(tasks), cfg.Workers, cfg.LLM.Describe())

	var (
		results []EvalResult
		rows    []EpisodeRow
		trajs   []runner.Episode
		methods []string
	)
	for _, name := range cfg.Methods {
		meter := llm.NewMeter(mustPrices(cfg))
		m, err := NewMethod(name, cfg, backend.ForMethod(meter))
		if err != nil {
			return results, fmt.Errorf("method %s: %w", name, err)
		}
		ckpt, err := loadLatest(ctx, cfg, name, m, backend)
		if err != nil {
			return results, err
		}
		eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: suite, Tasks: tasks, Workers: cfg.Workers, Seed: cfg.Seed, Stop: io.Stop, Progress: NewProgress(io.Err, io.TTY)})
		res := evalSummary(name, cfg.Split, eps, paper, meter.Report())
		res.Checkpoint = ckpt
		if sz, ok := m.(agent.Sizer); ok {
			res.Memory = sz.Size()
		}
		results = append(results, res)
		rows = append(rows, episodeRows(name, cfg.Split, eps, paper)...)
		for _, e := range eps {
			trajs = append(trajs, e)
			methods = append(methods, name)
		}
		if err != nil {
			return results, fmt.Errorf("eval %s: %w", name, err)
		}
	}
	recordSettings(cfg, overrides, results, rows)
	if err := checkpoints.WriteFile(ctx, filepath.Join(outDir, ResultsFile), append(kept.rows, rows...), checkpoints.WriteOptions{}); err != nil {
		return results, fmt.Errorf("write results: %w", err)
	}
	if err := writeJSON(filepath.Join(outDir, SummaryFile), append(slices.Clip(kept.results), results...)); err != nil {
		return results, err
	}
	if err := writeTrajectories(filepath.Join(outDir, TrajectoriesFile), methods, trajs); err != nil {
		return results, err
	}
	if err := appendLines(filepath.Join(outDir, TrajectoriesFile), kept.traj); err != nil {
		return results, err
	}
	fmt.Fprintf(io.Err, "results: %s\n", outDir)
	if _, err := WriteReport(cfg.Run, filepath.Base(outDir)); err != nil {
		return results, err
	}
	fmt.Fprintf(io.Err, "report: %s\n", filepath.Join(ReportPath(cfg.Run, filepath.Base(outDir)), report.MarkdownFile))
	return results, nil
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

func evalSummary(name, split string, eps []runner.Episode, paper map[string]int, usage llm.Report) EvalResult {
	s := runner.Summarize(eps, paper)
	res := EvalResult{
		Method: name, Split: split, Tasks: s.Tasks, SuccessRate: s.SuccessRate, AvgScore: s.AvgScore,
		SPL: s.SPL, SPLPaper: s.SPLPaper, AvgSteps: s.AvgSteps, Errors: s.Errors,
		Tokens: usage.Total.PromptTokens + usage.Total.CompletionTokens, CostUSD: usage.Total.CostUSD,
		ByType: map[string]runner.Summary{}, Usage: usage,
		Table1: Table1{SR: s.SR, AR: s.AR},
	}
	types, groups := runner.ByType(eps)
	for _, t := range types {
		res.ByType[t] = runner.Summarize(groups[t], paper)
	}
	return res
}

func episodeRows(name, split string, eps []runner.Episode, paper map[string]int) []EpisodeRow {
	rows := make([]EpisodeRow, len(eps))
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

// writeTrajectories writes one JSON line per episode: method, task and
// every step (thought, action, observation, reward).
func writeTrajectories(path string, methods []string, eps []runner.Episode) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i, e := range eps {
		// The admissible lists make up most of a trajectory's bytes and can
		// be regenerated from the task; they are left out.
		trs := make([]agent.Transition, len(e.Transitions))
		for j, tr := range e.Transitions {
			tr.Result.Admissible = nil
			trs[j] = tr
		}
		e.Transitions = trs
		if err := enc.Encode(struct {
			Method string `json:"method"`
			runner.Episode
		}{methods[i], e}); err != nil {
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

// PrintTable writes the comparison table: one row per method, then one per
// method and task type.
func PrintTable(w *tabwriter.Writer, results []EvalResult) {
	fmt.Fprintln(w, "method\tsplit\ttasks\tsuccess\tavg score\tSPL\tSPL (Table 4)\tavg steps\ttokens\tmemory")
	for _, r := range results {
		fmt.Fprintf(w, "%s\t%s\t%d\t%.3f\t%.3f\t%s\t%s\t%.1f\t%d\t%s\n", r.Method, r.Split, r.Tasks, r.SuccessRate, r.AvgScore, fmtPtr(r.SPL), fmtPtr(r.SPLPaper), r.AvgSteps, r.Tokens, runner.FormatSize(r.Memory))
	}
	w.Flush()
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
				row = append(row, fmt.Sprintf("%.2f (%d)", s.SuccessRate, s.Tasks))
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
