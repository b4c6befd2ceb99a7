package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/report"
	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/stats"
)

// ReportDir is the report's folder inside a run directory.
const ReportDir = "report"

// reportOptions are the report's settings; tests lower the resolution.
var reportOptions report.Options

// runnerStateFile is the runner's own state inside a checkpoint
// (runner/train.go keeps the training history there).
const runnerStateFile = "runner.json"

// WriteReport writes ReportPath(run, split): report.md with the comparison
// tables and the plots, from what the run directory holds: the evaluation
// named split, its directory under eval/ (eval/<split>/summary.json and
// trajectories.jsonl; EvalName adds any overrides), each method's training
// history (its latest checkpoint), and the threshold sweep (sweep/sweep.json).
// It returns the files written.
func WriteReport(run, split string) ([]string, error) {
	d := report.Data{Run: run, Split: split}
	if cfg, err := LoadConfig(run); err == nil {
		d.Env, d.Backend, d.PerType = string(cfg.Env.Kind), string(cfg.LLM.Backend), cfg.PerType
	}
	evalDir := filepath.Join(run, "eval", split)
	var results []EvalResult
	if err := readJSON(filepath.Join(evalDir, SummaryFile), &results); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	curves, err := scoreCurves(filepath.Join(evalDir, TrajectoriesFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	if p, err := ReadProvenance(filepath.Join(evalDir, ProvenanceFile)); err == nil {
		d.Provenance, d.Warnings = p.Short(), p.Warnings
	} else if !errors.Is(err, fs.ErrNotExist) {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the evaluation's %s cannot be read: %v", ProvenanceFile, err))
	}
	cfg, _ := LoadConfig(run)
	seedRuns := []string{run}
	if len(cfg.Seeds) > 0 {
		d.Seeds = cfg.Seeds
		seedRuns = nil
		for _, s := range cfg.Seeds {
			seedRuns = append(seedRuns, SeedRun(run, s))
		}
	}
	tokensBySeed := map[string]map[int64]float64{}
	if rows, err := checkpoints.ReadFile[EpisodeRow](context.Background(), filepath.Join(evalDir, ResultsFile)); err == nil {
		for _, r := range rows {
			if tokensBySeed[r.Method] == nil {
				tokensBySeed[r.Method] = map[int64]float64{}
			}
			tokensBySeed[r.Method][r.Seed] += float64(r.Tokens)
		}
	}
	seen := map[string]bool{}
	for _, r := range results {
		if r.Online != nil {
			d.Online = append(d.Online, r.Method)
		}
		seen[r.Method] = true
		if len(r.Seeds) > 1 && d.Seeds == nil {
			d.Seeds = r.Seeds
		}
		m := report.Method{
			Name: r.Method, Note: AblationDoc(r.Method), Baseline: IsBaseline(r.Method),
			Overall: runner.Summary{Tasks: r.Tasks, Completed: r.Completed, SuccessRate: r.SuccessRate, AvgScore: r.AvgScore, SR: r.SR, AR: r.AR, SPL: r.SPL, SPLPaper: r.SPLPaper, AvgSteps: r.AvgSteps, Errors: r.Errors},
			ByType:  r.ByType, Tokens: r.Tokens, ReasoningTokens: r.ReasoningTokens, TokensSent: r.TokensSent, Requests: r.Usage.Total.Requests, CacheHits: r.Usage.Total.CacheHits, CostUSD: r.CostUSD, Memory: r.Memory,
			FallbackShare: r.FallbackShare, MeasuresFallback: r.MeasuresFallback, Parse: parseRows(r),
			Success: r.CI.Success, Score: r.CI.Score, TypeCI: map[string]report.TypeCI{},
		}
		for t, c := range r.CI.ByType {
			m.TypeCI[t] = report.TypeCI{Success: c.Success, Score: c.Score}
		}
		for _, p := range r.Paired {
			m.Paired = append(m.Paired, report.Paired{Against: p.Against, Metric: p.Metric, Paired: p.Result})
		}
		if u := r.MemoryUse; u.Steps > 0 || u.TokensBuild > 0 || u.TokensUse > 0 {
			m.Use = &report.Use{GuidedShare: u.GuidedShare, GuidedSteps: u.GuidedSteps, Steps: u.Steps, InvalidRate: u.InvalidRate,
				ProgressRate: u.ProgressRate, ScoreShare: u.ScoreShare, TokensPerSuccess: u.TokensPerSuccess,
				TokensTraining: u.TokensTraining, TokensBuild: u.TokensBuild, TokensUse: u.TokensUse}
		}
		if by := tokensBySeed[r.Method]; len(by) >= 2 {
			for _, s := range slices.Sorted(mapKeys(by)) {
				m.TokensBySeed = append(m.TokensBySeed, by[s])
			}
		}
		for _, sr := range seedRuns {
			h, err := TrainingHistory(sr, r.Method)
			if err != nil {
				return nil, fmt.Errorf("report: %w", err)
			}
			if h != nil {
				m.Histories = append(m.Histories, h)
			}
		}
		if len(m.Histories) > 0 {
			m.History = m.Histories[0]
		}
		if a := r.Adapt; a != nil {
			m.Adapt = &report.Adapt{FirstTrial: a.FirstTrial, FirstByType: a.FirstByType, AvgTrials: a.AvgTrials, MaxTrials: a.MaxTrials}
		}
		if c, ok := curves[r.Method]; ok {
			m.ScoreByStep, m.ScoreLow, m.ScoreHigh = c.mean, c.low, c.high
		}
		d.Methods = append(d.Methods, m)
	}
	// Methods trained but not evaluated still have a learning curve.
	for _, name := range TrainedMethods(run) {
		if seen[name] {
			continue
		}
		h, err := TrainingHistory(run, name)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		d.Methods = append(d.Methods, report.Method{Name: name + " (not evaluated)", History: h})
	}
	if err := fillTrainTokens(run, d.Methods); err != nil {
		return nil, err
	}
	if err := readJSON(filepath.Join(run, SweepDir, SweepFile), &d.Sweep); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	return report.Write(ReportPath(run, split), d, reportOptions)
}

// TrainingHistory is the per-iteration training history of a method, kept
// in its latest checkpoint; nil when the method has no checkpoint.
func TrainingHistory(run, method string) ([]runner.IterationStats, error) {
	root := filepath.Join(run, method, checkpoints.Folder)
	b, err := os.ReadFile(filepath.Join(root, checkpoints.LatestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st struct {
		History []runner.IterationStats `json:"history"`
	}
	if err := readJSON(filepath.Join(root, strings.TrimSpace(string(b)), runnerStateFile), &st); err != nil {
		return nil, fmt.Errorf("training history of %s: %w", method, err)
	}
	return st.History, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

type curve struct{ mean, low, high []float64 }

// scoreCurves reads trajectories.jsonl and returns, per method, the mean
// normalised score after each step (seed 000 Fig. 4) with its 95 %
// interval: Student's t over the episodes, or with episodes of several
// seeds over the seeds' means; over each task's result (a G+A method's
// earlier trials, marked superseded, are left out). An episode that ended
// keeps its final score; the score is normalised as runner.Summarize does
// (by the maximum score, or 1 for a win where the environment has no
// score).
func scoreCurves(path string) (map[string]curve, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type line struct {
		Method     string `json:"method"`
		Seed       int64  `json:"seed"`
		Superseded bool   `json:"superseded"`
		Outcome    struct {
			Won      bool    `json:"won"`
			Score    float64 `json:"score"`
			MaxScore float64 `json:"max_score"`
			Error    string  `json:"error"`
		} `json:"outcome"`
		Transitions []struct {
			Result struct {
				Score    float64 `json:"score"`
				MaxScore float64 `json:"max_score"`
				Won      bool    `json:"won"`
			} `json:"result"`
		} `json:"transitions"`
	}
	norm := func(score, maxScore float64, won bool) float64 {
		switch {
		case maxScore > 0:
			return score / maxScore
		case won:
			return 1
		}
		return score
	}
	type ep struct {
		seed int64
		c    []float64
	}
	per := map[string][]ep{}
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	for {
		var l line
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if l.Superseded {
			continue // an earlier trial of a task retried (G+A): not its result
		}
		c := make([]float64, len(l.Transitions))
		for i, tr := range l.Transitions {
			c[i] = norm(tr.Result.Score, tr.Result.MaxScore, tr.Result.Won)
		}
		if n := len(c); n > 0 {
			c[n-1] = norm(l.Outcome.Score, l.Outcome.MaxScore, l.Outcome.Won && l.Outcome.Error == "")
		}
		per[l.Method] = append(per[l.Method], ep{l.Seed, c})
	}
	out := map[string]curve{}
	for m, eps := range per {
		steps := 0
		seeds := map[int64]bool{}
		for _, e := range eps {
			steps = max(steps, len(e.c))
			seeds[e.seed] = true
		}
		cv := curve{mean: make([]float64, steps), low: make([]float64, steps), high: make([]float64, steps)}
		for k := 0; k < steps; k++ {
			at := func(e ep) float64 {
				if len(e.c) == 0 {
					return 0
				}
				return e.c[min(k, len(e.c)-1)]
			}
			var vals []float64
			if len(seeds) >= 2 {
				sum, n := map[int64]float64{}, map[int64]float64{}
				for _, e := range eps {
					sum[e.seed] += at(e)
					n[e.seed]++
				}
				for _, s := range slices.Sorted(mapKeys(sum)) {
					vals = append(vals, sum[s]/n[s])
				}
			} else {
				for _, e := range eps {
					vals = append(vals, at(e))
				}
			}
			iv := stats.MeanT(vals)
			cv.mean[k], cv.low[k], cv.high[k] = iv.Mean, iv.Low, iv.High
		}
		out[m] = cv
	}
	return out, nil
}

// parseRows is a method's reply-parse account for the report, by role.
func parseRows(r EvalResult) []report.ParseRow {
	var out []report.ParseRow
	for role, st := range r.Parse {
		out = append(out, report.ParseRow{Role: role, Replies: st.Replies, Repaired: st.Repaired, Unusable: st.Unusable,
			AskedAgain: st.AskedAgain, FellBack: st.FellBack, Skipped: st.Skipped, FallbackShare: st.FallbackShare(),
			Reasoned: st.Reasoned, ReasoningTokens: st.ReasoningTokens})
	}
	slices.SortFunc(out, func(a, b report.ParseRow) int { return strings.Compare(a.Role, b.Role) })
	return out
}
