package checkpoints

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// FormatVersion is the version of the checkpoint layout and of the row
// types below. It is written to every manifest and metadata table; a
// checkpoint of another version is refused with ErrFormatVersion. Bump it
// when a column or file changes meaning.
const FormatVersion = 1

// File names inside a checkpoint directory.
const (
	// MetaFile is the run metadata, a one-row table, at the checkpoint root.
	MetaFile = "meta.parquet"
	// QTableFile, StatesFile and ThoughtsFile hold SAMem's memory, inside
	// the method's subdirectory.
	QTableFile   = "qtable.parquet"
	StatesFile   = "states.parquet"
	ThoughtsFile = "thoughts.parquet"
)

// QRow is one entry of SAMem's Q-table (seed 002 Sec. 3.2).
type QRow struct {
	StateID        int64   `parquet:"state_id"`
	ThoughtID      int64   `parquet:"thought_id"`
	Q              float64 `parquet:"q"`
	Visits         int64   `parquet:"visits"`
	LastUpdateStep int64   `parquet:"last_update_step"`
}

// ClusterRow is one state or thought cluster: its id (the Q-table's
// state_id or thought_id), its representative text, how many texts joined
// it, and its embedding (DuckDB reads it as FLOAT[]).
type ClusterRow struct {
	ID        int64     `parquet:"id"`
	Text      string    `parquet:"text,dict"`
	Members   int64     `parquet:"members"`
	Embedding []float32 `parquet:"embedding,list"`
}

// SAMemState is SAMem's whole memory as saved in a checkpoint.
type SAMemState struct {
	// QTable is sorted by (StateID, ThoughtID) on load; SaveSAMem sorts a
	// copy if it is not.
	QTable   []QRow
	States   []ClusterRow
	Thoughts []ClusterRow
}

// Row group sizes: about 2.5 MiB of Q-table rows, and 16 MiB of
// 1024-dimensional embeddings, so a writer's buffer stays small.
const (
	qtableRowGroup  = 65536
	clusterRowGroup = 4096
)

// SaveSAMem writes st to dir (which must exist) as QTableFile, StatesFile
// and ThoughtsFile, each atomically.
func SaveSAMem(ctx context.Context, dir string, st SAMemState) error {
	q := st.QTable
	if !slices.IsSortedFunc(q, compareQ) {
		q = slices.Clone(q)
		slices.SortFunc(q, compareQ)
	}
	if err := WriteFile(ctx, filepath.Join(dir, QTableFile), q, WriteOptions{MaxRowsPerRowGroup: qtableRowGroup}); err != nil {
		return fmt.Errorf("save samem: %w", err)
	}
	if err := WriteFile(ctx, filepath.Join(dir, StatesFile), st.States, WriteOptions{MaxRowsPerRowGroup: clusterRowGroup}); err != nil {
		return fmt.Errorf("save samem: %w", err)
	}
	if err := WriteFile(ctx, filepath.Join(dir, ThoughtsFile), st.Thoughts, WriteOptions{MaxRowsPerRowGroup: clusterRowGroup}); err != nil {
		return fmt.Errorf("save samem: %w", err)
	}
	return nil
}

// LoadSAMem reads what SaveSAMem wrote to dir and checks it: cluster ids
// unique, every embedding of dimension dim (any one dimension if dim is 0),
// Q-table pairs unique and sorted, q finite, visits non-negative, every
// state_id and thought_id naming a cluster. Errors name the file and wrap
// ErrMissing, ErrNotParquet, ErrSchema or ErrCorrupt.
func LoadSAMem(ctx context.Context, dir string, dim int) (SAMemState, error) {
	var st SAMemState
	statesPath, thoughtsPath, qPath := filepath.Join(dir, StatesFile), filepath.Join(dir, ThoughtsFile), filepath.Join(dir, QTableFile)
	// The three files are read at the same time (they share nothing, so
	// with cores to spare the read waits for the longest, not the sum);
	// errors are reported in the order states, thoughts, Q-table, as when
	// they were read one at a time.
	var errs [3]error
	var wg sync.WaitGroup
	wg.Go(func() {
		st.States, errs[0] = readFileWith(ctx, statesPath, openParquet[ClusterRow], readClusterRows)
	})
	wg.Go(func() {
		st.Thoughts, errs[1] = readFileWith(ctx, thoughtsPath, openParquet[ClusterRow], readClusterRows)
	})
	wg.Go(func() {
		st.QTable, errs[2] = readFileWith(ctx, qPath, openParquet[QRow], readQRows)
	})
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return SAMemState{}, fmt.Errorf("load samem: %w", err)
		}
	}
	stateIDs, dim, err := checkClusters(statesPath, st.States, dim)
	if err != nil {
		return SAMemState{}, err
	}
	thoughtIDs, _, err := checkClusters(thoughtsPath, st.Thoughts, dim)
	if err != nil {
		return SAMemState{}, err
	}
	for i := range st.QTable {
		r := &st.QTable[i]
		bad := ""
		switch {
		case i > 0 && compareQ(st.QTable[i-1], *r) >= 0:
			bad = "pairs not unique and sorted by (state_id, thought_id)"
		case math.IsNaN(r.Q) || math.IsInf(r.Q, 0):
			bad = fmt.Sprintf("q is %v", r.Q)
		case r.Visits < 0:
			bad = fmt.Sprintf("visits is %d", r.Visits)
		case !stateIDs[r.StateID]:
			bad = fmt.Sprintf("state_id %d has no cluster in %s", r.StateID, StatesFile)
		case !thoughtIDs[r.ThoughtID]:
			bad = fmt.Sprintf("thought_id %d has no cluster in %s", r.ThoughtID, ThoughtsFile)
		}
		if bad != "" {
			return SAMemState{}, fmt.Errorf("load samem: %s: %w: row %d: %s", qPath, ErrCorrupt, i, bad)
		}
	}
	return st, nil
}

