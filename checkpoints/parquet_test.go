package checkpoints

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestWriteReadRoundTrip(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 1))
	st := makeState(rng, 300, 200, 7, 16)
	dir := t.TempDir()
	p := filepath.Join(dir, "q.parquet")
	// Small row groups: the writer must split the rows.
	if err := WriteFile(ctx, p, st.QTable, WriteOptions{MaxRowsPerRowGroup: 100}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile[QRow](ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, st.QTable) {
		t.Fatalf("ReadFile = %d rows, not the %d written", len(got), len(st.QTable))
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := (len(st.QTable) + 99) / 100
	if g := len(pf.RowGroups()); g != wantGroups {
		t.Errorf("row groups = %d, want %d (MaxRowsPerRowGroup 100, %d rows)", g, wantGroups, len(st.QTable))
	}
	for _, rg := range pf.RowGroups() {
		if rg.NumRows() > 100 {
			t.Errorf("row group of %d rows, want at most 100", rg.NumRows())
		}
	}
	// No temporary file is left behind.
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries after WriteFile, want 1", len(entries))
	}
	// Zero rows round-trip too.
	if err := WriteFile(ctx, p, []QRow{}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile[QRow](ctx, p); err != nil || len(got) != 0 {
		t.Errorf("ReadFile(empty) = %d rows, %v; want 0, nil", len(got), err)
	}
}

func TestReadFileErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	rows := makeState(rand.New(rand.NewPCG(2, 2)), 50, 50, 5, 8).QTable
	if err := WriteFile(ctx, good, rows, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		path string
		want error
	}{
		{"missing", filepath.Join(dir, "nope.parquet"), ErrMissing},
		{"empty", write("empty.parquet", nil), ErrNotParquet},
		{"text", write("text.parquet", []byte("state_id,thought_id\n1,2\n")), ErrNotParquet},
		{"truncated", write("trunc.parquet", data[:len(data)/2]), ErrCorrupt},
		{"footer cut", write("cut.parquet", data[:len(data)-1]), ErrCorrupt},
		{"header only", write("hdr.parquet", []byte("PAR1")), ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFile[QRow](ctx, tt.path)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ReadFile(%s) error = %v, want %v", tt.name, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name the file %s", err, tt.path)
			}
		})
	}
	// The missing case also says so in OS terms.
	if _, err := ReadFile[QRow](ctx, filepath.Join(dir, "nope.parquet")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file error = %v, want fs.ErrNotExist too", err)
	}
}

func TestReadFileWrongSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	type other struct {
		StateID int64  `parquet:"state_id"`
		Q       string `parquet:"q"`
	}
	type fewer struct {
		StateID   int64 `parquet:"state_id"`
		ThoughtID int64 `parquet:"thought_id"`
	}
	p1 := filepath.Join(dir, "other.parquet")
	if err := WriteFile(ctx, p1, []other{{1, "x"}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	p2 := filepath.Join(dir, "fewer.parquet")
	if err := WriteFile(ctx, p2, []fewer{{1, 2}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	p3 := filepath.Join(dir, "clusters.parquet")
	if err := WriteFile(ctx, p3, []ClusterRow{{ID: 1, Text: "a", Embedding: []float32{1}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{p1, p2, p3} {
		_, err := ReadFile[QRow](ctx, p)
		if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadFile[QRow](%s) error = %v, want ErrSchema naming the file", p, err)
		}
	}
	// Reading the right type works.
	if _, err := ReadFile[ClusterRow](ctx, p3); err != nil {
		t.Errorf("ReadFile[ClusterRow](%s) = %v", p3, err)
	}
}

// TestWriteFileFailureKeepsOld injects a full disk midway through a write:
// the old file must be intact and no temporary file left.
func TestWriteFileFailureKeepsOld(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "q.parquet")
	old := makeState(rand.New(rand.NewPCG(3, 3)), 20, 20, 3, 4).QTable
	if err := WriteFile(ctx, p, old, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p)
	testHookWrite = func(written int64, n int) error {
		if written+int64(n) > 4096 {
			return syscall.ENOSPC
		}
		return nil
	}
	defer func() { testHookWrite = nil }()
	big := makeState(rand.New(rand.NewPCG(4, 4)), 2000, 500, 20, 4).QTable
	err := WriteFile(ctx, p, big, WriteOptions{MaxRowsPerRowGroup: 1000})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("WriteFile on a full disk = %v, want ENOSPC", err)
	}
	testHookWrite = nil
	after, _ := os.ReadFile(p)
	if !bytes.Equal(before, after) {
		t.Error("the old file changed after a failed write")
	}
	if got, err := ReadFile[QRow](ctx, p); err != nil || !slices.Equal(got, old) {
		t.Errorf("ReadFile after failed write = %d rows, %v; want the %d old rows", len(got), err, len(old))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries after a failed write, want 1 (temporary file removed)", len(entries))
	}
	// A cancelled context stops the write too.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := WriteFile(cctx, p, big, WriteOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteFile(cancelled) = %v, want context.Canceled", err)
	}
}

// FuzzReadFile feeds random bytes and mutated valid files to the reader:
// it must return rows or an error, never panic or hang.
func FuzzReadFile(f *testing.F) {
	ctx := context.Background()
	dir := f.TempDir()
	st := makeState(rand.New(rand.NewPCG(5, 5)), 5, 5, 2, 3)
	for i, w := range []func(p string) error{
		func(p string) error { return WriteFile(ctx, p, st.QTable, WriteOptions{MaxRowsPerRowGroup: 4}) },
		func(p string) error { return WriteFile(ctx, p, st.States, WriteOptions{}) },
		func(p string) error {
			return SaveMeta(ctx, p, Meta{Method: "samem", EmbedderModel: "hash", EmbedDim: 3})
		},
	} {
		p := filepath.Join(dir, "seed"+string(rune('a'+i)))
		if err := w(p); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		flipped := bytes.Clone(b)
		flipped[len(b)/3] ^= 0x10
		f.Add(flipped)
	}
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte("PAR1\x00\x00\x00\x00\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Each row type a checkpoint holds.
		if _, err := ReadFile[QRow](ctx, p); err != nil && !strings.Contains(err.Error(), p) {
			t.Errorf("error does not name the file: %v", err)
		}
		ReadFile[ClusterRow](ctx, p)
		LoadMeta(ctx, p)
		readFileWith(ctx, p, openParquet[QRow], readQRows)
		readFileWith(ctx, p, openParquet[ClusterRow], readClusterRows)
	})
}

// TestColumnReadersMatchGeneric checks the column-at-a-time readers of
// LoadSAMem against parquet-go's generic reader, on files with many row
// groups and pages, and on files whose numbers are dictionary-encoded (the
// slow path, as another writer might produce).
func TestColumnReadersMatchGeneric(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := makeState(rand.New(rand.NewPCG(6, 6)), 60, 40, 6, 17)
	st.States[5].Embedding = nil // an empty list must survive too
	type qDict struct {
		StateID        int64   `parquet:"state_id,dict"`
		ThoughtID      int64   `parquet:"thought_id,dict"`
		Q              float64 `parquet:"q,dict"`
		Visits         int64   `parquet:"visits,dict"`
		LastUpdateStep int64   `parquet:"last_update_step,dict"`
	}
	type cDict struct {
		ID        int64     `parquet:"id,dict"`
		Text      string    `parquet:"text"`
		Members   int64     `parquet:"members,dict"`
		Embedding []float32 `parquet:"embedding,list,dict"`
	}
	dq := make([]qDict, len(st.QTable))
	for i, r := range st.QTable {
		dq[i] = qDict(r)
	}
	dc := make([]cDict, len(st.States))
	for i, r := range st.States {
		dc[i] = cDict(r)
	}
	for _, rg := range []int64{0, 7, 50} {
		qp, cp := filepath.Join(dir, "q.parquet"), filepath.Join(dir, "c.parquet")
		must(t, WriteFile(ctx, qp, st.QTable, WriteOptions{MaxRowsPerRowGroup: rg}))
		must(t, WriteFile(ctx, cp, st.States, WriteOptions{MaxRowsPerRowGroup: rg}))
		checkReaders(t, qp, cp, st)
		must(t, WriteFile(ctx, qp, dq, WriteOptions{MaxRowsPerRowGroup: rg}))
		must(t, WriteFile(ctx, cp, dc, WriteOptions{MaxRowsPerRowGroup: rg}))
		checkReaders(t, qp, cp, st)
	}
}

func checkReaders(t *testing.T, qp, cp string, st SAMemState) {
	t.Helper()
	ctx := context.Background()
	q, err := readFileWith(ctx, qp, openParquet[QRow], readQRows)
	must(t, err)
	if !slices.Equal(q, st.QTable) {
		t.Errorf("readQRows = %d rows, not the %d written", len(q), len(st.QTable))
	}
	gq, err := ReadFile[QRow](ctx, qp)
	must(t, err)
	if !slices.Equal(gq, q) {
		t.Error("readQRows and ReadFile differ")
	}
	c, err := readFileWith(ctx, cp, openParquet[ClusterRow], readClusterRows)
	must(t, err)
	equalState(t, SAMemState{QTable: st.QTable, States: c, Thoughts: st.Thoughts}, st)
	gc, err := ReadFile[ClusterRow](ctx, cp)
	must(t, err)
	equalState(t, SAMemState{QTable: st.QTable, States: gc, Thoughts: st.Thoughts}, st)
	// Embeddings do not share capacity: appending to one leaves the next.
	if len(c) > 2 {
		next := slices.Clone(c[1].Embedding)
		_ = append(c[0].Embedding, 42)
		if !slices.Equal(c[1].Embedding, next) {
			t.Error("appending to one embedding changed the next")
		}
	}
}

// TestWriteDeterministic: the same rows give byte-identical files, so two
// identical runs write identical Q-tables.
func TestWriteDeterministic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := makeState(rand.New(rand.NewPCG(8, 8)), 50, 40, 5, 16)
	var files [][]byte
	for i := range 2 {
		d := filepath.Join(dir, string(rune('a'+i)))
		must(t, os.Mkdir(d, 0o755))
		must(t, SaveSAMem(ctx, d, st))
		for _, f := range []string{QTableFile, StatesFile, ThoughtsFile} {
			b, err := os.ReadFile(filepath.Join(d, f))
			must(t, err)
			files = append(files, b)
		}
	}
	for i := range 3 {
		if !bytes.Equal(files[i], files[i+3]) {
			t.Errorf("file %d differs between two saves of the same state", i)
		}
	}
}
