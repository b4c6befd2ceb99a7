// Package report turns a run's results into a readable report: a Markdown
// page with the comparison tables of seed 002 (Table 1: success, score, SPL
// per method; Table 2: ablations; the per-type SPL of Appendix B.3) and PNG
// plots made with gonum.org/v1/plot (Fig. 3: training success per
// iteration; Fig. 6: memory size with and without forgetting; Fig. 7 and 9:
// success and memory size against the similarity threshold; Fig. 8: tokens
// per method; seed 004 Fig. 4: success per task type; seed 000 Fig. 4:
// normalised score against steps).
//
// The package knows nothing of how results were produced: callers fill a
// Data value (package app reads it from a run directory).
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/samem/trainer/runner"
)

// Method is one method's results.
type Method struct {
	Name string
	// Note says what the method is when that is not obvious (an ablation
	// variant); may be empty.
	Note string
	// Baseline is true for a method that learns nothing.
	Baseline bool
	// Overall is the evaluation over all held-out tasks, ByType per task type.
	Overall runner.Summary
	ByType  map[string]runner.Summary
	// The evaluation's model usage (0 offline), in the words of
	// docs/COST.md: Tokens consumed (sent or served by the response
	// cache), TokensSent (answered by a server), the Requests sent, the
	// CacheHits, and the CostUSD of the tokens sent.
	Tokens, TokensSent, Requests, CacheHits int64
	CostUSD                                 float64
	// ReasoningTokens are the part of the completion tokens spent reasoning.
	ReasoningTokens int64
	// Memory use: HasMemory is false for a method that keeps nothing
	// between episodes; GuidedSteps of Steps were guided by its memory.
	HasMemory          bool
	GuidedSteps, Steps int
	// Memory is the size of the evaluated memory by kind (states, thoughts,
	// entries, triplets, ...); nil when the method has none.
	Memory map[string]int
	// History is the training history (nil for a baseline or when no
	// checkpoint keeps it).
	History []runner.IterationStats
	// FallbackShare is the largest share of one role's model replies that
	// the method replaced by its rules or skipped; MeasuresFallback flags it
	// past the threshold (20 %). Parse is the account per role.
	FallbackShare    float64
	MeasuresFallback bool
	Parse            []ParseRow
	// ScoreByStep is the mean normalised score after each step, over the
	// evaluated episodes (an episode that ended keeps its final score), and
	// ScoreStd its standard deviation; index 0 is after the first step.
	ScoreByStep, ScoreStd []float64
	// Adapt is set for a method evaluated with several trials per task
	// (CLIN's G+A): Overall and ByType are then each task's result over its
	// trials, and Adapt holds the first trials'.
	Adapt *Adapt
}

// OfflineNote is the line that labels every result of the offline
// backend, wherever it is printed (terminal tables, report.md).
const OfflineNote = "Offline backend: rule-based roles and a hashing embedder play instead of a language model; these numbers measure the methods' offline rules, not a model."

// NeverGuided reports whether the method has a memory that guided none of
// its evaluated steps (app.MemoryUse says the same).
func (m Method) NeverGuided() bool { return m.HasMemory && m.Steps > 0 && m.GuidedSteps == 0 }

// Adapt is the first-trial side of a method evaluated with trials (seed 004
// Table 2: GEN-ENV or GEN-TASK, before "+A").
type Adapt struct {
	FirstTrial  runner.Summary
	FirstByType map[string]runner.Summary
	AvgTrials   float64
	MaxTrials   int
}

// ParseRow is one model role's reply-parse account in an evaluation.
type ParseRow struct {
	Role                          string
	Replies, Repaired, Unusable   int64
	AskedAgain, FellBack, Skipped int64
	FallbackShare                 float64
	// Reasoned counts the replies that carried reasoning (taken out before
	// parsing); ReasoningTokens the tokens the server said it spent on it.
	Reasoned, ReasoningTokens int64
}

// SweepPoint is one training and evaluation of SAMem at one similarity
// threshold (seed 002 Fig. 7 for states, Fig. 9 for thoughts).
type SweepPoint struct {
	// Param is the swept parameter: "threshold" (states) or
	// "thought-threshold".
	Param       string  `json:"param"`
	Value       float64 `json:"value"`
	Tasks       int     `json:"tasks"`
	SuccessRate float64 `json:"success_rate"`
	AvgScore    float64 `json:"avg_score"`
	States      int     `json:"states"`
	Thoughts    int     `json:"thoughts"`
	Entries     int     `json:"entries"`
	Run         string  `json:"run"`
}

// Data is everything a report shows.
type Data struct {
	Run     string // the run directory, for the heading
	Split   string
	Env     string
	Backend string
	// PerType is the number of training tasks per type (seed 002 Table 3's n).
	PerType int
	Methods []Method
	Sweep   []SweepPoint
}

// File names inside the report directory.
const (
	MarkdownFile  = "report.md"
	TrainingPlot  = "training_success.png" // Fig. 3
	MemoryPlot    = "memory_size.png"      // Fig. 6
	SweepPlot     = "threshold_sweep.png"  // Fig. 7 (states)
	ThoughtPlot   = "thought_sweep.png"    // Fig. 9 (thoughts)
	TokensPlot    = "tokens.png"           // Fig. 8
	ByTypePlot    = "success_by_type.png"  // seed 004 Fig. 4
	ScoreStepPlot = "score_by_step.png"    // seed 000 Fig. 4
)

// ErrNoData is returned by Write when there is nothing to report.
var ErrNoData = errors.New("nothing to report")

// Options tune the output.
type Options struct {
	// DPI is the resolution of the plots; 0 means 110 (a plot about 870
	// pixels wide).
	DPI int
}

// Write writes the Markdown report and every plot the data allows into dir
// (created if needed) and returns the paths written. A plot whose data is
// missing (no training history, no sweep) is left out, and the page says
// how to get it.
func Write(dir string, d Data, opt Options) ([]string, error) {
	if len(d.Methods) == 0 && len(d.Sweep) == 0 {
		return nil, ErrNoData
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	plots := map[string]bool{}
	var written []string
	for _, p := range []struct {
		file string
		make func(Data, int) ([]byte, error)
	}{
		{TrainingPlot, trainingPlot},
		{MemoryPlot, memoryPlot},
		{SweepPlot, func(d Data, dpi int) ([]byte, error) { return sweepPlot(d, dpi, "threshold") }},
		{ThoughtPlot, func(d Data, dpi int) ([]byte, error) { return sweepPlot(d, dpi, "thought-threshold") }},
		{TokensPlot, tokensPlot},
		{ByTypePlot, byTypePlot},
		{ScoreStepPlot, scoreStepPlot},
	} {
		b, err := p.make(d, opt.dpi())
		if errors.Is(err, errSkip) {
			continue
		}
		if err != nil {
			return written, fmt.Errorf("report: %s: %w", p.file, err)
		}
		path := filepath.Join(dir, p.file)
		if err := writeAtomic(path, b); err != nil {
			return written, err
		}
		plots[p.file] = true
		written = append(written, path)
	}
	md := Markdown(d, plots)
	path := filepath.Join(dir, MarkdownFile)
	if err := writeAtomic(path, []byte(md)); err != nil {
		return written, err
	}
	return append(written, path), nil
}

func (o Options) dpi() int {
	if o.DPI <= 0 {
		return defaultDPI
	}
	return o.DPI
}

// errSkip is returned by a plot function when the data has nothing for it.
var errSkip = errors.New("no data for this plot")

func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-report-*")
	if err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	return nil
}
