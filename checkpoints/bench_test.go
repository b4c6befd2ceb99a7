package checkpoints

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// benchSizes are the memory sizes benchmarked: the target is the
// last (1,000,000 Q entries, 10,000 state and 10,000 thought clusters of
// dimension 1024: save <= 2 s, load <= 1.5 s, peak memory < 1 GiB).
var benchSizes = []struct{ entries, clusters, dim int }{
	{100_000, 1_000, 1024},
	{1_000_000, 10_000, 1024},
}

func benchState(entries, clusters, dim int) SAMemState {
	return makeState(rand.New(rand.NewPCG(1, 2)), clusters, clusters, entries/clusters, dim)
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// BenchmarkCommit measures a whole checkpoint save as the trainer does it:
// Begin, SaveSAMem, Commit (metadata, fsync, SHA-256 manifest, renames).
func BenchmarkCommit(b *testing.B) {
	ctx := context.Background()
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d/clusters=%d/dim=%d", sz.entries, sz.clusters, sz.dim), func(b *testing.B) {
			st := benchState(sz.entries, sz.clusters, sz.dim)
			s, err := Open(b.TempDir(), 1)
			must(b, err)
			it := 0
			var dir string
			for b.Loop() {
				p, err := s.Begin(it)
				must(b, err)
				md, err := p.MethodDir("samem")
				must(b, err)
				must(b, SaveSAMem(ctx, md, st))
				dir, err = p.Commit(ctx, Meta{Method: "samem", EmbedderModel: "m", EmbedDim: int32(sz.dim)})
				must(b, err)
				it++
			}
			b.ReportMetric(float64(dirSize(b, dir))/(1<<20), "MiB")
		})
	}
}

// BenchmarkResume measures a whole checkpoint load as a resuming trainer
// does it: Latest (manifest verification with SHA-256, metadata) and
// LoadSAMem (read and check all rows).
func BenchmarkResume(b *testing.B) {
	ctx := context.Background()
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d/clusters=%d/dim=%d", sz.entries, sz.clusters, sz.dim), func(b *testing.B) {
			s, err := Open(b.TempDir(), 1)
			must(b, err)
			{
				st := benchState(sz.entries, sz.clusters, sz.dim)
				p, err := s.Begin(0)
				must(b, err)
				md, err := p.MethodDir("samem")
				must(b, err)
				must(b, SaveSAMem(ctx, md, st))
				_, err = p.Commit(ctx, Meta{Method: "samem", EmbedderModel: "m", EmbedDim: int32(sz.dim)})
				must(b, err)
			}
			for b.Loop() {
				dir, _, err := s.Latest(ctx)
				must(b, err)
				st, err := LoadSAMem(ctx, filepath.Join(dir, "samem"), sz.dim)
				must(b, err)
				if len(st.QTable) == 0 {
					b.Fatal("empty Q-table")
				}
			}
		})
	}
}

// BenchmarkLoadGenericBaseline is the same-run baseline for
// BenchmarkResume: LoadSAMem's files read with parquet-go's generic row
// reader (ReadFile), which the column readers of columns.go replace.
func BenchmarkLoadGenericBaseline(b *testing.B) {
	ctx := context.Background()
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d/clusters=%d/dim=%d", sz.entries, sz.clusters, sz.dim), func(b *testing.B) {
			dir := b.TempDir()
			must(b, SaveSAMem(ctx, dir, benchState(sz.entries, sz.clusters, sz.dim)))
			for b.Loop() {
				_, err := ReadFile[QRow](ctx, filepath.Join(dir, QTableFile))
				must(b, err)
				for _, f := range []string{StatesFile, ThoughtsFile} {
					_, err := ReadFile[ClusterRow](ctx, filepath.Join(dir, f))
					must(b, err)
				}
			}
		})
	}
}
