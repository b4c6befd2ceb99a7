package checkpoints

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Sentinel errors. Every error of this package names the file it is about
// and wraps one of these, so callers branch with errors.Is.
var (
	// ErrMissing is returned when a file or checkpoint directory that must
	// exist does not (it also wraps fs.ErrNotExist where the OS said so).
	ErrMissing = errors.New("missing")
	// ErrNotParquet is returned when a file does not start with the Parquet
	// magic bytes.
	ErrNotParquet = errors.New("not a parquet file")
	// ErrCorrupt is returned when a file is truncated or damaged: no Parquet
	// footer, undecodable pages, a size or SHA-256 that differs from the
	// manifest, rows that break the table's invariants, an unexpected file.
	ErrCorrupt = errors.New("damaged or truncated")
	// ErrSchema is returned when a Parquet file does not have exactly the
	// columns (names, types, nesting) of the row type it is read into.
	ErrSchema = errors.New("wrong schema")
	// ErrFormatVersion is returned when a checkpoint was written with
	// another FormatVersion.
	ErrFormatVersion = errors.New("unsupported checkpoint format version")
	// ErrIncompatible is returned by CheckCompatible when a checkpoint was
	// made with another embedder model or dimension.
	ErrIncompatible = errors.New("incompatible checkpoint")
	// ErrNoCheckpoint is returned by Store.Latest when the run directory has
	// no committed checkpoint yet.
	ErrNoCheckpoint = errors.New("no checkpoint")
	// ErrBadName is returned when a method name or a path inside a
	// checkpoint could escape its directory or is reserved.
	ErrBadName = errors.New("bad name")
	// ErrLocked is returned by Store.Begin when another process is writing
	// checkpoints to the same run directory.
	ErrLocked = errors.New("run directory in use by another process")
	// ErrExists is returned by Store.Begin when a committed checkpoint of the
	// same or a later iteration exists: it is never overwritten.
	ErrExists = errors.New("checkpoint exists")
)

// DefaultMaxRowsPerRowGroup is the row group size WriteFile uses when
// WriteOptions leaves it 0. parquet-go buffers one whole row group in memory
// until it is flushed (../shared/DEPENDENCIES.md), so this bounds the
// writer's memory: 65,536 Q-table rows are about 2.5 MiB.
const DefaultMaxRowsPerRowGroup = 65536

// WriteOptions tune WriteFile.
type WriteOptions struct {
	// MaxRowsPerRowGroup bounds the rows buffered before a row group is
	// written; 0 means DefaultMaxRowsPerRowGroup. Use a smaller value for
	// wide rows (a 1024-dimensional embedding is 4 KiB a row).
	MaxRowsPerRowGroup int64
}

