package report

import (
	"fmt"
	"slices"
	"strings"
)

// table1Rows are seed 002 Table 1's rows in the paper's order, with the
// paper's labels: its no-memory "baseline", the five compared methods
// (App. B.2) and SAMem. Methods evaluated in a run and not in the table
// (MemRL, CLIN, AriGraph, ...) follow them, in the run's order.
var table1Rows = [][2]string{
	{"nomemory", "baseline"}, {"reflexion", "Reflexion"}, {"expel", "ExpeL"}, {"awm", "AWM"},
	{"autoguide", "AutoGuide"}, {"cdmem", "CDMem"}, {"samem", "SAMem"},
}

// alfworldTypes are the ALFWorld task types in the order of seed 002
// Table 5, with its column labels.
var alfworldTypes = [][2]string{
	{"pick_and_place_simple", "Put"}, {"pick_clean_then_place_in_recep", "Clean"}, {"pick_heat_then_place_in_recep", "Heat"},
	{"pick_cool_then_place_in_recep", "Cool"}, {"look_at_obj_in_light", "Exa."}, {"pick_two_obj_and_place", "Puttwo"},
}

// paperOrdered is ms with seed 002 Table 1's methods first, in the
// paper's order, then the others as they come; each with its label
// (the paper's for Table 1's rows, else its name).
func paperOrdered(ms []Method) ([]Method, []string) {
	var out []Method
	var labels []string
	for _, r := range table1Rows {
		for _, m := range ms {
			if m.Name == r[0] {
				out, labels = append(out, m), append(labels, r[1])
			}
		}
	}
	for _, m := range ms {
		if !slices.ContainsFunc(table1Rows, func(r [2]string) bool { return r[0] == m.Name }) {
			out, labels = append(out, m), append(labels, m.Name)
		}
	}
	return out, labels
}

// alfworldLayout reports whether the run's task types are ALFWorld's
// (the household world, or AgentGym's ALFWorld), which Table 1 reports by
// success rate, here per type as Table 5 lays types out.
func alfworldLayout(d Data) bool {
	if d.Env == "household" {
		return true
	}
	types := taskTypes(d.Methods)
	if len(types) == 0 {
		return false
	}
	for _, t := range types {
		if !slices.ContainsFunc(alfworldTypes, func(r [2]string) bool { return r[0] == t }) {
			return false
		}
	}
	return true
}

// relative is the change of v over the baseline's value in %, as Table 1's
// "(+26.9%)", or "" without a baseline.
func relative(v, base float64, has bool) string {
	if !has || base <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%+.1f%%)", 100*(v-base)/base)
}

// paperTable1 lays the results out as seed 002 Table 1: one row per
// method, the paper's methods first in its order and the others beside
// them. ALFWorld-style runs give the success rate (%) per task type (in
// Table 5's column order) and over all tasks; scored environments
// (ScienceWorld, Jericho) SR (%) and AR (average reward out of 100). The
// last column is the change over the no-memory baseline, as the paper's
// "Average" column gives it.
func paperTable1(b *strings.Builder, d Data) {
	ms, labels := paperOrdered(d.Methods)
	if len(ms) == 0 {
		return
	}
	base, hasBase := findMethod(d, "nomemory")
	b.WriteString("## Table 1 (seed 002) layout\n\n")
	if alfworldLayout(d) {
		var cols [][2]string
		for _, t := range alfworldTypes {
			if slices.Contains(taskTypes(d.Methods), t[0]) {
				cols = append(cols, t)
			}
		}
		b.WriteString("Success rate (%) per task type and over all held-out tasks (SR), methods in the paper's order; the last column is the change of SR over the no-memory baseline.\n\n")
		b.WriteString("| Model |")
		for _, c := range cols {
			b.WriteString(" " + c[1] + " |")
		}
		b.WriteString(" SR | vs baseline |\n|---|")
		b.WriteString(strings.Repeat("---:|", len(cols)+2) + "\n")
		for i, m := range ms {
			fmt.Fprintf(b, "| %s |", labels[i])
			for _, c := range cols {
				if s, ok := m.ByType[c[0]]; ok && s.Tasks > s.Errors {
					fmt.Fprintf(b, " %.1f |", 100*s.SuccessRate)
				} else {
					b.WriteString(" - |")
				}
			}
			rel := relative(m.Overall.SuccessRate, base.Overall.SuccessRate, hasBase && m.Name != base.Name)
			fmt.Fprintf(b, " %.1f |%s |\n", 100*m.Overall.SuccessRate, rel)
		}
		b.WriteString("\n")
		return
	}
	b.WriteString("SR (%) and AR (average reward out of 100; a failed task's negative score counts 0), methods in the paper's order; the last column is the change of AR over the no-memory baseline.\n\n")
	fmt.Fprintf(b, "| Model | %s SR | %s AR | vs baseline |\n|---|---:|---:|---:|\n", envLabel(d.Env), envLabel(d.Env))
	for i, m := range ms {
		rel := relative(m.Overall.AR, base.Overall.AR, hasBase && m.Name != base.Name)
		fmt.Fprintf(b, "| %s | %.1f | %.1f |%s |\n", labels[i], m.Overall.SR, m.Overall.AR, rel)
	}
	b.WriteString("\n")
}

func envLabel(env string) string {
	switch env {
	case "zmachine":
		return "Jericho"
	case "":
		return "environment"
	}
	return env
}

// paperFig8 is seed 002 Fig. 8's comparison as a table: the model tokens
// each method spent, in training (from the run's last train command) and
// in this evaluation, with its success rate, the methods in the paper's
// order.
func paperFig8(b *strings.Builder, d Data) {
	ms, labels := paperOrdered(d.Methods)
	if len(ms) == 0 {
		return
	}
	b.WriteString("## Fig. 8 (seed 002): tokens per method\n\n")
	b.WriteString("Model tokens (prompt, completion and cached) spent in training (as the run's last `train` command recorded them in `train-usage.json`; - when it trained another method) and in this evaluation, with the evaluation's success rate.\n\n")
	b.WriteString("| Model | training tokens | evaluation tokens | total | success |\n|---|---:|---:|---:|---:|\n")
	for i, m := range ms {
		train, total := "-", m.Tokens
		if m.TrainTokens != nil {
			train = fmt.Sprint(*m.TrainTokens)
			total += *m.TrainTokens
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %.3f |\n", labels[i], train, m.Tokens, total, m.Overall.SuccessRate)
	}
	b.WriteString("\n")
}
