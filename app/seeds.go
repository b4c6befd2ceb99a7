package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/report"
	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/stats"
)

// SeedsDir holds the sub-runs of a run repeated over run seeds (-seeds):
// <run>/seeds/<seed>/, each a complete run directory.
const SeedsDir = "seeds"

// SeedRun is the sub-run of seed in run.
func SeedRun(run string, seed int64) string {
	return filepath.Join(run, SeedsDir, strconv.FormatInt(seed, 10))
}

// seedConfig is cfg for one seed of its -seeds: the seed's sub-run, no
// seed list, no shard.
func seedConfig(cfg Config, seed int64) Config {
	c := cfg
	c.Seeds, c.Shard, c.Seed = nil, Shard{}, seed
	c.Run = SeedRun(cfg.Run, seed)
	return c
}

// trainSeeds trains cfg once per seed of cfg.Seeds (those of its shard),
// each in its sub-run, resuming per seed, and records the parent's
// config.json with the seed list, so that eval -run <run> finds them.
func trainSeeds(ctx context.Context, cfg Config, io Streams) ([]TrainResult, error) {
	var all []TrainResult
	prev, err := LoadConfig(cfg.Run)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for k, s := range cfg.Seeds {
		if !cfg.Shard.Takes(k) {
			continue
		}
		c, err := seedCaps(cfg, seedConfig(cfg, s))
		if err != nil {
			return all, fmt.Errorf("seed %d: %w", s, err)
		}
		c.metricsAlso = cfg.Run
		fmt.Fprintf(io.Err, "seed %d (%d of %d): %s\n", s, k+1, len(cfg.Seeds), c.Run)
		res, err := Train(ctx, c, io)
		for i := range res {
			res[i].Seed = s
		}
		all = append(all, res...)
		if err != nil {
			return all, fmt.Errorf("seed %d: %w", s, err)
		}
	}
	if err := os.MkdirAll(cfg.Run, 0o755); err != nil {
		return all, fmt.Errorf("run directory: %w", err)
	}
	printTrainingIntervals(io.Err, all)
	return all, writeConfig(cfg, prev.Methods)
}

// seedCaps gives c, the sub-run of one seed of cfg, its part of cfg's caps
// (-budget, -max-requests): they hold for the whole run over its seeds, so
// a seed may spend what the caps leave once the other seeds' sub-runs'
// spending (each one's train-usage.json) is taken off. When the others have
// reached a cap the seed is refused (ErrBudget) before anything starts.
func seedCaps(cfg, c Config) (Config, error) {
	if cfg.Budget <= 0 && cfg.MaxRequests <= 0 {
		return c, nil
	}
	var others Spent
	for _, o := range cfg.Seeds {
		if o == c.Seed {
			continue
		}
		sp, err := spentBefore(seedConfig(cfg, o))
		if err != nil {
			return c, err
		}
		others = others.add(sp)
	}
	if cfg.Budget > 0 {
		if c.Budget = cfg.Budget - others.CostUSD; !(c.Budget > 0) {
			return c, fmt.Errorf("%w: the other seeds of %s have spent $%.4f of -budget $%.4f; run again with a higher -budget to go on", ErrBudget, cfg.Run, others.CostUSD, cfg.Budget)
		}
	}
	if cfg.MaxRequests > 0 {
		if c.MaxRequests = cfg.MaxRequests - others.Requests; c.MaxRequests <= 0 {
			return c, fmt.Errorf("%w: the other seeds of %s have sent %d of -max-requests %d; run again with a higher -max-requests to go on", ErrBudget, cfg.Run, others.Requests, cfg.MaxRequests)
		}
	}
	return c, nil
}

// printTrainingIntervals prints each method's success on the training
// tasks in the last iteration, the mean over the seeds with its 95 %
// interval (Student's t, clipped to [0, 1]).
func printTrainingIntervals(w io.Writer, res []TrainResult) {
	var methods []string
	last := map[string][]float64{}
	for _, r := range res {
		if len(r.History) == 0 {
			continue
		}
		if _, ok := last[r.Method]; !ok {
			methods = append(methods, r.Method)
		}
		last[r.Method] = append(last[r.Method], r.History[len(r.History)-1].SuccessRate)
	}
	for _, m := range methods {
		iv := stats.MeanT(last[m]).Clip(0, 1)
		bounds := "no interval with one seed"
		if iv.Defined() {
			bounds = fmt.Sprintf("95%% CI [%.3f, %.3f] over %d seeds (Student's t)", iv.Low, iv.High, iv.N)
		}
		fmt.Fprintf(w, "%s: training success in the last iteration %.3f, %s\n", m, iv.Mean, bounds)
	}
}

