// Package report is the table that `make bench` prints: one row
// per figure with its target, the baseline measured in the same run, the
// ratio of the two and whether the target is met, as aligned text for the
// terminal and as Markdown for the dated results file.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Op is how a value is compared with its target's limit.
type Op string

// The comparisons a target can make.
const (
	AtMost  Op = "<="
	AtLeast Op = ">="
)

// Target is a limit a figure must respect. The zero Target (Op "") is no
// target: the row is informational.
type Target struct {
	Op    Op
	Limit float64
	// Text, when not "", is printed instead of Op and Limit (for targets
	// that combine two conditions, such as "<= 2 and >= 9x faster").
	Text string
}

// Met reports whether v meets the target; a row without a target always
// meets it.
func (t Target) Met(v float64) bool {
	switch t.Op {
	case AtMost:
		return v <= t.Limit
	case AtLeast:
		return v >= t.Limit
	}
	return true
}

func (t Target) String() string {
	if t.Text != "" {
		return t.Text
	}
	if t.Op == "" {
		return "-"
	}
	return string(t.Op) + " " + strconv.FormatFloat(t.Limit, 'f', -1, 64)
}

// Row is one figure of the suite.
type Row struct {
	// Group names the part of the suite ("cluster", "step", ...).
	Group string `json:"group"`
	// Figure says what is measured, with its unit.
	Figure string `json:"figure"`
	// Value is the measured figure; NaN when it could not be measured
	// (Note says why).
	Value  float64 `json:"value"`
	Target Target  `json:"target"`
	// Baseline is the comparison measured in the same run (NaN: none);
	// BaselineName says what it is.
	Baseline     float64 `json:"baseline"`
	BaselineName string  `json:"baseline_name,omitempty"`
	// Ratio relates Value to Baseline as RatioName says ("x faster",
	// "of W", ...); NaN when there is no baseline.
	Ratio     float64 `json:"ratio"`
	RatioName string  `json:"ratio_name,omitempty"`
	// Pass overrides Target.Met when not nil (for figures whose target
	// involves the baseline, such as "at least 9 times faster").
	Pass *bool `json:"pass,omitempty"`
	// Note explains a skipped or failed measurement.
	Note string `json:"note,omitempty"`
}

// Status is "ok", "MISS", or "skip" for a row without a value.
func (r Row) Status() string {
	switch {
	case math.IsNaN(r.Value):
		return "skip"
	case r.Pass != nil && !*r.Pass, r.Pass == nil && !r.Target.Met(r.Value):
		return "MISS"
	}
	return "ok"
}

// Bool returns a pointer to b, for Row.Pass.
func Bool(b bool) *bool { return &b }

// None is the Value, Baseline or Ratio of a row that has none.
var None = math.NaN()

var header = []string{"figure", "value", "target", "same-run baseline", "ratio", "status"}

func (r Row) cells() []string {
	val := num(r.Value)
	base := num(r.Baseline)
	if r.BaselineName != "" && !math.IsNaN(r.Baseline) {
		base += " (" + r.BaselineName + ")"
	}
	ratio := num(r.Ratio)
	if r.RatioName != "" && !math.IsNaN(r.Ratio) {
		ratio += " " + r.RatioName
	}
	st := r.Status()
	if r.Note != "" {
		st += ": " + r.Note
	}
	return []string{r.Figure, val, r.Target.String(), base, ratio, st}
}

// num prints a figure with three significant decimals at most: large
// numbers without a fraction, NaN as "-".
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.Abs(v) >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// Text writes rows as one aligned table.
func Text(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t"))
	}
	return tw.Flush()
}

// Markdown writes rows as a Markdown table.
func Markdown(w io.Writer, rows []Row) error {
	esc := strings.NewReplacer("|", `\|`, "\n", " ")
	line := func(cells []string) string {
		for i, c := range cells {
			cells[i] = esc.Replace(c)
		}
		return "| " + strings.Join(cells, " | ") + " |\n"
	}
	var b strings.Builder
	b.WriteString(line(append([]string(nil), header...)))
	b.WriteString("|" + strings.Repeat("---|", len(header)) + "\n")
	for _, r := range rows {
		b.WriteString(line(r.cells()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Misses returns the rows whose status is MISS.
func Misses(rows []Row) []Row {
	var out []Row
	for _, r := range rows {
		if r.Status() == "MISS" {
			out = append(out, r)
		}
	}
	return out
}

// wire is Row as JSON: NaN (no value) travels as null, which encoding/json
// cannot write for a float64.
type wire struct {
	Group        string   `json:"group"`
	Figure       string   `json:"figure"`
	Value        *float64 `json:"value"`
	Target       Target   `json:"target"`
	Baseline     *float64 `json:"baseline"`
	BaselineName string   `json:"baseline_name,omitempty"`
	Ratio        *float64 `json:"ratio"`
	RatioName    string   `json:"ratio_name,omitempty"`
	Pass         *bool    `json:"pass,omitempty"`
	Note         string   `json:"note,omitempty"`
}

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes NaN figures as null.
func (r Row) MarshalJSON() ([]byte, error) {
	return json.Marshal(wire{r.Group, r.Figure, ptr(r.Value), r.Target, ptr(r.Baseline), r.BaselineName, ptr(r.Ratio), r.RatioName, r.Pass, r.Note})
}

// UnmarshalJSON reads null figures as NaN.
func (r *Row) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Row{w.Group, w.Figure, val(w.Value), w.Target, val(w.Baseline), w.BaselineName, val(w.Ratio), w.RatioName, w.Pass, w.Note}
	return nil
}
