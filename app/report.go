package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/report"
	"github.com/samem/trainer/runner"
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
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.Method] = true
		m := report.Method{
			Name: r.Method, Note: AblationDoc(r.Method), Baseline: IsBaseline(r.Method),
			Overall: runner.Summary{Tasks: r.Tasks, Completed: r.Completed, SuccessRate: r.SuccessRate, AvgScore: r.AvgScore, SR: r.SR, AR: r.AR, SPL: r.SPL, SPLPaper: r.SPLPaper, AvgSteps: r.AvgSteps, Errors: r.Errors},
			ByType:  r.ByType, Tokens: r.Tokens, ReasoningTokens: r.ReasoningTokens, TokensSent: r.TokensSent, Requests: r.Usage.Total.Requests, CacheHits: r.Usage.Total.CacheHits, CostUSD: r.CostUSD, Memory: r.Memory,
			HasMemory: r.MemoryUse.HasMemory, GuidedSteps: r.MemoryUse.GuidedSteps, Steps: r.MemoryUse.Steps,
			FallbackShare: r.FallbackShare, MeasuresFallback: r.MeasuresFallback, Parse: parseRows(r),
		}
		if m.History, err = TrainingHistory(run, r.Method); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		if a := r.Adapt; a != nil {
			m.Adapt = &report.Adapt{FirstTrial: a.FirstTrial, FirstByType: a.FirstByType, AvgTrials: a.AvgTrials, MaxTrials: a.MaxTrials}
		}
		if c, ok := curves[r.Method]; ok {
			m.ScoreByStep, m.ScoreStd = c.mean, c.std
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

type curve struct{ mean, std []float64 }

// scoreCurves reads trajectories.jsonl and returns, per method, the mean
// and standard deviation over episodes of the normalised score after each
// step (seed 000 Fig. 4), over each task's result (a G+A method's earlier
// trials, marked superseded, are left out). An episode that ended keeps its final score; the
// score is normalised as runner.Summarize does (by the maximum score, or 1
// for a win where the environment has no score).
func scoreCurves(path string) (map[string]curve, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type line struct {
		Method     string `json:"method"`
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
	per := map[string][][]float64{}
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
		per[l.Method] = append(per[l.Method], c)
	}
	out := map[string]curve{}
	for m, eps := range per {
		steps := 0
		for _, c := range eps {
			steps = max(steps, len(c))
		}
		cv := curve{mean: make([]float64, steps), std: make([]float64, steps)}
		for k := 0; k < steps; k++ {
			var sum, sq float64
			for _, c := range eps {
				v := 0.0
				if len(c) > 0 {
					v = c[min(k, len(c)-1)]
				}
				sum += v
				sq += v * v
			}
			n := float64(len(eps))
			mean := sum / n
			cv.mean[k] = mean
			cv.std[k] = math.Sqrt(math.Max(0, sq/n-mean*mean))
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