// evalSeeds evaluates every seed of cfg.Seeds in its sub-run, then
// combines them (combineSeeds).
func evalSeeds(ctx context.Context, cfg Config, io Streams) ([]EvalResult, error) {
	for _, s := range cfg.Seeds {
		c := seedConfig(cfg, s)
		fmt.Fprintf(io.Err, "seed %d: %s\n", s, c.Run)
		if _, err := evalOne(ctx, c, io); err != nil {
			return nil, fmt.Errorf("seed %d: %w", s, err)
		}
	}
	return combineSeeds(ctx, cfg, io)
}

// seedEval is what one seed's evaluation directory holds.
type seedEval struct {
	results []EvalResult
	rows    []EpisodeRow
	traj    []byte
	acct    Account
	prov    Provenance
}

func readSeedEval(ctx context.Context, dir string) (seedEval, error) {
	var e seedEval
	if err := readJSON(filepath.Join(dir, SummaryFile), &e.results); err != nil {
		return e, err
	}
	var err error
	if e.rows, err = checkpoints.ReadFile[EpisodeRow](ctx, filepath.Join(dir, ResultsFile)); err != nil {
		return e, err
	}
	if e.traj, err = os.ReadFile(filepath.Join(dir, TrajectoriesFile)); err != nil {
		return e, err
	}
	if err := readJSON(filepath.Join(dir, EvalUsageFile), &e.acct); err != nil {
		return e, err
	}
	if e.prov, err = ReadProvenance(filepath.Join(dir, ProvenanceFile)); err != nil {
		return e, err
	}
	return e, nil
}