// WriteFile writes rows to a Parquet file at path atomically: to a
// temporary file in the same directory, fsynced, renamed over path, and the
// directory fsynced, so that path holds either its old content or all of
// the new one, even after a crash. Columns are compressed with zstd; text
// columns whose struct tag says `dict` are dictionary-encoded. ctx is
// checked between row groups.
func WriteFile[T any](ctx context.Context, path string, rows []T, opts WriteOptions) error {
	n := opts.MaxRowsPerRowGroup
	if n <= 0 {
		n = DefaultMaxRowsPerRowGroup
	}
	err := writeAtomic(path, func(w io.Writer) error {
		pw := parquet.NewGenericWriter[T](w,
			parquet.Compression(zstdCodec),
			parquet.MaxRowsPerRowGroup(n),
			parquet.CreatedBy("github.com/samem/trainer/checkpoints", "", ""),
		)
		for i := 0; i < len(rows); i += int(n) {
			if err := ctx.Err(); err != nil {
				return err
			}
			j := min(i+int(n), len(rows))
			if _, err := pw.Write(rows[i:j]); err != nil {
				return err
			}
			if err := pw.Flush(); err != nil {
				return err
			}
		}
		return pw.Close()
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// zstdCodec compresses every column. SpeedFastest because embeddings
// (random-looking float32) gain little from harder work: on 10,000 +
// 10,000 clusters of dimension 1024 and a 1,000,000-row Q-table, the
// default level spent about a third of the save's CPU in zstd for a few
// percent of size.
var zstdCodec = &zstd.Codec{Level: zstd.SpeedFastest}

// testHookWrite, when set by a test, is called before every write to a
// temporary file with the bytes written so far and the next chunk's size;
// an error it returns fails the write (a full disk, an I/O error).
var testHookWrite func(written int64, n int) error

type hookWriter struct {
	w       io.Writer
	written int64
}

func (h *hookWriter) Write(p []byte) (int, error) {
	if testHookWrite != nil {
		if err := testHookWrite(h.written, len(p)); err != nil {
			return 0, err
		}
	}
	n, err := h.w.Write(p)
	h.written += int64(n)
	return n, err
}

// writeAtomic creates path with the bytes fill writes, through a temporary
// file in the same directory (so the rename stays on one file system), and
// removes the temporary file on any failure.
func writeAtomic(path string, fill func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(&hookWriter{w: f}, 1<<20)
	if err := fill(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory so that a rename or create inside it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// ReadFile reads all rows of the Parquet file at path into T, whose
// parquet-tagged fields must match the file's columns exactly. The error
// names the file and wraps ErrMissing, ErrNotParquet, ErrCorrupt or
// ErrSchema. It never panics on bad input: a panic inside the Parquet
// library on a damaged file is recovered and reported as ErrCorrupt.
func ReadFile[T any](ctx context.Context, path string) ([]T, error) {
	return readFileWith(ctx, path, openParquet[T], readRows[T])
}

// readFileWith opens path, checks it with open and reads its rows with
// read, wrapping every error with the path and recovering parquet-go's
// panics on damaged input.
func readFileWith[T any](ctx context.Context, path string,
	open func(io.ReaderAt, int64) (*parquet.File, error),
	read func(context.Context, *parquet.File) ([]T, error)) (rows []T, err error) {
	defer func() {
		if r := recover(); r != nil {
			rows, err = nil, fmt.Errorf("read %s: %w: decoder failed: %v", path, ErrCorrupt, r)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w: %w", path, ErrMissing, err)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	pf, err := open(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	rows, err = read(ctx, pf)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return rows, nil
}

// maxPrealloc bounds the rows allocated up front from the footer's row
// count, which a damaged file may overstate.
const maxPrealloc = 1 << 20

// openParquet opens a Parquet file whose columns must be T's, checking
// what parquet-go does not before trusting the footer.
func openParquet[T any](r io.ReaderAt, size int64) (*parquet.File, error) {
	var head, tail [4]byte
	if size < 12 {
		if size >= 4 {
			if _, err := r.ReadAt(head[:], 0); err == nil && string(head[:]) == "PAR1" {
				return nil, fmt.Errorf("%w: only %d bytes", ErrCorrupt, size)
			}
		}
		return nil, fmt.Errorf("%w: only %d bytes", ErrNotParquet, size)
	}
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	if string(head[:]) != "PAR1" {
		return nil, fmt.Errorf("%w: starts with %q, not \"PAR1\"", ErrNotParquet, head[:])
	}
	if _, err := r.ReadAt(tail[:], size-4); err != nil {
		return nil, err
	}
	if string(tail[:]) != "PAR1" {
		return nil, fmt.Errorf("%w: no parquet footer (truncated?)", ErrCorrupt)
	}
	// The footer length precedes the final magic. parquet-go allocates it
	// before checking it against the file size, so a damaged length could
	// cost gigabytes: check it first.
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if footer := int64(binary.LittleEndian.Uint32(tail[:])); footer > size-12 {
		return nil, fmt.Errorf("%w: footer of %d bytes in a file of %d", ErrCorrupt, footer, size)
	}
	pf, err := parquet.OpenFile(r, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err := sameColumns(parquet.SchemaOf(new(T)), pf.Schema()); err != nil {
		return nil, err
	}
	total := pf.NumRows()
	if total < 0 {
		return nil, fmt.Errorf("%w: negative row count %d", ErrCorrupt, total)
	}
	var sum int64
	for _, rg := range pf.RowGroups() {
		if rg.NumRows() < 0 {
			return nil, fmt.Errorf("%w: negative row count in a row group", ErrCorrupt)
		}
		sum += rg.NumRows()
	}
	if sum != total {
		return nil, fmt.Errorf("%w: footer says %d rows, row groups hold %d", ErrCorrupt, total, sum)
	}
	return pf, nil
}

// readRows reads all rows of pf with parquet-go's generic (row by row)
// reader.
func readRows[T any](ctx context.Context, pf *parquet.File) ([]T, error) {
	total := pf.NumRows()
	pr := parquet.NewGenericReader[T](pf)
	defer pr.Close()
	rows := make([]T, 0, min(total, maxPrealloc))
	for int64(len(rows)) < total {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(rows) == cap(rows) {
			rows = slices.Grow(rows, int(min(total-int64(len(rows)), maxPrealloc)))
		}
		want := min(cap(rows), len(rows)+int(total-int64(len(rows))))
		k, err := pr.Read(rows[len(rows):want])
		rows = rows[:len(rows)+k]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if k == 0 {
			return nil, fmt.Errorf("%w: reader made no progress at row %d", ErrCorrupt, len(rows))
		}
	}
	if int64(len(rows)) != total {
		return nil, fmt.Errorf("%w: read %d rows, footer says %d", ErrCorrupt, len(rows), total)
	}
	return rows, nil
}

// sameColumns reports whether got has exactly want's leaf columns, with the
// same types and nesting levels.
func sameColumns(want, got *parquet.Schema) error {
	var problems []string
	for _, path := range want.Columns() {
		w, _ := want.Lookup(path...)
		g, ok := got.Lookup(path...)
		name := strings.Join(path, ".")
		switch {
		case !ok:
			problems = append(problems, "no column "+name)
		case g.Node.Type().Kind() != w.Node.Type().Kind() ||
			g.MaxRepetitionLevel != w.MaxRepetitionLevel ||
			g.MaxDefinitionLevel != w.MaxDefinitionLevel:
			problems = append(problems, fmt.Sprintf("column %s is %v (repetition %d, definition %d), want %v (%d, %d)",
				name, g.Node.Type(), g.MaxRepetitionLevel, g.MaxDefinitionLevel, w.Node.Type(), w.MaxRepetitionLevel, w.MaxDefinitionLevel))
		}
	}
	for _, path := range got.Columns() {
		if _, ok := want.Lookup(path...); !ok {
			problems = append(problems, "unexpected column "+strings.Join(path, "."))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrSchema, strings.Join(problems, "; "))
	}
	return nil
}
