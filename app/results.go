package app

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/forget"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/memstream"
	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/stats"
)

// Files of the tidy per-episode table, written beside results.parquet
// (docs/RESULTS.md).
const (
	EpisodesParquet = "episodes.parquet"
	EpisodesCSV     = "episodes.csv"
)

// Intervals are a method's rates with their 95 % intervals: over the run
// seeds when there are two or more (Student's t on the per-seed rates),
// else over the tasks (Wilson's interval for the success rate, Student's t
// for the mean score). Interval.Over says which.
type Intervals struct {
	Success stats.Interval           `json:"success"`
	Score   stats.Interval           `json:"score"`
	ByType  map[string]TypeIntervals `json:"by_type,omitempty"`
}

// TypeIntervals are one task type's.
type TypeIntervals struct {
	Success stats.Interval `json:"success"`
	Score   stats.Interval `json:"score"`
}

// PairedResult compares a method with another on the (seed, task) pairs
// both completed (stats.PairedMethod).
type PairedResult struct {
	Against string `json:"against"`
	// Metric is "success" or "score" (the normalised score).
	Metric string       `json:"metric"`
	Result stats.Paired `json:"result"`
}

// Baselines a method is compared with, in this order.
var pairedAgainst = []string{baseline.NoMemoryName, "samem"}

// outcome is one task's result in one seed, for the statistics.
type outcome struct {
	seed              int64
	method, task, typ string
	completed, won    bool
	score             float64
}

// outcomes are the final rows (each task's result) as outcomes.
func outcomes(rows []EpisodeRow) []outcome {
	var out []outcome
	for _, r := range rows {
		if !r.Final {
			continue
		}
		o := agent.Outcome{Won: r.Won, Lost: r.Lost, Score: r.Score, MaxScore: r.MaxScore}
		out = append(out, outcome{seed: r.Seed, method: r.Method, task: r.TaskID, typ: r.Type,
			completed: r.Error == "", won: r.Won && r.Error == "", score: runner.NormalizedScore(o)})
	}
	return out
}

// intervalsOf computes a method's intervals from its outcomes.
func intervalsOf(outs []outcome) Intervals {
	iv := Intervals{ByType: map[string]TypeIntervals{}}
	iv.Success, iv.Score = rateIntervals(outs)
	types := map[string][]outcome{}
	for _, o := range outs {
		types[o.typ] = append(types[o.typ], o)
	}
	for t, os := range types {
		s, sc := rateIntervals(os)
		iv.ByType[t] = TypeIntervals{Success: s, Score: sc}
	}
	return iv
}

// rateIntervals are the success and score intervals of completed outcomes:
// over the seeds with two or more, else over the tasks.
func rateIntervals(outs []outcome) (success, score stats.Interval) {
	bySeed := map[int64][]outcome{}
	for _, o := range outs {
		if o.completed {
			bySeed[o.seed] = append(bySeed[o.seed], o)
		}
	}
	if len(bySeed) >= 2 {
		var rates, scores []float64
		for _, s := range slices.Sorted(mapKeys(bySeed)) {
			won, sum := 0, 0.0
			for _, o := range bySeed[s] {
				if o.won {
					won++
				}
				sum += o.score
			}
			n := float64(len(bySeed[s]))
			rates = append(rates, float64(won)/n)
			scores = append(scores, sum/n)
		}
		success, score = stats.MeanT(rates).Clip(0, 1), stats.MeanT(scores)
		if inUnit(scores) {
			score = score.Clip(0, 1)
		}
		success.Over, score.Over = "seeds", "seeds"
		return success, score
	}
	won := 0
	var scores []float64
	for _, os := range bySeed {
		for _, o := range os {
			if o.won {
				won++
			}
			scores = append(scores, o.score)
		}
	}
	success, score = stats.Wilson(won, len(scores)), stats.MeanT(scores)
	if inUnit(scores) {
		score = score.Clip(0, 1)
	}
	success.Over, score.Over = "tasks", "tasks"
	return success, score
}

// inUnit reports whether every value lies in [0, 1] (normalised scores):
// their mean's interval is then clipped to it.
func inUnit(xs []float64) bool {
	for _, x := range xs {
		if x < 0 || x > 1 {
			return false
		}
	}
	return true
}

