package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/samem/trainer/stats"
)

// Table exports written beside report.md, each as CSV and as a LaTeX
// tabular (booktabs rules) for a paper.
const (
	TableCSV     = "table.csv"
	TableTeX     = "table.tex"
	ByTypeCSV    = "by_type.csv"
	ByTypeTeX    = "by_type.tex"
	PairedCSV    = "paired.csv"
	PairedTeX    = "paired.tex"
	MemoryUseCSV = "memory_use.csv"
	MemoryUseTeX = "memory_use.tex"
)

// ci renders a rate with its interval: "0.750 [0.409, 0.934]"; an
// undefined interval shows as "[–]".
func ci(iv stats.Interval) string {
	if math.IsNaN(iv.Mean) {
		return "-"
	}
	if !iv.Defined() {
		return fmt.Sprintf("%.3f [–]", iv.Mean)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", iv.Mean, iv.Low, iv.High)
}

// intervalNote says what the intervals of d are over.
func intervalNote(d Data) string {
	for _, m := range d.Methods {
		iv := m.Success
		switch iv.Over {
		case "seeds":
			return fmt.Sprintf("Intervals are 95 %% intervals over the %d run seeds (Student's t on the per-seed rates; seeds %s).", iv.N, seedList(d.Seeds))
		case "tasks":
			return "Intervals are 95 % intervals over the tasks of one run seed (Wilson's score interval for the success rate, Student's t for the average score): they show the noise of the task sample, not of training; repeat the run with -seeds for intervals over seeds."
		}
	}
	return ""
}

func seedList(s []int64) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(parts, ", ")
}

// pairedSection is the paired comparisons, with the method named.
func pairedSection(b *strings.Builder, d Data) {
	any := false
	for _, m := range d.Methods {
		any = any || len(m.Paired) > 0
	}
	if !any {
		return
	}
	b.WriteString("## Paired comparisons\n\n")
	fmt.Fprintf(b, "Each method against the no-memory baseline and against SAMem on the same tasks and seeds: %s. *Difference* is the method's mean minus the other's; *better* and *worse* count the pairs where the method was above or below.\n\n", stats.PairedMethod)
	b.WriteString("| method | against | metric | pairs | difference [95 % CI] | p-value | better | worse |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, m := range d.Methods {
		for _, p := range m.Paired {
			fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %s | %d | %d |\n", m.Name, p.Against, p.Metric, p.Pairs, signedCI(p.Paired), pValue(p.P), p.Better, p.Worse)
		}
	}
	b.WriteString("\n")
}

func signedCI(p stats.Paired) string {
	if math.IsNaN(p.Difference) {
		return "-"
	}
	return fmt.Sprintf("%+.3f [%+.3f, %+.3f]", p.Difference, p.Low, p.High)
}

func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 0.001:
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

