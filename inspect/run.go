package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/llm"
)

// Request is what the inspect command shows.
type Request struct {
	// Path and Method name the checkpoint (see Open).
	Path, Method string
	// Sort (ByValue, ByVisits, ByID) and Top (0: all) select the states
	// listed.
	Sort string
	Top  int
	// Query, when set, lists the K states nearest to it with up to
	// Thoughts thoughts each.
	Query       string
	K, Thoughts int
	// State >= 0 follows that state across the kept checkpoints.
	State int64
	// Format is Text, CSV or Markdown. CSV writes one table only: the
	// history with State >= 0, else the nearest states with a Query, else
	// the states.
	Format string
	// NewEmbedder embeds a query for a checkpoint made with a model (the
	// offline embedder needs none): it gets the checkpoint's embedder model
	// and dimension. nil: such a query fails with ErrNeedModel.
	NewEmbedder func(model string, dim int) (llm.Embedder, error)
	// Tables names the memory tables to show (agent.Shower's, "all" for
	// every one); a checkpoint of a method other than SAMem shows all of
	// them when none is named. Top bounds the rows of each (0: all).
	Tables []string
	// Show opens the method's checkpoint directory and returns its memory
	// tables (app.OpenMemory); nil: only SAMem's checkpoints open.
	Show func(ctx context.Context, ckpt, method string) ([]agent.Table, error)
	// Against, when set, names another checkpoint of the same method (any
	// form Path takes; the trained one, for an online evaluation's memory)
	// and each memory table shows only the rows that differ: "+" for a row
	// of Path's that Against lacks (added, or the new value of a changed
	// row), "-" for one of Against's that Path lacks. Needs Show.
	Against string
}

// Write opens the checkpoint of r and writes the tables r asks for.
func Write(ctx context.Context, w io.Writer, r Request) error {
	if r.Format != "" && r.Format != Text && r.Format != CSV && r.Format != Markdown {
		return fmt.Errorf("format %q: %w", r.Format, ErrFormat)
	}
	if r.Show != nil {
		dir, method, samem, err := ResolveAny(r.Path, r.Method)
		if err != nil {
			return err
		}
		if !samem || len(r.Tables) > 0 || r.Against != "" {
			return writeShown(ctx, w, r, dir, method)
		}
	} else if r.Against != "" {
		return fmt.Errorf("compare with %s: no way to open memory tables here", r.Against)
	}
	c, err := Open(ctx, r.Path, r.Method)
	if err != nil {
		return err
	}
	states, err := c.States(r.Sort, r.Top)
	if err != nil {
		return err
	}
	sortBy := r.Sort
	if sortBy == "" {
		sortBy = ByValue
	}
	title := fmt.Sprintf("states by %s", sortBy)
	if r.Top > 0 {
		title = fmt.Sprintf("top %d states by %s", r.Top, sortBy)
	}
	tables := []Table{SizesTable(c), StatesTable(title, states)}
	if r.Query != "" {
		emb, err := c.EmbedderFor()
		if errors.Is(err, ErrNeedModel) && r.NewEmbedder != nil {
			emb, err = r.NewEmbedder(c.Meta.EmbedderModel, int(c.Meta.EmbedDim))
		}
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		k := r.K
		if k <= 0 {
			k = 3
		}
		ms, err := c.Nearest(ctx, emb, r.Query, k, r.Thoughts)
		if err != nil {
			return err
		}
		tables = append(tables, MatchesTable(r.Query, ms))
	}
	if r.State >= 0 {
		cps, err := History(ctx, c.Dir, c.Meta.Method)
		if err != nil {
			return err
		}
		steps, err := StateHistory(cps, r.State)
		if err != nil {
			return err
		}
		tables = append(tables, HistoryTable(r.State, steps))
	}
	if r.Format == CSV {
		return tables[len(tables)-1].Write(w, CSV)
	}
	for _, t := range tables {
		if err := t.Write(w, r.Format); err != nil {
			return err
		}
	}
	return nil
}

// writeShown writes the memory tables r names of the checkpoint dir.
func writeShown(ctx context.Context, w io.Writer, r Request, dir, method string) error {
	tables, err := r.Show(ctx, dir, method)
	if err != nil {
		return err
	}
	than := ""
	if r.Against != "" {
		odir, omethod, _, err := ResolveAny(r.Against, method)
		if err != nil {
			return fmt.Errorf("compare with: %w", err)
		}
		if omethod != method {
			return fmt.Errorf("compare with %s: a checkpoint of %s, not %s", odir, omethod, method)
		}
		others, err := r.Show(ctx, odir, method)
		if err != nil {
			return fmt.Errorf("compare with: %w", err)
		}
		tables, than = diffTables(tables, others), " that differ from "+odir
	}
	want := map[string]bool{}
	for _, n := range r.Tables {
		want[n] = true
	}
	all := len(want) == 0 || want["all"]
	var out []Table
	var names []string
	for _, t := range tables {
		names = append(names, t.Name)
		if !all && !want[t.Name] {
			continue
		}
		delete(want, t.Name)
		rows := t.Rows
		title := fmt.Sprintf("%s %s (%d rows%s)", method, t.Name, len(rows), than)
		if r.Top > 0 && len(rows) > r.Top {
			rows = rows[:r.Top]
			title = fmt.Sprintf("%s %s (first %d of %d rows%s)", method, t.Name, r.Top, len(t.Rows), than)
		}
		out = append(out, Table{Title: title, Header: t.Columns, Rows: rows})
	}
	delete(want, "all")
	for n := range want {
		return fmt.Errorf("%w: %q (%s shows %v)", ErrNoTable, n, method, names)
	}
	if r.Format == CSV {
		if len(out) != 1 {
			return fmt.Errorf("%w: csv writes one table; name one with -table (%v)", ErrFormat, names)
		}
		return out[0].Write(w, CSV)
	}
	for _, t := range out {
		if err := t.Write(w, r.Format); err != nil {
			return err
		}
	}
	return nil
}

// diffTables keeps of each table of a the rows that differ from b's table
// of the same name, as a multiset of whole rows, under a first column
// "change": "+" for a row of a's that b lacks, then "-" for one of b's that
// a lacks, each in its table's order. A table b lacks is all "+".
func diffTables(a, b []agent.Table) []agent.Table {
	byName := map[string]agent.Table{}
	for _, t := range b {
		byName[t.Name] = t
	}
	key := func(row []string) string { return strings.Join(row, "\x00") }
	out := make([]agent.Table, 0, len(a))
	for _, t := range a {
		count := map[string]int{}
		for _, row := range byName[t.Name].Rows {
			count[key(row)]++
		}
		var plus [][]string
		for _, row := range t.Rows {
			if k := key(row); count[k] > 0 {
				count[k]--
				continue
			}
			plus = append(plus, append([]string{"+"}, row...))
		}
		var minus [][]string
		for _, row := range byName[t.Name].Rows {
			if k := key(row); count[k] > 0 {
				count[k]--
				minus = append(minus, append([]string{"-"}, row...))
			}
		}
		out = append(out, agent.Table{Name: t.Name, Columns: append([]string{"change"}, t.Columns...), Rows: append(plus, minus...)})
	}
	return out
}