// combineSeeds writes the evaluation of every seed of cfg.Seeds, read
// from the seeds' evaluation directories, into the parent run's
// evaluation directory: every (seed, method, task) row, each method's
// rates as the means over the seeds with their intervals over the seeds,
// the paired comparisons over (seed, task) pairs, the trajectories, the
// summed usage and the first seed's provenance with the differences
// between the seeds as warnings; then the parent's report.
func combineSeeds(ctx context.Context, cfg Config, io Streams) ([]EvalResult, error) {
	outDir, overrides, err := EvalDir(cfg)
	if err != nil {
		return nil, err
	}
	var per []seedEval
	for _, s := range cfg.Seeds {
		dir, _, err := EvalDir(seedConfig(cfg, s))
		if err != nil {
			return nil, err
		}
		e, err := readSeedEval(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("combine seeds: seed %d: %w", s, err)
		}
		per = append(per, e)
	}
	var rows []EpisodeRow
	var traj []byte
	acct := Account{Command: "eval", Backend: string(cfg.LLM.Backend), Methods: map[string]llm.Report{}}
	prov := per[0].prov
	prov.Warnings = nil
	for i, e := range per {
		rows = append(rows, e.rows...)
		traj = append(traj, e.traj...)
		if len(traj) > 0 && traj[len(traj)-1] != '\n' {
			traj = append(traj, '\n')
		}
		acct.Run = acct.Run.Add(e.acct.Run)
		for m, r := range e.acct.Methods {
			acct.Methods[m] = acct.Methods[m].Add(r)
		}
		if i > 0 {
			prov.Models.Served = llm.MergeServed(prov.Models.Served, e.prov.Models.Served)
			for _, d := range per[0].prov.Differences(e.prov, compareOpts{settings: true, ignore: []string{"seed"}}) {
				prov.Warnings = append(prov.Warnings, fmt.Sprintf("seed %d differs from seed %d in %s", cfg.Seeds[i], cfg.Seeds[0], d))
			}
		}
		for _, w := range e.prov.Warnings {
			prov.Warnings = append(prov.Warnings, fmt.Sprintf("seed %d: %s", cfg.Seeds[i], w))
		}
	}
	prov.Settings = cfg.Resolved()
	var methods []string
	for _, e := range per {
		for _, r := range e.results {
			if !slices.Contains(methods, r.Method) {
				methods = append(methods, r.Method)
			}
		}
	}
	var results []EvalResult
	for _, m := range methods {
		var rs []EvalResult
		var seeds []int64
		for i, e := range per {
			for _, r := range e.results {
				if r.Method == m {
					rs = append(rs, r)
					seeds = append(seeds, cfg.Seeds[i])
				}
			}
		}
		results = append(results, meanResult(rs, seeds))
	}
	r := cfg.Resolved()
	for i := range results {
		results[i].EvalRecord = EvalRecord{Overrides: overrides, Config: &r}
		if results[i].Overrides == nil {
			results[i].Overrides = []string{}
		}
	}
	addStatistics(results, rows, scoredEnv(cfg))
	for _, w := range prov.Warnings {
		fmt.Fprintf(io.Err, "warning: %s\n", w)
	}
	if err := os.MkdirAll(filepath.Dir(outDir), 0o755); err != nil {
		return results, fmt.Errorf("eval directory: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(outDir), "."+filepath.Base(outDir)+"-*")
	if err != nil {
		return results, fmt.Errorf("eval directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := checkpoints.WriteFile(ctx, filepath.Join(tmp, ResultsFile), rows, checkpoints.WriteOptions{}); err != nil {
		return results, fmt.Errorf("write results: %w", err)
	}
	if err := writeTidy(ctx, tmp, rows); err != nil {
		return results, err
	}
	for name, v := range map[string]any{SummaryFile: results, ProvenanceFile: prov, EvalUsageFile: acct} {
		if err := writeJSON(filepath.Join(tmp, name), v); err != nil {
			return results, err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, TrajectoriesFile), traj, 0o644); err != nil {
		return results, fmt.Errorf("write %s: %w", TrajectoriesFile, err)
	}
	if err := swapDir(tmp, outDir); err != nil {
		return results, err
	}
	fmt.Fprintf(io.Err, "results of %d seeds: %s\n", len(cfg.Seeds), outDir)
	if _, err := WriteReport(cfg.Run, filepath.Base(outDir)); err != nil {
		return results, err
	}
	fmt.Fprintf(io.Err, "report: %s\n", filepath.Join(ReportPath(cfg.Run, filepath.Base(outDir)), report.MarkdownFile))
	return results, nil
}

// meanResult combines one method's results of several seeds: counts and
// tokens summed, rates the means of the seeds' rates (each seed weighs
// the same), the memory's size the mean of the seeds'.
func meanResult(rs []EvalResult, seeds []int64) EvalResult {
	out := rs[0]
	out.Seeds = seeds
	out.Checkpoint = ""
	if out.Online != nil {
		// Each seed's learned memory is in its own evaluation directory
		// (seeds/<seed>/eval/...), the sizes there too.
		o := *out.Online
		o.Memory, o.Trained = "", nil
		out.Online = &o
	}
	n := float64(len(rs))
	sums := make([]runner.Summary, len(rs))
	for i, r := range rs {
		sums[i] = runner.Summary{Tasks: r.Tasks, Completed: r.Completed, Errors: r.Errors, SuccessRate: r.SuccessRate, AvgScore: r.AvgScore,
			SR: r.SR, AR: r.AR, SPL: r.SPL, SPLPaper: r.SPLPaper, AvgSteps: r.AvgSteps}
	}
	m := meanSummary(sums)
	out.Tasks, out.Completed, out.Errors = m.Tasks, m.Completed, m.Errors
	out.SuccessRate, out.AvgScore, out.AvgSteps, out.SPL, out.SPLPaper = m.SuccessRate, m.AvgScore, m.AvgSteps, m.SPL, m.SPLPaper
	out.SR, out.AR = m.SR, m.AR
	out.Tokens, out.TokensSent, out.ReasoningTokens, out.CostUSD, out.Usage, out.Parse, out.FallbackShare, out.MeasuresFallback = 0, 0, 0, 0, llm.Report{}, nil, 0, false
	mem := map[string]float64{}
	use := MemoryUse{}
	var prog, score []float64
	successes := 0.0
	for _, r := range rs {
		out.Tokens += r.Tokens
		out.TokensSent += r.TokensSent
		out.ReasoningTokens += r.ReasoningTokens
		out.CostUSD += r.CostUSD
		out.Usage = out.Usage.Add(r.Usage)
		for role, st := range r.Parse {
			if out.Parse == nil {
				out.Parse = map[string]llm.Stats{}
			}
			p := out.Parse[role]
			p.Replies += st.Replies
			p.Repaired += st.Repaired
			p.Unusable += st.Unusable
			p.AskedAgain += st.AskedAgain
			p.FellBack += st.FellBack
			p.Skipped += st.Skipped
			p.Reasoned += st.Reasoned
			p.ReasoningTokens += st.ReasoningTokens
			out.Parse[role] = p
		}
		out.FallbackShare = max(out.FallbackShare, r.FallbackShare)
		out.MeasuresFallback = out.MeasuresFallback || r.MeasuresFallback
		for k, v := range r.Memory {
			mem[k] += float64(v) / n
		}
		u := r.MemoryUse
		use.Steps += u.Steps
		use.GuidedSteps += u.GuidedSteps
		use.CheckedSteps += u.CheckedSteps
		use.InvalidActions += u.InvalidActions
		use.Tokens += u.Tokens
		use.TokensTraining += u.TokensTraining
		use.TokensBuild += u.TokensBuild
		use.TokensUse += u.TokensUse
		if u.ProgressRate != nil {
			prog = append(prog, *u.ProgressRate)
		}
		if u.ScoreShare != nil {
			score = append(score, *u.ScoreShare)
		}
		successes += r.SuccessRate * float64(r.Completed)
	}
	if len(mem) > 0 {
		out.Memory = map[string]int{}
		for k, v := range mem {
			out.Memory[k] = int(v + 0.5)
		}
	}
	if use.Steps > 0 {
		use.GuidedShare = float64(use.GuidedSteps) / float64(use.Steps)
	}
	if use.CheckedSteps > 0 {
		v := float64(use.InvalidActions) / float64(use.CheckedSteps)
		use.InvalidRate = &v
	}
	use.ProgressRate, use.ScoreShare = meanPtr(prog), meanPtr(score)
	if s := int64(successes + 0.5); s > 0 {
		v := float64(out.Tokens) / float64(s)
		use.TokensPerSuccess = &v
	}
	out.MemoryUse = use
	types := map[string][]runner.Summary{}
	for _, r := range rs {
		for t, s := range r.ByType {
			types[t] = append(types[t], s)
		}
	}
	out.ByType = map[string]runner.Summary{}
	for t, ss := range types {
		out.ByType[t] = meanSummary(ss)
	}
	if out.Adapt != nil {
		var first []runner.Summary
		byType := map[string][]runner.Summary{}
		a := *out.Adapt
		a.AvgTrials, a.Episodes = 0, 0
		for _, r := range rs {
			if r.Adapt == nil {
				continue
			}
			first = append(first, r.Adapt.FirstTrial)
			a.AvgTrials += r.Adapt.AvgTrials / n
			a.Episodes += r.Adapt.Episodes
			for t, s := range r.Adapt.FirstByType {
				byType[t] = append(byType[t], s)
			}
		}
		a.FirstTrial = meanSummary(first)
		a.FirstByType = map[string]runner.Summary{}
		for t, ss := range byType {
			a.FirstByType[t] = meanSummary(ss)
		}
		out.Adapt = &a
	}
	return out
}

// meanSummary is the summaries' counts summed and rates averaged (each
// summary weighs the same); an SPL only when every summary has one.
func meanSummary(ss []runner.Summary) runner.Summary {
	var out runner.Summary
	if len(ss) == 0 {
		return out
	}
	n := float64(len(ss))
	var spl, splPaper float64
	haveSPL, havePaper := true, true
	out.Unscored = true
	for _, s := range ss {
		out.Tasks += s.Tasks
		out.Completed += s.Completed
		out.Errors += s.Errors
		out.Successes += s.Successes
		out.SuccessRate += s.SuccessRate / n
		out.AvgScore += s.AvgScore / n
		out.SR += s.SR / n
		out.AR += s.AR / n
		out.AvgSteps += s.AvgSteps / n
		out.Unscored = out.Unscored && s.Unscored
		if s.SPL == nil {
			haveSPL = false
		} else {
			spl += *s.SPL / n
		}
		if s.SPLPaper == nil {
			havePaper = false
		} else {
			splPaper += *s.SPLPaper / n
		}
	}
	if haveSPL {
		out.SPL = &spl
	}
	if havePaper {
		out.SPLPaper = &splPaper
	}
	return out
}

func meanPtr(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	v := s / float64(len(xs))
	return &v
}