// checkClusters checks ids unique and embeddings of one dimension (dim, or
// the first row's when dim is 0) and returns the id set and the dimension.
func checkClusters(path string, rows []ClusterRow, dim int) (map[int64]bool, int, error) {
	ids := make(map[int64]bool, len(rows))
	for i := range rows {
		r := &rows[i]
		if dim == 0 {
			dim = len(r.Embedding)
		}
		bad := ""
		switch {
		case ids[r.ID]:
			bad = fmt.Sprintf("id %d appears twice", r.ID)
		case len(r.Embedding) != dim:
			bad = fmt.Sprintf("embedding of id %d has dimension %d, want %d", r.ID, len(r.Embedding), dim)
		case r.Members < 0:
			bad = fmt.Sprintf("members of id %d is %d", r.ID, r.Members)
		}
		if bad != "" {
			return nil, 0, fmt.Errorf("load samem: %s: %w: row %d: %s", path, ErrCorrupt, i, bad)
		}
		ids[r.ID] = true
	}
	return ids, dim, nil
}

func compareQ(a, b QRow) int {
	if c := cmp.Compare(a.StateID, b.StateID); c != 0 {
		return c
	}
	return cmp.Compare(a.ThoughtID, b.ThoughtID)
}

// Meta is the run metadata saved with every checkpoint, a one-row table.
type Meta struct {
	// FormatVersion is set to FormatVersion by SaveMeta and Commit.
	FormatVersion int32 `parquet:"format_version"`
	// Method is the memory method's name (agent.Method.Name).
	Method string `parquet:"method"`
	// ConfigJSON is the run's resolved configuration, as JSON; never a secret.
	ConfigJSON string `parquet:"config_json"`
	// Iteration is the number of the training iteration this checkpoint
	// ends (0-based); Commit sets it from Begin.
	Iteration int64 `parquet:"iteration"`
	// GlobalStep counts environment steps taken in training so far.
	GlobalStep int64 `parquet:"global_step"`
	// Epsilon is the exploration rate reached (seed 002 Eq. 7).
	Epsilon float64 `parquet:"epsilon"`
	// EmbedderModel and EmbedDim identify the embedder whose vectors the
	// clusters hold; see CheckCompatible.
	EmbedderModel string `parquet:"embedder_model"`
	EmbedDim      int32  `parquet:"embed_dim"`
	// Seed is the run seed.
	Seed int64 `parquet:"seed"`
	// RandState is the serialised state of the run's random source (for
	// example hex of rand.PCG.MarshalBinary); empty when not kept.
	RandState string `parquet:"rand_state"`
	// CreatedUnix is when the checkpoint was written, in seconds since the
	// Unix epoch; SaveMeta sets it to now when 0.
	CreatedUnix int64 `parquet:"created_unix"`
}

// SaveMeta writes m as a one-row table at path, atomically, with
// FormatVersion set.
func SaveMeta(ctx context.Context, path string, m Meta) error {
	m.FormatVersion = FormatVersion
	if m.CreatedUnix == 0 {
		m.CreatedUnix = time.Now().Unix()
	}
	return WriteFile(ctx, path, []Meta{m}, WriteOptions{})
}

// LoadMeta reads the metadata table at path. It fails with ErrCorrupt
// unless the table has exactly one row, and with ErrFormatVersion when the
// row's format version is not FormatVersion.
func LoadMeta(ctx context.Context, path string) (Meta, error) {
	rows, err := ReadFile[Meta](ctx, path)
	if err != nil {
		return Meta{}, fmt.Errorf("load meta: %w", err)
	}
	if len(rows) != 1 {
		return Meta{}, fmt.Errorf("load meta: %s: %w: %d rows, want 1", path, ErrCorrupt, len(rows))
	}
	if rows[0].FormatVersion != FormatVersion {
		return Meta{}, fmt.Errorf("load meta: %s: %w: version %d, this program reads %d", path, ErrFormatVersion, rows[0].FormatVersion, FormatVersion)
	}
	return rows[0], nil
}

// CheckCompatible returns ErrIncompatible when the checkpoint described by
// meta was made with an embedder other than embedderModel or a dimension
// other than dim: its cluster vectors would be meaningless to this run.
func CheckCompatible(meta Meta, embedderModel string, dim int) error {
	if meta.EmbedderModel != embedderModel || int(meta.EmbedDim) != dim {
		return fmt.Errorf("%w: checkpoint of iteration %d was made with embedder %q (dimension %d), this run uses %q (dimension %d)",
			ErrIncompatible, meta.Iteration, meta.EmbedderModel, meta.EmbedDim, embedderModel, dim)
	}
	return nil
}
