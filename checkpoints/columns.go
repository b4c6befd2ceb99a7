package checkpoints

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// Column-at-a-time readers for the two large tables of a checkpoint.
//
// Why: parquet-go's generic reader rebuilds every row through one
// parquet.Value per field and per list element; on 10,000 + 10,000
// clusters of dimension 1024 (20 million floats) plus a 1,000,000-row
// Q-table that took 2.8 s of a 4 s load (pprof: Schema.Reconstruct,
// reconstructFuncOfRepeated, growslice, GC), against a target of 1.5 s.
// Decoding each column's pages straight into typed slices, and every
// embedding into one shared backing array, avoids it. Pages in an
// encoding this package does not write (dictionary-encoded numbers, as
// another tool might produce) take a slower value-by-value path, so any
// valid file with the right columns still reads.

// readQRows reads a Q-table file column by column.
func readQRows(ctx context.Context, pf *parquet.File) ([]QRow, error) {
	cols, err := columnIndexes(pf, "state_id", "thought_id", "q", "visits", "last_update_step")
	if err != nil {
		return nil, err
	}
	out := make([]QRow, 0, min(pf.NumRows(), maxPrealloc))
	for _, rg := range pf.RowGroups() {
		base := len(out)
		chunks := rg.ColumnChunks()
		// The first column appends the rows, the others fill them in.
		err := eachPage(ctx, chunks[cols[0]], func(p parquet.Page) error {
			v, err := int64s(p)
			for _, x := range v {
				out = append(out, QRow{StateID: x})
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		n := len(out) - base
		if int64(n) != rg.NumRows() {
			return nil, fmt.Errorf("%w: row group holds %d values of state_id, footer says %d rows", ErrCorrupt, n, rg.NumRows())
		}
		rows := out[base:]
		fill := func(col int, name string, set func(r *QRow, p parquet.Page, i int) error, count func(p parquet.Page) (int, error)) error {
			i := 0
			err := eachPage(ctx, chunks[col], func(p parquet.Page) error {
				k, err := count(p)
				if err != nil {
					return err
				}
				if i+k > len(rows) {
					return fmt.Errorf("%w: column %s has more values than rows", ErrCorrupt, name)
				}
				for j := range k {
					if err := set(&rows[i+j], p, j); err != nil {
						return err
					}
				}
				i += k
				return nil
			})
			if err == nil && i != len(rows) {
				err = fmt.Errorf("%w: column %s has %d values for %d rows", ErrCorrupt, name, i, len(rows))
			}
			return err
		}
		var cur []int64
		var curF []float64
		countI := func(p parquet.Page) (int, error) {
			var err error
			cur, err = int64s(p)
			return len(cur), err
		}
		countF := func(p parquet.Page) (int, error) {
			var err error
			curF, err = float64s(p)
			return len(curF), err
		}
		if err := fill(cols[1], "thought_id", func(r *QRow, _ parquet.Page, j int) error { r.ThoughtID = cur[j]; return nil }, countI); err != nil {
			return nil, err
		}
		if err := fill(cols[2], "q", func(r *QRow, _ parquet.Page, j int) error { r.Q = curF[j]; return nil }, countF); err != nil {
			return nil, err
		}
		if err := fill(cols[3], "visits", func(r *QRow, _ parquet.Page, j int) error { r.Visits = cur[j]; return nil }, countI); err != nil {
			return nil, err
		}
		if err := fill(cols[4], "last_update_step", func(r *QRow, _ parquet.Page, j int) error { r.LastUpdateStep = cur[j]; return nil }, countI); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readClusterRows reads a cluster file: the small columns through the
// generic reader of a projection without the embedding, the embeddings
// column by column into one backing array.
func readClusterRows(ctx context.Context, pf *parquet.File) ([]ClusterRow, error) {
	type head struct {
		ID      int64  `parquet:"id"`
		Text    string `parquet:"text,dict"`
		Members int64  `parquet:"members"`
	}
	heads, err := readRows[head](ctx, pf)
	if err != nil {
		return nil, err
	}
	cols, err := columnIndexes(pf, "embedding", "list", "element")
	if err != nil {
		return nil, err
	}
	leaf, _ := pf.Schema().Lookup("embedding", "list", "element")
	maxDef := byte(leaf.MaxDefinitionLevel)
	var flat []float32
	var starts []int
	for _, rg := range pf.RowGroups() {
		first := len(starts)
		err := eachPage(ctx, rg.ColumnChunks()[cols[0]], func(p parquet.Page) error {
			reps, defs := p.RepetitionLevels(), p.DefinitionLevels()
			vals, err := float32s(p)
			if err != nil {
				return err
			}
			if len(reps) != len(defs) {
				return fmt.Errorf("%w: embedding page has %d repetition and %d definition levels", ErrCorrupt, len(reps), len(defs))
			}
			if flat == nil {
				flat = make([]float32, 0, min(int64(len(vals))*int64(len(heads))/max(p.NumRows(), 1), 1<<25))
			}
			vi := 0
			for i := range reps {
				if reps[i] == 0 {
					starts = append(starts, len(flat))
				} else if len(starts) == first {
					return fmt.Errorf("%w: embedding list continues a row of another row group", ErrCorrupt)
				}
				if defs[i] == maxDef {
					if vi >= len(vals) {
						return fmt.Errorf("%w: embedding page has fewer values than levels say", ErrCorrupt)
					}
					flat = append(flat, vals[vi])
					vi++
				}
			}
			if vi != len(vals) {
				return fmt.Errorf("%w: embedding page has %d values, levels say %d", ErrCorrupt, len(vals), vi)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if int64(len(starts)-first) != rg.NumRows() {
			return nil, fmt.Errorf("%w: row group holds %d embeddings, footer says %d rows", ErrCorrupt, len(starts)-first, rg.NumRows())
		}
	}
	if len(starts) != len(heads) {
		return nil, fmt.Errorf("%w: %d embeddings for %d rows", ErrCorrupt, len(starts), len(heads))
	}
	out := make([]ClusterRow, len(heads))
	for i, h := range heads {
		end := len(flat)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		// A full slice expression, so that appending to one embedding can
		// never write into the next.
		out[i] = ClusterRow{ID: h.ID, Text: h.Text, Members: h.Members, Embedding: flat[starts[i]:end:end]}
	}
	return out, nil
}

// columnIndexes returns the leaf column indexes of the given top-level
// columns (or of one nested path when more names follow a list's name).
func columnIndexes(pf *parquet.File, names ...string) ([]int, error) {
	s := pf.Schema()
	if len(names) == 3 && names[1] == "list" {
		leaf, ok := s.Lookup(names...)
		if !ok {
			return nil, fmt.Errorf("%w: no column %s", ErrSchema, names[0])
		}
		return []int{leaf.ColumnIndex}, nil
	}
	out := make([]int, len(names))
	for i, n := range names {
		leaf, ok := s.Lookup(n)
		if !ok {
			return nil, fmt.Errorf("%w: no column %s", ErrSchema, n)
		}
		out[i] = leaf.ColumnIndex
	}
	return out, nil
}

// eachPage calls fn on every page of a column chunk, releasing each page's
// buffers afterwards (fn must copy what it keeps).
func eachPage(ctx context.Context, chunk parquet.ColumnChunk, fn func(p parquet.Page) error) error {
	pages := chunk.Pages()
	defer pages.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		err = fn(p)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}

// int64s returns a page's non-null values as int64s: its decoded buffer
// when the page is plainly encoded, else a copy read value by value.
func int64s(p parquet.Page) ([]int64, error) {
	if d := p.Data(); p.Dictionary() == nil && d.Kind() == encoding.Int64 && int64(len(d.Int64())) == p.NumValues()-p.NumNulls() {
		return d.Int64(), nil
	}
	return slowValues(p, parquet.Value.Int64)
}

func float64s(p parquet.Page) ([]float64, error) {
	if d := p.Data(); p.Dictionary() == nil && d.Kind() == encoding.Double && int64(len(d.Double())) == p.NumValues()-p.NumNulls() {
		return d.Double(), nil
	}
	return slowValues(p, parquet.Value.Double)
}

func float32s(p parquet.Page) ([]float32, error) {
	if d := p.Data(); p.Dictionary() == nil && d.Kind() == encoding.Float && int64(len(d.Float())) == p.NumValues()-p.NumNulls() {
		return d.Float(), nil
	}
	return slowValues(p, parquet.Value.Float)
}

// slowValues reads a page's non-null values one parquet.Value at a time.
func slowValues[T any](p parquet.Page, conv func(parquet.Value) T) ([]T, error) {
	r := p.Values()
	buf := make([]parquet.Value, 1024)
	out := make([]T, 0, min(p.NumValues(), maxPrealloc))
	for {
		n, err := r.ReadValues(buf)
		for _, v := range buf[:n] {
			if !v.IsNull() {
				out = append(out, conv(v))
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("%w: page reader made no progress", ErrCorrupt)
		}
	}
}
