package inspect

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Table is a readable table: a title, a header and rows of cells.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
}

// Formats of Table.Write.
const (
	Text     = "text"     // aligned columns, long texts cut
	CSV      = "csv"      // RFC 4180, full texts, no title
	Markdown = "markdown" // a pipe table under a heading, full texts
)

// ErrFormat is returned by Write for an unknown format.
var ErrFormat = errors.New("unknown format (want text, csv or markdown)")

// textWidth is where text output cuts a long cell (runes); CSV and
// Markdown keep every character.
const textWidth = 70

// Write writes t in format.
func (t Table) Write(w io.Writer, format string) error {
	switch format {
	case Text, "":
		if t.Title != "" {
			fmt.Fprintf(w, "%s\n", t.Title)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(t.Header, "\t"))
		for _, r := range t.Rows {
			cells := make([]string, len(r))
			for i, c := range r {
				cells[i] = cut(oneLine(c), textWidth)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		_, err := fmt.Fprintln(w)
		return err
	case CSV:
		cw := csv.NewWriter(w)
		cw.Write(t.Header)
		for _, r := range t.Rows {
			cw.Write(r)
		}
		cw.Flush()
		return cw.Error()
	case Markdown:
		if t.Title != "" {
			fmt.Fprintf(w, "## %s\n\n", t.Title)
		}
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(t.Header, " | "), strings.Repeat("---|", len(t.Header)))
		for _, r := range t.Rows {
			cells := make([]string, len(r))
			for i, c := range r {
				cells[i] = strings.ReplaceAll(oneLine(c), "|", `\|`)
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
		_, err := fmt.Fprintln(w)
		return err
	}
	return fmt.Errorf("format %q: %w", format, ErrFormat)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func q(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

func id(v int64) string {
	if v < 0 {
		return "-"
	}
	return strconv.FormatInt(v, 10)
}

// SizesTable is the memory's sizes with the checkpoint's metadata.
func SizesTable(c *Checkpoint) Table {
	s := c.Sizes()
	m := c.Meta
	title := fmt.Sprintf("checkpoint %s", c.Name)
	if evalDir, ok := OnlineEval(c.Dir); ok {
		// Iteration, step and epsilon are those of the trained checkpoint
		// the evaluation started from.
		title = fmt.Sprintf("memory left by the online evaluation %s (trained to iteration %d)", filepath.Base(evalDir), m.Iteration)
	}
	return Table{
		Title:  title,
		Header: []string{"field", "value"},
		Rows: [][]string{
			{"method", m.Method},
			{"iteration", strconv.FormatInt(m.Iteration, 10)},
			{"global step", strconv.FormatInt(m.GlobalStep, 10)},
			{"epsilon", q(m.Epsilon)},
			{"embedder", fmt.Sprintf("%s (dimension %d)", m.EmbedderModel, m.EmbedDim)},
			{"states", strconv.Itoa(s.States)},
			{"thoughts", strconv.Itoa(s.Thoughts)},
			{"entries", strconv.Itoa(s.Entries)},
			{"non-zero entries", strconv.Itoa(s.NonZero)},
			{"updates", strconv.FormatInt(s.Visits, 10)},
		},
	}
}

// StatesTable lists states with their best thoughts.
func StatesTable(title string, states []State) Table {
	t := Table{Title: title, Header: []string{"state", "members", "thoughts", "visits", "best thought", "Q", "state text", "best thought text"}}
	for _, s := range states {
		t.Rows = append(t.Rows, []string{id(s.ID), strconv.FormatInt(s.Members, 10), strconv.Itoa(s.Thoughts), strconv.FormatInt(s.Visits, 10), id(s.Best.ID), q(s.Best.Q), s.Text, s.Best.Text})
	}
	return t
}

// MatchesTable lists the states near a query, one row per (state, thought).
func MatchesTable(query string, ms []Match) Table {
	t := Table{Title: fmt.Sprintf("states nearest to %q", query), Header: []string{"rank", "similarity", "state", "thought", "Q", "visits", "state text", "thought text"}}
	for i, m := range ms {
		if len(m.Thoughts) == 0 {
			t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), strconv.FormatFloat(m.Similarity, 'f', 4, 64), id(m.State.ID), "-", "-", "0", m.State.Text, ""})
		}
		for _, th := range m.Thoughts {
			t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), strconv.FormatFloat(m.Similarity, 'f', 4, 64), id(m.State.ID), id(th.ID), q(th.Q), strconv.FormatInt(th.Visits, 10), m.State.Text, th.Text})
		}
	}
	return t
}

// HistoryTable follows one state across checkpoints.
func HistoryTable(state int64, steps []Step) Table {
	t := Table{Title: fmt.Sprintf("history of state %d", state), Header: []string{"checkpoint", "iteration", "present", "members", "thoughts", "visits", "best thought", "Q", "best thought text"}}
	for _, s := range steps {
		present := "yes"
		switch {
		case s.SameText:
			present = fmt.Sprintf("as state %d (same text)", s.State.ID)
		case !s.Present:
			t.Rows = append(t.Rows, []string{s.Checkpoint, strconv.FormatInt(s.Iteration, 10), "no", "-", "-", "-", "-", "-", ""})
			continue
		}
		st := s.State
		t.Rows = append(t.Rows, []string{s.Checkpoint, strconv.FormatInt(s.Iteration, 10), present, strconv.FormatInt(st.Members, 10), strconv.Itoa(st.Thoughts), strconv.FormatInt(st.Visits, 10), id(st.Best.ID), q(st.Best.Q), st.Best.Text})
	}
	return t
}