func optRate(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

func optCount(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", *p)
}

// memoryUseSection is how each method used its memory.
func memoryUseSection(b *strings.Builder, d Data) {
	any := false
	for _, m := range d.Methods {
		any = any || m.Use != nil
	}
	if !any {
		return
	}
	b.WriteString("## Memory use\n\n")
	b.WriteString("*Guided* is the share of steps whose decision memory guided (SAMem: a remembered thought of positive value; the other methods: a step where what they retrieved from memory was not empty); a memory that is empty guides nothing. *Invalid* is the share of actions the environment would not carry out. *Progress* is the share of the task's subgoals reached (household: find, take, process, place); *score share* the best score over the maximum where a game keeps a score. Tokens *building* memory are every token of training (acting, reflection, forgetting) and the evaluation's memory-writing roles; tokens *using* it are the evaluation's others.\n\n")
	b.WriteString("| method | guided | invalid | progress | score share | tokens per success | tokens building memory | of them in training | tokens using memory |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range d.Methods {
		u := m.Use
		if u == nil {
			continue
		}
		fmt.Fprintf(b, "| %s | %.3f (%d of %d) | %s | %s | %s | %s | %d | %d | %d |\n", m.Name, u.GuidedShare, u.GuidedSteps, u.Steps,
			optRate(u.InvalidRate), optRate(u.ProgressRate), optRate(u.ScoreShare), optCount(u.TokensPerSuccess), u.TokensBuild, u.TokensTraining, u.TokensUse)
	}
	b.WriteString("\n")
}

// provenanceSection is the short provenance and the warnings.
func provenanceSection(b *strings.Builder, d Data) {
	if d.Provenance == "" && len(d.Warnings) == 0 {
		return
	}
	b.WriteString("## Provenance\n\n")
	if d.Provenance != "" {
		fmt.Fprintf(b, "%s. The full record is provenance.json in the evaluation's directory.\n\n", d.Provenance)
	}
	if len(d.Warnings) > 0 {
		b.WriteString("**⚠ The runs compared differ:**\n\n")
		for _, w := range d.Warnings {
			fmt.Fprintf(b, "- %s\n", w)
		}
		b.WriteString("\n")
	}
}

// table is a table for the exports: a header and rows of cells.
type table struct {
	head []string
	rows [][]string
	// align is the LaTeX column spec ("lrr").
	align string
}

func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

func ptrNum(p *float64) string {
	if p == nil {
		return ""
	}
	return num(*p)
}

// exports builds every exported table of d, by file stem.
func exports(d Data) map[string]table {
	out := map[string]table{}
	t := table{head: []string{"method", "tasks", "errored", "success", "success_low", "success_high", "score", "score_low", "score_high", "interval_over", "n", "spl", "avg_steps", "tokens", "cost_usd"}, align: "lrrrrrrrrlrrrrr"}
	for _, m := range d.Methods {
		s := m.Overall
		spl := ""
		if s.SPL != nil {
			spl = num(*s.SPL)
		}
		t.rows = append(t.rows, []string{m.Name, strconv.Itoa(s.Tasks), strconv.Itoa(s.Errors), num(s.SuccessRate), num(m.Success.Low), num(m.Success.High),
			num(s.AvgScore), num(m.Score.Low), num(m.Score.High), m.Success.Over, strconv.Itoa(m.Success.N), spl, num(s.AvgSteps), strconv.FormatInt(m.Tokens, 10), num(m.CostUSD)})
	}
	out["table"] = t
	bt := table{head: []string{"type", "method", "tasks", "success", "success_low", "success_high", "score", "score_low", "score_high"}, align: "llrrrrrrr"}
	for _, ty := range taskTypes(d.Methods) {
		for _, m := range d.Methods {
			s, ok := m.ByType[ty]
			if !ok {
				continue
			}
			c := m.TypeCI[ty]
			bt.rows = append(bt.rows, []string{ty, m.Name, strconv.Itoa(s.Tasks), num(s.SuccessRate), num(c.Success.Low), num(c.Success.High), num(s.AvgScore), num(c.Score.Low), num(c.Score.High)})
		}
	}
	out["by_type"] = bt
	pt := table{head: []string{"method", "against", "metric", "pairs", "difference", "low", "high", "p_value", "better", "worse"}, align: "lllrrrrrrr"}
	for _, m := range d.Methods {
		for _, p := range m.Paired {
			pt.rows = append(pt.rows, []string{m.Name, p.Against, p.Metric, strconv.Itoa(p.Pairs), num(p.Difference), num(p.Low), num(p.High), num(p.P), strconv.Itoa(p.Better), strconv.Itoa(p.Worse)})
		}
	}
	out["paired"] = pt
	ut := table{head: []string{"method", "guided_share", "guided_steps", "steps", "invalid_action_rate", "progress_rate", "score_share", "tokens_per_success", "tokens_training", "tokens_build", "tokens_use"}, align: "lrrrrrrrrrr"}
	for _, m := range d.Methods {
		if u := m.Use; u != nil {
			ut.rows = append(ut.rows, []string{m.Name, num(u.GuidedShare), strconv.Itoa(u.GuidedSteps), strconv.Itoa(u.Steps), ptrNum(u.InvalidRate), ptrNum(u.ProgressRate), ptrNum(u.ScoreShare),
				ptrNum(u.TokensPerSuccess), strconv.FormatInt(u.TokensTraining, 10), strconv.FormatInt(u.TokensBuild, 10), strconv.FormatInt(u.TokensUse, 10)})
		}
	}
	out["memory_use"] = ut
	return out
}

// csvBytes renders t as CSV.
func (t table) csvBytes() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(t.head)
	w.WriteAll(t.rows)
	return buf.Bytes()
}

// texEscape escapes LaTeX's special characters.
var texEscape = strings.NewReplacer(`\`, `\textbackslash{}`, "_", `\_`, "%", `\%`, "&", `\&`, "#", `\#`, "$", `\$`, "{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`)

// texBytes renders t as a LaTeX tabular with booktabs rules.
func (t table) texBytes() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%% generated by the trainer's report; needs \\usepackage{booktabs}\n\\begin{tabular}{%s}\n\\toprule\n", t.align)
	head := make([]string, len(t.head))
	for i, h := range t.head {
		head[i] = texEscape.Replace(strings.ReplaceAll(h, "_", " "))
	}
	b.WriteString(strings.Join(head, " & ") + " \\\\\n\\midrule\n")
	for _, r := range t.rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = texEscape.Replace(c)
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	return []byte(b.String())
}
