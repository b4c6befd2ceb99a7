// Package inspect opens saved SAMem checkpoints and shows what was learned:
// the memory's sizes, the states with their best thoughts and Q-values, the
// states nearest to a query text with their thoughts, and the history of a
// state across the kept checkpoints, as text, CSV or Markdown tables.
//
// It reads what package checkpoints wrote (seed 002 Sec. 3.2: a Q-table
// over (state, thought) clusters), the training's checkpoints and the
// memory an online evaluation left (OnlineEval), and changes nothing.
package inspect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/samem/trainer/checkpoints"
)

// ErrNotFound is returned by Open and History when the path holds no
// checkpoint (neither a run, a method, a checkpoint nor a memory
// directory), or Open's holds no SAMem memory.
var ErrNotFound = errors.New("no checkpoint here")

// ErrNoTable is returned by Write for a memory table the method does not
// show.
var ErrNoTable = errors.New("no such memory table")

// ErrNoState is returned by StateHistory when no kept checkpoint has the
// state.
var ErrNoState = errors.New("no such state")

// Checkpoint is one opened SAMem checkpoint.
type Checkpoint struct {
	// Dir is the checkpoint directory (.../checkpoints/iter-NNNN).
	Dir string
	// Name is its base name, e.g. "iter-0003".
	Name   string
	Meta   checkpoints.Meta
	Memory checkpoints.SAMemState
}

// Open opens the SAMem checkpoint that path names: a run directory (with
// method, default "samem": <run>/<method>), a method directory (its latest
// checkpoint), a checkpoint directory (iter-NNNN), the memory directory
// inside one, or an online evaluation's directory (with method: the memory
// it left, <eval>/memory/<method>, itself a checkpoint directory). The checkpoint is verified against its manifest; errors name
// the damaged or missing file.
func Open(ctx context.Context, path, method string) (*Checkpoint, error) {
	dir, err := resolve(path, method)
	if err != nil {
		return nil, err
	}
	return load(ctx, dir)
}

// History opens every kept checkpoint of the method that path names
// (a run or method directory, or a checkpoint in it), oldest first.
func History(ctx context.Context, path, method string) ([]*Checkpoint, error) {
	dir, err := resolve(path, method)
	if err != nil {
		return nil, err
	}
	root := filepath.Dir(dir) // <method dir>/checkpoints
	if filepath.Base(root) != checkpoints.Folder {
		// A checkpoint directory copied out of its store: it alone.
		c, err := load(ctx, dir)
		if err != nil {
			return nil, err
		}
		return []*Checkpoint{c}, nil
	}
	store, err := checkpoints.Open(filepath.Dir(root), 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer store.Close()
	dirs, err := store.Committed()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]*Checkpoint, 0, len(dirs))
	for _, d := range dirs {
		c, err := load(ctx, d)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ResolveAny finds the checkpoint directory that path names for any
// method: a run directory (with method, default "samem"), a method
// directory (its latest checkpoint) or a checkpoint directory. It returns
// the directory, the method whose checkpoint it is, and whether it holds a
// SAMem memory (the Q-table views apply).
func ResolveAny(path, method string) (dir, name string, samem bool, err error) {
	if dir, err = resolve(path, method); err != nil {
		return "", "", false, err
	}
	meta, err := checkpoints.LoadMeta(context.Background(), filepath.Join(dir, checkpoints.MetaFile))
	if err != nil {
		return "", "", false, err
	}
	return dir, meta.Method, exists(filepath.Join(dir, meta.Method, checkpoints.StatesFile)), nil
}

// resolve finds the checkpoint directory path names.
func resolve(path, method string) (string, error) {
	if method == "" {
		method = "samem"
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case exists(filepath.Join(path, checkpoints.MetaFile)):
		return path, nil // a checkpoint directory
	case exists(filepath.Join(path, checkpoints.StatesFile)):
		return filepath.Dir(path), nil // the memory inside a checkpoint
	case exists(filepath.Join(path, checkpoints.Folder)):
		return latest(path) // a method directory
	case exists(filepath.Join(path, method, checkpoints.Folder)):
		return latest(filepath.Join(path, method)) // a run directory
	case exists(filepath.Join(path, checkpoints.OnlineFolder, method, checkpoints.MetaFile)):
		return filepath.Join(path, checkpoints.OnlineFolder, method), nil // an online evaluation's directory
	}
	return "", fmt.Errorf("%s: %w (want a run directory with %s/%s, a method directory, a checkpoint directory, or an online evaluation's directory with %s/%s/%s)", path, ErrNotFound, method, checkpoints.Folder, checkpoints.OnlineFolder, method, checkpoints.MetaFile)
}

// OnlineEval reports whether the checkpoint directory dir is the memory an
// online evaluation left (<eval>/memory/<method>, beside the evaluation's
// summary.json), and returns that evaluation's directory.
func OnlineEval(dir string) (evalDir string, ok bool) {
	dir = filepath.Clean(dir)
	if filepath.Base(filepath.Dir(dir)) != checkpoints.OnlineFolder {
		return "", false
	}
	evalDir = filepath.Dir(filepath.Dir(dir))
	return evalDir, exists(filepath.Join(evalDir, "summary.json"))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// latest is the latest committed checkpoint of a method directory.
func latest(methodDir string) (string, error) {
	p := filepath.Join(methodDir, checkpoints.Folder, checkpoints.LatestFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: %w: %w", methodDir, checkpoints.ErrNoCheckpoint, err)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", methodDir, err)
	}
	name := string(trimSpace(b))
	if name == "" || filepath.Base(name) != name || name == "." || name == ".." {
		return "", fmt.Errorf("%s: %s: %w: %q is not a checkpoint name", methodDir, p, checkpoints.ErrCorrupt, name)
	}
	return filepath.Join(methodDir, checkpoints.Folder, name), nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// load verifies a checkpoint directory and reads its metadata and memory.
func load(ctx context.Context, dir string) (*Checkpoint, error) {
	if err := checkpoints.Verify(ctx, dir); err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	meta, err := checkpoints.LoadMeta(ctx, filepath.Join(dir, checkpoints.MetaFile))
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	memDir := filepath.Join(dir, meta.Method)
	if !exists(filepath.Join(memDir, checkpoints.StatesFile)) {
		return nil, fmt.Errorf("%s: %w: checkpoint of method %q holds no SAMem memory (%s)", dir, ErrNotFound, meta.Method, checkpoints.StatesFile)
	}
	mem, err := checkpoints.LoadSAMem(ctx, memDir, int(meta.EmbedDim))
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	return &Checkpoint{Dir: dir, Name: filepath.Base(dir), Meta: meta, Memory: mem}, nil
}
