// Package report turns a run's results into a readable report: a Markdown
// page with the comparison tables of seed 002 (Table 1: success, score, SPL
// per method; Table 2: ablations; the per-type SPL of Appendix B.3), each
// rate with its 95 % interval, the paired comparisons, the memory use and
// the provenance; the tables as CSV and LaTeX; and plots as PNG and SVG
// made with gonum.org/v1/plot (Fig. 3: training success per
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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/stats"
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
	// CacheHits, and the CostUSD of the tokens sent. ReasoningTokens are
	// the part of the completion tokens spent reasoning. TrainTokens are
	// the tokens of its training when known (nil: not in the run's last
	// training account).
	TrainTokens                             *int64
	Tokens, TokensSent, Requests, CacheHits int64
	ReasoningTokens                         int64
	CostUSD                                 float64
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
	// ScoreLow and ScoreHigh its 95 % interval (Student's t over the
	// episodes, or over the seeds' means with several seeds); index 0 is
	// after the first step.
	ScoreByStep, ScoreLow, ScoreHigh []float64
	// Success and Score are the overall rates with their 95 % intervals
	// (over the seeds, or over the tasks with one seed), TypeCI the same by
	// task type; Paired compares the method with the no-memory baseline and
	// SAMem on the same tasks and seeds.
	Success, Score stats.Interval
	TypeCI         map[string]TypeCI
	Paired         []Paired
	// Use is how the memory was used; nil when not measured.
	Use *Use
	// Histories are the training histories of each seed (History is the
	// first); TokensBySeed the evaluation's tokens of each seed.
	Histories    [][]runner.IterationStats
	TokensBySeed []float64
	// Adapt is set for a method evaluated with several trials per task
	// (CLIN's G+A): Overall and ByType are then each task's result over its
	// trials, and Adapt holds the first trials'.
	Adapt *Adapt
}

// OfflineNote is the line that labels every result of the offline
// backend, wherever it is printed (terminal tables, report.md, viewer).
const OfflineNote = "Offline backend: rule-based roles and a hashing embedder play instead of a language model; these numbers measure the methods' offline rules, not a model."

// OnlineNote labels the results of an evaluation whose memory kept
// learning (seed 002 App. B.1's Jericho protocol), wherever it is printed.
const OnlineNote = "Memory learned during this evaluation (online, seed 002 App. B.1): each episode updated the memory the later episodes used, so these rates are not those of a frozen memory"

// NeverGuided reports whether the method keeps a memory (it is no
// baseline) that guided none of its evaluated steps (Use, from
// runner.GuidedShare; app.EvalResult.NeverGuided says the same).
func (m Method) NeverGuided() bool {
	return !m.Baseline && m.Use != nil && m.Use.Steps > 0 && m.Use.GuidedSteps == 0
}

// TypeCI is one task type's rates with their 95 % intervals.
type TypeCI struct {
	Success, Score stats.Interval
}

// Paired is the comparison of a method with another on the same (seed,
// task) pairs (stats.PairedMethod).
type Paired struct {
	Against, Metric string
	stats.Paired
}

// Use is how a method used its memory in the evaluation.
type Use struct {
	// GuidedShare is the share of the steps (Steps) memory guided.
	GuidedShare        float64
	GuidedSteps, Steps int
	// InvalidRate, ProgressRate (household subgoals), ScoreShare (games
	// with a score) and TokensPerSuccess are nil where not measured.
	InvalidRate, ProgressRate, ScoreShare, TokensPerSuccess *float64
	// Tokens building memory (training included) and using it.
	TokensTraining, TokensBuild, TokensUse int64
}

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
	// Seeds are the run seeds the evaluation is over.
	Seeds []int64
	// Provenance is the evaluation's provenance in one paragraph, Warnings
	// the differences found between the runs compared.
	Provenance string
	Warnings   []string
	// Online names the methods whose memory kept learning during the
	// evaluation (-online), so that their rates are not read as a frozen
	// memory's.
	Online []string
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
		make func(Data) (drawing, error)
	}{
		{TrainingPlot, trainingPlot},
		{MemoryPlot, memoryPlot},
		{SweepPlot, func(d Data) (drawing, error) { return sweepPlot(d, "threshold") }},
		{ThoughtPlot, func(d Data) (drawing, error) { return sweepPlot(d, "thought-threshold") }},
		{TokensPlot, tokensPlot},
		{ByTypePlot, byTypePlot},
		{ScoreStepPlot, scoreStepPlot},
	} {
		dr, err := p.make(d)
		if errors.Is(err, errSkip) {
			continue
		}
		if err != nil {
			return written, fmt.Errorf("report: %s: %w", p.file, err)
		}
		fig, err := dr.render(opt.dpi())
		if err != nil {
			return written, fmt.Errorf("report: %s: %w", p.file, err)
		}
		// The PNG for the page, the SVG beside it for a paper.
		for _, f := range []struct {
			name string
			b    []byte
		}{{p.file, fig.png}, {SVGName(p.file), fig.svg}} {
			path := filepath.Join(dir, f.name)
			if err := writeAtomic(path, f.b); err != nil {
				return written, err
			}
			written = append(written, path)
		}
		plots[p.file] = true
	}
	// The tables as CSV and LaTeX.
	tables := exports(d)
	for _, stem := range slices.Sorted(maps.Keys(tables)) {
		t := tables[stem]
		if len(t.rows) == 0 {
			continue
		}
		for _, f := range []struct {
			ext string
			b   []byte
		}{{".csv", t.csvBytes()}, {".tex", t.texBytes()}} {
			path := filepath.Join(dir, stem+f.ext)
			if err := writeAtomic(path, f.b); err != nil {
				return written, err
			}
			written = append(written, path)
		}
	}
	md := Markdown(d, plots)
	path := filepath.Join(dir, MarkdownFile)
	if err := writeAtomic(path, []byte(md)); err != nil {
		return written, err
	}
	return append(written, path), nil
}

// SVGName is the vector twin of a plot file: "x.png" -> "x.svg".
func SVGName(png string) string { return strings.TrimSuffix(png, ".png") + ".svg" }

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
