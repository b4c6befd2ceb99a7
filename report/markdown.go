package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/stats"
)

// Markdown renders the report page. plots names the plot files written
// beside it (a plot not in it is described as missing, with how to get it).
func Markdown(d Data, plots map[string]bool) string {
	var b strings.Builder
	title := "Evaluation report"
	if d.Run != "" {
		title += ": " + d.Run
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	var facts []string
	for _, f := range [][2]string{{"split", d.Split}, {"environment", d.Env}, {"model backend", d.Backend}} {
		if f[1] != "" {
			facts = append(facts, fmt.Sprintf("%s **%s**", f[0], f[1]))
		}
	}
	if len(d.Methods) > 0 {
		facts = append(facts, fmt.Sprintf("%d methods", len(d.Methods)))
	}
	if len(facts) > 0 {
		fmt.Fprintf(&b, "%s.\n\n", strings.Join(facts, ", "))
	}
	if d.Backend == "offline" {
		b.WriteString("**" + OfflineNote + "** They show that the pipeline runs and learns, not how the methods compare with a real model; no tokens are spent.\n\n")
	}

	if len(d.Online) > 0 {
		fmt.Fprintf(&b, "**%s** (%s). Their memory after the evaluation is in memory/<method>/ of the evaluation's directory; the training checkpoint is unchanged.\n\n", OnlineNote, strings.Join(d.Online, ", "))
	}
	provenanceSection(&b, d)
	if len(d.Methods) > 0 {
		comparison(&b, d)
		paperTable1(&b, d)
		paperFig8(&b, d)
		byType(&b, d)
		pairedSection(&b, d)
		memoryUseSection(&b, d)
		paperTable2(&b, d)
		paperTable3(&b, d)
		clinTable2(&b, d)
		ablations(&b, d)
		training(&b, d)
	}
	sweep(&b, d)
	figures(&b, d, plots)
	return b.String()
}

func comparison(b *strings.Builder, d Data) {
	b.WriteString("## Comparison (seed 002 Table 1)\n\n")
	b.WriteString("Success rate, average score (normalised by the maximum score where the environment has one), SPL (seed 002 Eq. 8) with each task's expert plan length and with the paper's fixed per-type steps (Table 4), average steps per episode, the share of steps the method's memory guided, the model usage of the evaluation (requests sent, cache hits, tokens sent to a server, tokens consumed by the method whoever answered, and the cost of the tokens sent; docs/COST.md), and the size of the evaluated memory.\n\n")
	b.WriteString("An errored episode (the model or the environment failed) is neither a success nor a failure: the rates are over the completed episodes. *Fallback* is the largest share of one model role's replies that the method could not use and replaced by its rules or skipped; past 20 % the row is flagged: its numbers measure the fallback rules more than the model. *Memory guided* is the share of evaluated steps whose decision the method's memory guided (as in the memory-use table); a method whose memory guided none is flagged: its row measures it as if it had no memory (\"-\": a method that keeps no memory between episodes).\n\n")
	if note := intervalNote(d); note != "" {
		b.WriteString(note + "\n\n")
	}
	b.WriteString("| method | tasks | errored | success [95 % CI] | avg score [95 % CI] | SPL (expert) | SPL (Table 4) | avg steps | fallback | memory guided | requests sent | cache hits | tokens sent | tokens consumed | cost (USD) | memory |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	var flagged, never []string
	for _, m := range d.Methods {
		s := m.Overall
		fb := "-"
		if len(m.Parse) > 0 {
			fb = fmt.Sprintf("%.0f %%", 100*m.FallbackShare)
		}
		name := m.Name
		if m.MeasuresFallback {
			name += " ⚠"
			flagged = append(flagged, m.Name)
		}
		guided := "-"
		switch {
		case m.NeverGuided():
			guided = "never ⚠"
			never = append(never, m.Name)
		case !m.Baseline && m.Use != nil && m.Use.Steps > 0:
			guided = fmt.Sprintf("%.0f %%", 100*m.Use.GuidedShare)
		}
		tokens := fmt.Sprint(m.Tokens)
		if m.ReasoningTokens > 0 {
			tokens += fmt.Sprintf(" (%d reasoning)", m.ReasoningTokens)
		}
		fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %s | %s | %.1f | %s | %s | %d | %d | %d | %s | %.4f | %s |\n",
			name, s.Tasks, s.Errors, rateCI(s.SuccessRate, m.Success), rateCI(s.AvgScore, m.Score), ptr(s.SPL), ptr(s.SPLPaper), s.AvgSteps, fb, guided, m.Requests, m.CacheHits, m.TokensSent, tokens, m.CostUSD, sizes(m.Memory))
	}
	b.WriteString("\n")
	if len(flagged) > 0 {
		fmt.Fprintf(b, "**⚠ %s: measures its fallback rules rather than the model** (more than 20 %% of some role's replies were unusable and replaced by rules or skipped).\n\n", strings.Join(flagged, ", "))
	}
	if len(never) > 0 {
		fmt.Fprintf(b, "**⚠ %s: memory never guided a step of this evaluation**: the row measures the method as if it had no memory.\n\n", strings.Join(never, ", "))
	}
	table1(b, d)
	parseTable(b, d)
}

// parseTable is every role's reply-parse account.
func parseTable(b *strings.Builder, d Data) {
	any := false
	for _, m := range d.Methods {
		any = any || len(m.Parse) > 0
	}
	if !any {
		return
	}
	b.WriteString("### Model replies per role\n\n")
	b.WriteString("*Unusable*: replies that could not be used: unreadable, cut off at their token bound, or empty once the model's reasoning was taken out; *with reasoning*: replies that carried reasoning (never read as the answer), and the reasoning tokens the server reported.\n\n")
	b.WriteString("| method | role | replies | repaired | unusable | asked again | fell back | skipped | fallback | with reasoning | reasoning tokens |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range d.Methods {
		for _, p := range m.Parse {
			fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %d | %d | %.0f %% | %d | %d |\n", m.Name, p.Role, p.Replies, p.Repaired, p.Unusable, p.AskedAgain, p.FellBack, p.Skipped, 100*p.FallbackShare, p.Reasoned, p.ReasoningTokens)
		}
	}
	b.WriteString("\n")
}

// table1 lays the overall results out as seed 002 Table 1 does for
// environments with a score: SR (%) and AR (average score of 100, a failed
// task's negative score counted 0). Household tasks have no partial score,
// so Table 1 gives ALFWorld SR only, and so does this report.
func table1(b *strings.Builder, d Data) {
	if d.Env == "household" || d.Env == "" {
		return
	}
	b.WriteString("As seed 002 Table 1: SR (%) and AR (average score out of 100; a failed task's negative score counts 0).\n\n")
	b.WriteString("| method | SR (%) [95 % CI] | AR [95 % CI] |\n|---|---:|---:|\n")
	for _, m := range d.Methods {
		fmt.Fprintf(b, "| %s | %s | %s |\n", m.Name, pct(m.Overall.SR/100, m.Success), pct(m.Overall.AR/100, m.Score))
	}
	b.WriteString("\n")
}

// rateCI is a rate with its interval when there is one (a rate without
// one: results written before intervals were).
func rateCI(rate float64, iv stats.Interval) string {
	if iv.N == 0 && iv.Method == "" {
		return fmt.Sprintf("%.3f", rate)
	}
	return ci(iv)
}

func byType(b *strings.Builder, d Data) {
	types := taskTypes(d.Methods)
	if len(types) == 0 {
		return
	}
	b.WriteString("## Per task type\n\n")
	b.WriteString("| type | method | tasks | success [95 % CI] | avg score [95 % CI] | SPL (expert) | SPL (Table 4) | avg steps |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, t := range types {
		for _, m := range d.Methods {
			s, ok := m.ByType[t]
			if !ok {
				continue
			}
			c := m.TypeCI[t]
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %.1f |\n", t, m.Name, s.Tasks, rateCI(s.SuccessRate, c.Success), rateCI(s.AvgScore, c.Score), ptr(s.SPL), ptr(s.SPLPaper), s.AvgSteps)
		}
	}
	b.WriteString("\n")
}

// Names of the SAMem variants in seed 002's Table 2 and Table 3, with the
// paper's row labels, in the paper's order.
var (
	table2Rows = [][2]string{{"samem", "SAMem(Full)"}, {"samem-no-q", "w/o Q-learning"}, {"samem-no-situation", "w/o Situation processing"}, {"samem-no-decay", "w/o Decayed ϵ-greedy"}}
	table3Rows = [][2]string{{"samem-action-level", "Action-level"}, {"samem", "Thought-level"}}
)

func findMethod(d Data, name string) (Method, bool) {
	for _, m := range d.Methods {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// paperValue is a result as seed 002's Tables 2 and 3 give it: the success
// rate in % on the household (ALFWorld) world, else "SR % / average score".
func paperValue(d Data, m Method) string {
	if d.Env == "household" {
		return pct(m.Overall.SuccessRate, m.Success)
	}
	return fmt.Sprintf("%s / %.2f", pct(m.Overall.SuccessRate, m.Success), m.Overall.AvgScore)
}

// pct is a rate in percent with its interval when there is one:
// "75.0 [30.1, 95.4]".
func pct(rate float64, iv stats.Interval) string {
	if !iv.Defined() {
		return fmt.Sprintf("%.1f", 100*rate)
	}
	return fmt.Sprintf("%.1f [%.1f, %.1f]", 100*rate, 100*iv.Low, 100*iv.High)
}

func paperColumn(d Data) string {
	env := cmp.Or(d.Env, "environment")
	if env == "household" {
		return "household (ALFWorld-style), success rate (%)"
	}
	return env + ", success rate (%) / average score"
}

// paperTable2 is seed 002 Table 2 as the paper lays it out: one row per
// model in the paper's order, one column per environment (this run's).
func paperTable2(b *strings.Builder, d Data) {
	full, ok := findMethod(d, "samem")
	if !ok {
		return
	}
	rows := 0
	var s strings.Builder
	for _, r := range table2Rows {
		m, ok := findMethod(d, r[0])
		if !ok {
			continue
		}
		if r[0] != full.Name {
			rows++
		}
		fmt.Fprintf(&s, "| %s | %s |\n", r[1], paperValue(d, m))
	}
	if rows == 0 {
		return
	}
	b.WriteString("## Table 2 (seed 002): ablation on key components\n\n")
	fmt.Fprintf(b, "| Model | %s |\n|---|---:|\n", paperColumn(d))
	b.WriteString(s.String() + "\n")
}

// paperTable3 is seed 002 Table 3 as the paper lays it out: the
// action-level and the thought-level rows, a column per n (training tasks
// per type; this run has one).
func paperTable3(b *strings.Builder, d Data) {
	act, ok1 := findMethod(d, table3Rows[0][0])
	th, ok2 := findMethod(d, table3Rows[1][0])
	if !ok1 || !ok2 {
		return
	}
	b.WriteString("## Table 3 (seed 002): action-level vs thought-level memory\n\n")
	n := "n = ?"
	if d.PerType > 0 {
		n = fmt.Sprintf("n = %d", d.PerType)
	}
	fmt.Fprintf(b, "%s.\n\n| Model | %s |\n|---|---:|\n", paperColumn(d), n)
	fmt.Fprintf(b, "| %s | %s |\n| %s | %s |\n\n", table3Rows[0][1], paperValue(d, act), table3Rows[1][1], paperValue(d, th))
}

// ablations is Table 2: the variants against the full method, as success
// rate and average score with the difference from the full method; the
// other methods' ablations (named "<method>-<variant>", e.g. seed 000 Fig.
// 4's arigraph-no-episodic) get a table of the same form each.
func ablations(b *strings.Builder, d Data) {
	ablationTable(b, d, "samem", "## Ablations (seed 002 Table 2)")
	for _, m := range d.Methods {
		if m.Name != "samem" && slices.ContainsFunc(d.Methods, func(v Method) bool { return strings.HasPrefix(v.Name, m.Name+"-") }) {
			ablationTable(b, d, m.Name, "## Ablations of "+m.Name)
		}
	}
}

func ablationTable(b *strings.Builder, d Data, base, heading string) {
	var full *Method
	var vs []Method
	for i, m := range d.Methods {
		switch {
		case m.Name == base:
			full = &d.Methods[i]
		case strings.HasPrefix(m.Name, base+"-") && m.Name != table3Rows[0][0] && m.Adapt == nil:
			// (a method evaluated with trials, CLIN's G+A, is a setting
			// shown in seed 004's Table 2, not an ablation)
			vs = append(vs, m)
		}
	}
	if full == nil || len(vs) == 0 {
		return
	}
	b.WriteString(heading + "\n\n")
	b.WriteString("| variant | what is removed | success | Δ success | avg score | Δ avg score |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|\n")
	fmt.Fprintf(b, "| %s | nothing (full) | %.3f | | %.3f | |\n", full.Name, full.Overall.SuccessRate, full.Overall.AvgScore)
	for _, m := range vs {
		fmt.Fprintf(b, "| %s | %s | %.3f | %+.3f | %.3f | %+.3f |\n", m.Name, m.Note, m.Overall.SuccessRate,
			m.Overall.SuccessRate-full.Overall.SuccessRate, m.Overall.AvgScore, m.Overall.AvgScore-full.Overall.AvgScore)
	}
	b.WriteString("\n")
}

func training(b *strings.Builder, d Data) {
	var rows []string
	for _, m := range d.Methods {
		h := m.History
		if len(h) == 0 {
			continue
		}
		first, last := h[0], h[len(h)-1]
		best := 0.0
		steps := 0
		for _, it := range h {
			best = max(best, it.SuccessRate)
			steps += it.Steps
		}
		lastCI := fmt.Sprintf("%.3f", last.SuccessRate)
		if _, mean, lo, hi, ok := seriesCI(m, func(it runner.IterationStats) float64 { return it.SuccessRate }, true); ok && len(mean) > 0 {
			k := len(mean) - 1
			lastCI = ci(stats.Interval{Mean: mean[k], Low: math.Max(0, lo[k]), High: math.Min(1, hi[k]), N: 1})
		}
		rows = append(rows, fmt.Sprintf("| %s | %d | %.3f | %s | %.3f | %d | %s |", m.Name, len(h), first.SuccessRate, lastCI, best, steps, sizes(last.Size)))
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Training\n\n")
	b.WriteString("Success rate on the training tasks in the first, the last (with its 95 % interval: over the seeds with several, else Wilson's over the iteration's episodes) and the best iteration, environment steps over all iterations, and the memory after the last iteration (Fig. 3 and Fig. 6 below; with several seeds, the first seed's).\n\n")
	b.WriteString("| method | iterations | first | last [95 % CI] | best | steps | memory after training |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---|\n")
	b.WriteString(strings.Join(rows, "\n"))
	b.WriteString("\n\n")
}

func sweep(b *strings.Builder, d Data) {
	if len(d.Sweep) == 0 {
		return
	}
	pts := sortedSweep(d.Sweep)
	b.WriteString("## Similarity threshold sweep (seed 002 Fig. 7 and Fig. 9)\n\n")
	b.WriteString("SAMem trained and evaluated once per threshold, everything else equal.\n\n")
	b.WriteString("| parameter | value | tasks | success [95 % CI, Wilson] | avg score | states | thoughts | entries |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range pts {
		iv := stats.Wilson(int(math.Round(p.SuccessRate*float64(p.Tasks))), p.Tasks)
		fmt.Fprintf(b, "| %s | %.2f | %d | %s | %.3f | %d | %d | %d |\n", p.Param, p.Value, p.Tasks, ci(iv), p.AvgScore, p.States, p.Thoughts, p.Entries)
	}
	b.WriteString("\n")
}

func figures(b *strings.Builder, d Data, plots map[string]bool) {
	b.WriteString("## Figures\n\n")
	for _, f := range []struct{ file, caption, missing string }{
		{TrainingPlot, "Success rate on the training tasks per iteration (seed 002 Fig. 3), with its 95 % interval: over the seeds with several, else Wilson's interval over the iteration's episodes.", "no method of this run has a training history (train it with cmd/train)."},
		{MemoryPlot, "SAMem's memory size (Q-table entries, solid, and states, dashed) over the training iterations, with forgetting (samem) and without (samem-no-forgetting) (seed 002 Fig. 6); with several seeds the means and their 95 % interval.", "no training history of samem or samem-no-forgetting; train -method samem,samem-no-forgetting to compare."},
		{SweepPlot, "Success rate, with Wilson's 95 % interval over the evaluated tasks, and number of states against the state similarity threshold (seed 002 Fig. 7).", "no threshold sweep in this run (go run ./cmd/sweep -run RUN)."},
		{ThoughtPlot, "Success rate, with Wilson's 95 % interval over the evaluated tasks, and number of thoughts against the thought similarity threshold (seed 002 Fig. 9).", "no thought-threshold sweep in this run (go run ./cmd/sweep -run RUN -param thought-threshold)."},
		{TokensPlot, "Tokens consumed by each method in the evaluation, served by a model or by the response cache (seed 002 Fig. 8; docs/COST.md): with several seeds the mean over the seeds and its 95 % interval; with one, a count (no interval).", ""},
		{ByTypePlot, "Success rate per task type and method, with its 95 % interval and each method's glyph on its bars (seed 004 Fig. 4).", ""},
		{ScoreStepPlot, "Mean normalised score against the number of actions taken, with the 95 % interval of the mean (Student's t over the episodes, or over the seeds' means with several seeds) when at most three methods are drawn (seed 000 Fig. 4).", ""},
	} {
		switch {
		case plots[f.file]:
			fmt.Fprintf(b, "![%s](%s)\n\n%s Vector: [%s](%s).\n\n", f.file, f.file, f.caption, SVGName(f.file), SVGName(f.file))
		case f.missing != "":
			fmt.Fprintf(b, "- %s: not drawn: %s\n\n", f.file, f.missing)
		}
	}
	if len(d.Methods) > 0 && allZeroTokens(d.Methods) && plots[TokensPlot] {
		b.WriteString("No method spent model tokens in this evaluation (offline backend or a fully cached replay).\n\n")
	}
}

func allZeroTokens(ms []Method) bool {
	for _, m := range ms {
		if m.Tokens != 0 {
			return false
		}
	}
	return true
}

func taskTypes(ms []Method) []string {
	set := map[string]bool{}
	for _, m := range ms {
		for t := range m.ByType {
			set[t] = true
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func sortedSweep(pts []SweepPoint) []SweepPoint {
	out := append([]SweepPoint(nil), pts...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Param != out[j].Param {
			return out[i].Param < out[j].Param
		}
		return out[i].Value < out[j].Value
	})
	return out
}

func ptr(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

// sizes renders a memory size map in a fixed key order.
func sizes(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// historyHas reports whether a training history records memory size key.
func historyHas(h []runner.IterationStats, key string) bool {
	for _, it := range h {
		if _, ok := it.Size[key]; ok {
			return true
		}
	}
	return false
}

// ALFWorld's task types in the column order of seed 004 Table 2, with the
// names it gives them.
var (
	clinTypes     = []string{"pick_and_place_simple", "pick_clean_then_place_in_recep", "pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep", "look_at_obj_in_light", "pick_two_obj_and_place"}
	clinTypeNames = []string{"Pick", "Clean", "Heat", "Cool", "Look", "Pick2"}
)

// clinTable2 is seed 004 Table 2 as the paper lays it out: success (%) per
// task type and over all, one row per CLIN setting; a method evaluated with
// trials (clin-ga, clin-gen-task) gives its first trial (GEN-ENV or
// GEN-TASK) and its result after adaptation (+A).
func clinTable2(b *strings.Builder, d Data) {
	var ms []Method
	for _, m := range d.Methods {
		if m.Name == "clin" || strings.HasPrefix(m.Name, "clin-") && !strings.HasSuffix(m.Name, "(not evaluated)") {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return
	}
	types := taskTypes(ms)
	sort.SliceStable(types, func(i, j int) bool {
		a, b := slices.Index(clinTypes, types[i]), slices.Index(clinTypes, types[j])
		if (a < 0) != (b < 0) {
			return a >= 0
		}
		return a < b
	})
	b.WriteString("## Table 2 (seed 004): CLIN's generalisation, success (%)\n\n")
	head := []string{"setting"}
	for _, t := range types {
		if k := slices.Index(clinTypes, t); k >= 0 {
			t = clinTypeNames[k]
		}
		head = append(head, t)
	}
	head = append(head, "All", "trials per task")
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|---" + strings.Repeat("|---:", len(head)-1) + "|\n")
	// A method's intervals where its results have them; a G+A method's
	// first trials get Wilson's over the tasks.
	row := func(label string, all runner.Summary, allCI stats.Interval, by map[string]runner.Summary, ci map[string]TypeCI, counts bool, trials string) {
		cells := []string{label}
		for _, t := range types {
			if s, ok := by[t]; ok && s.Completed > 0 {
				iv := ci[t].Success
				if counts {
					iv = stats.Wilson(s.Successes, s.Completed)
				}
				cells = append(cells, pct(s.SuccessRate, iv))
			} else {
				cells = append(cells, "-")
			}
		}
		if counts && all.Completed > 0 {
			allCI = stats.Wilson(all.Successes, all.Completed)
		}
		cells = append(cells, pct(all.SuccessRate, allCI), trials)
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	for _, m := range ms {
		setting := "GEN-ENV"
		if m.Name == "clin-gen-task" {
			setting = "GEN-TASK"
		}
		if m.Adapt == nil {
			row(fmt.Sprintf("%s (%s)", m.Name, setting), m.Overall, m.Success, m.ByType, m.TypeCI, false, "1")
			continue
		}
		row(fmt.Sprintf("%s, first trial (%s)", m.Name, setting), m.Adapt.FirstTrial, stats.Interval{}, m.Adapt.FirstByType, nil, m.Success.Defined(), "1")
		row(fmt.Sprintf("%s (%s+A)", m.Name, setting), m.Overall, m.Success, m.ByType, m.TypeCI, false, fmt.Sprintf("%.2f of %d", m.Adapt.AvgTrials, m.Adapt.MaxTrials))
	}
	b.WriteString("\n")
}