func mapKeys[K cmp.Ordered, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// pairedOf compares method with each of pairedAgainst present in outs
// (itself excepted) on success, and with scored on the normalised score.
func pairedOf(outs []outcome, method string, scored bool) []PairedResult {
	type key struct {
		seed int64
		task string
	}
	by := map[string]map[key]outcome{}
	for _, o := range outs {
		if by[o.method] == nil {
			by[o.method] = map[key]outcome{}
		}
		by[o.method][key{o.seed, o.task}] = o
	}
	mine := by[method]
	var out []PairedResult
	for _, b := range pairedAgainst {
		theirs, ok := by[b]
		if b == method || !ok || mine == nil {
			continue
		}
		var keys []key
		for k, o := range mine {
			if t, ok := theirs[k]; ok && o.completed && t.completed {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(x, y key) int { return cmp.Or(cmp.Compare(x.seed, y.seed), cmp.Compare(x.task, y.task)) })
		metrics := []string{"success"}
		if scored {
			metrics = append(metrics, "score")
		}
		for _, m := range metrics {
			a, c := make([]float64, len(keys)), make([]float64, len(keys))
			for i, k := range keys {
				a[i], c[i] = metricOf(mine[k], m), metricOf(theirs[k], m)
			}
			out = append(out, PairedResult{Against: b, Metric: m, Result: stats.Compare(a, c)})
		}
	}
	return out
}

func metricOf(o outcome, m string) float64 {
	if m == "score" {
		return o.score
	}
	if o.won {
		return 1
	}
	return 0
}

// addStatistics fills every result's intervals and paired comparisons
// from the rows of all methods (rows of every seed).
func addStatistics(results []EvalResult, rows []EpisodeRow, scored bool) {
	outs := outcomes(rows)
	byMethod := map[string][]outcome{}
	for _, o := range outs {
		byMethod[o.method] = append(byMethod[o.method], o)
	}
	for i := range results {
		m := results[i].Method
		results[i].CI = intervalsOf(byMethod[m])
		results[i].Paired = pairedOf(outs, m, scored)
	}
}

// buildingRoles are the model roles whose replies are written into memory
// (reflections, abstractions, extracted facts, importance scores,
// forgetting checks): at evaluation their tokens build memory, every other
// role's tokens use it. Every token of training builds memory.
var buildingRoles = []string{
	forget.Purpose,
	clin.PurposeAdapt, clin.PurposeMeta, clin.PurposeMetaTask, clin.PurposeAdvice, clin.PurposeMetaAdvice,
	arigraph.PurposeExtract, arigraph.PurposeReplace,
	memstream.PurposeImportance, memstream.PurposeQuestions, memstream.PurposeInsights,
	"kgplan.update", "kgplan.entities",
	baseline.ReflexionName + ".reflect", baseline.SummaryName + ".update",
}

// MemoryUse is how a method's memory was used in an evaluation (the
// memory-use metrics of summary.json and the report).
type MemoryUse struct {
	runner.UseSummary
	// TokensPerSuccess is the evaluation's tokens per task won; nil with no
	// win.
	TokensPerSuccess *float64 `json:"tokens_per_success"`
	// TokensBuild are the tokens spent building memory: every token of the
	// method's training (TokensTraining: acting, reflection, forgetting)
	// and, in the evaluation, those of the roles that write memory
	// (buildingRoles). TokensUse are the evaluation's other tokens.
	TokensTraining int64 `json:"tokens_training"`
	TokensBuild    int64 `json:"tokens_build"`
	TokensUse      int64 `json:"tokens_use"`
}

// NeverGuided reports whether r's method keeps a memory (it is no
// baseline) that guided none of the steps of its completed episodes
// (runner.GuidedShare, the one definition of the share): its row
// measures the method as if it had no memory.
func (r EvalResult) NeverGuided() bool {
	return !IsBaseline(r.Method) && r.MemoryUse.Steps > 0 && r.MemoryUse.GuidedSteps == 0
}

// GuidedCell is the "memory guided" cell of the tables: the guided-step
// share ("43%"), "never ⚠" (NeverGuided), "-" without a completed step,
// or "- (no memory)" for a baseline, which keeps nothing between
// episodes.
func (r EvalResult) GuidedCell() string {
	switch {
	case IsBaseline(r.Method):
		return "- (no memory)"
	case r.MemoryUse.Steps == 0:
		return "-"
	case r.NeverGuided():
		return "never ⚠"
	}
	return fmt.Sprintf("%.0f%%", 100*r.MemoryUse.GuidedShare)
}

func tokensOf(s llm.Stats) int64 { return s.PromptTokens + s.CompletionTokens + s.CachedTokens }

// memoryUse computes the memory-use metrics of a method's evaluated
// episodes (each task's result), its usage account and its training
// history.
func memoryUse(eps []runner.Episode, usage llm.Report, evalTokens int64, successes int, history []runner.IterationStats) MemoryUse {
	u := MemoryUse{UseSummary: runner.SummarizeUse(eps)}
	if successes > 0 {
		v := float64(evalTokens) / float64(successes)
		u.TokensPerSuccess = &v
	}
	for _, h := range history {
		u.TokensTraining += h.Tokens
	}
	var build int64
	for role, st := range usage.ByPurpose {
		if slices.Contains(buildingRoles, role) {
			build += tokensOf(st)
		}
	}
	u.TokensBuild = u.TokensTraining + build
	u.TokensUse = evalTokens - build
	return u
}

// TidyRow is one row of the tidy per-episode table (episodes.parquet and
// episodes.csv): one played episode, every trial of a retried task
// included (Final marks the task's result).
type TidyRow struct {
	Seed      int64   `parquet:"seed"`
	Method    string  `parquet:"method,dict"`
	Split     string  `parquet:"split,dict"`
	Task      string  `parquet:"task"`
	TaskIndex int64   `parquet:"task_index"`
	TaskType  string  `parquet:"task_type,dict"`
	Trial     int64   `parquet:"trial"`
	Final     bool    `parquet:"final"`
	Won       bool    `parquet:"won"`
	Score     float64 `parquet:"score"` // normalised, as the rates
	Steps     int64   `parquet:"steps"`
	Errored   bool    `parquet:"errored"`
	Tokens    int64   `parquet:"tokens"`
	Guided    int64   `parquet:"guided_steps"`
	Invalid   int64   `parquet:"invalid_actions"`
	Checked   int64   `parquet:"checked_steps"`
	// Progress is nil where the environment gives no subgoals or score.
	Progress     *float64 `parquet:"progress,optional"`
	ProgressFrom string   `parquet:"progress_from,dict"`
}

// tidyColumns are the CSV header, in TidyRow's order.
var tidyColumns = []string{"seed", "method", "split", "task", "task_index", "task_type", "trial", "final", "won", "score", "steps", "errored", "tokens", "guided_steps", "invalid_actions", "checked_steps", "progress", "progress_from"}

// tidy projects results rows onto the tidy table.
func tidy(rows []EpisodeRow) []TidyRow {
	out := make([]TidyRow, len(rows))
	for i, r := range rows {
		o := agent.Outcome{Won: r.Won, Lost: r.Lost, Score: r.Score, MaxScore: r.MaxScore}
		out[i] = TidyRow{Seed: r.Seed, Method: r.Method, Split: r.Split, Task: r.TaskID, TaskIndex: r.TaskIndex, TaskType: r.Type,
			Trial: r.Trial, Final: r.Final, Won: r.Won, Score: runner.NormalizedScore(o), Steps: r.Steps, Errored: r.Error != "",
			Tokens: r.Tokens, Guided: r.GuidedSteps, Invalid: r.InvalidActions, Checked: r.CheckedSteps,
			Progress: r.Progress, ProgressFrom: r.ProgressFrom}
	}
	return out
}

// writeTidy writes the tidy table as Parquet and CSV into dir.
func writeTidy(ctx context.Context, dir string, rows []EpisodeRow) error {
	t := tidy(rows)
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, EpisodesParquet), t, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("write %s: %w", EpisodesParquet, err)
	}
	path := filepath.Join(dir, EpisodesCSV)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	w := csv.NewWriter(f)
	w.Write(tidyColumns)
	b := strconv.FormatBool
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range t {
		prog := ""
		if r.Progress != nil {
			prog = fnum(*r.Progress)
		}
		w.Write([]string{i(r.Seed), r.Method, r.Split, r.Task, i(r.TaskIndex), r.TaskType, i(r.Trial), b(r.Final), b(r.Won),
			fnum(r.Score), i(r.Steps), b(r.Errored), i(r.Tokens), i(r.Guided), i(r.Invalid), i(r.Checked), prog, r.ProgressFrom})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// fnum writes a number as short as it reads back exactly.
func fnum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// scoredEnv reports whether the environment keeps a score beside success
// (the paired comparisons then cover the normalised score too): every
// environment but the household world and ALFWorld, whose score is the
// success.
func scoredEnv(cfg Config) bool {
	alfworld := cfg.Env.Kind == EnvAgentGym && (cfg.Env.GymKind == "" || cfg.Env.GymKind == GymALFWorld)
	return cfg.Env.Kind != EnvHousehold && !alfworld
}
