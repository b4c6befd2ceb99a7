package checkpoints

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Derived files: SAMem's cluster indexes, which a load can
// always rebuild from StatesFile and ThoughtsFile. They are written in the
// format of cluster.Image (its own magic, version and CRC-32C) and listed
// with their SHA-256 in the manifest like every file, but a damaged, foreign
// or missing derived file does not make a checkpoint unusable: Verify
// leaves them to ReadDerived, and the loader rebuilds the index with a note.
// They did not change FormatVersion: a checkpoint without them (written
// before them) is still a valid checkpoint of this format, and each file
// carries its own version, which the loader checks.
const (
	StatesIndexFile   = "states.index"
	ThoughtsIndexFile = "thoughts.index"
	// derivedSuffix ends the name of every derived file.
	derivedSuffix = ".index"
)

// IsDerived reports whether a checkpoint file (a path inside a checkpoint,
// either separator) is a derived file: one that a load rebuilds from the
// others when it is damaged or missing.
func IsDerived(path string) bool { return strings.HasSuffix(path, derivedSuffix) }

// WriteDerived writes a derived file atomically (a temporary file, fsync,
// rename), with fill writing its content.
func WriteDerived(ctx context.Context, path string, fill func(w io.Writer) error) error {
	if !IsDerived(path) {
		return fmt.Errorf("write %s: %w: a derived file's name ends in %q", path, ErrBadName, derivedSuffix)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := writeAtomic(path, fill); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadDerived reads a derived file whole. When the file lies in a committed
// checkpoint (a ManifestFile in its directory or up to two levels above),
// its size and SHA-256 must be what the manifest lists; a directory without
// a manifest (Save called outside a Store) is read unchecked, and the
// file's own checks (cluster.ReadImage: CRC-32C) remain. Errors name the
// file: ErrMissing when it does not exist (a checkpoint written before
// derived files existed), ErrCorrupt when it differs from the manifest or
// the manifest does not list it.
func ReadDerived(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	for range 3 {
		mp := filepath.Join(dir, ManifestFile)
		mb, err := readLimited(mp, maxManifest)
		if errors.Is(err, fs.ErrNotExist) {
			dir = filepath.Dir(dir)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return b, checkListed(mp, mb, dir, path, b)
	}
	return b, nil
}

// checkListed checks b, the content of path, against the manifest mb read
// from mp in checkpoint directory dir.
func checkListed(mp string, mb []byte, dir, path string, b []byte) error {
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(mb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("read %s: %s: %w: %w", path, mp, ErrCorrupt, err)
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	rel = filepath.ToSlash(rel)
	for _, f := range m.Files {
		if f.Path != rel {
			continue
		}
		sum := sha256.Sum256(b)
		switch {
		case int64(len(b)) != f.Size:
			return fmt.Errorf("read %s: %w: %d bytes, %s says %d", path, ErrCorrupt, len(b), ManifestFile, f.Size)
		case hex.EncodeToString(sum[:]) != f.SHA256:
			return fmt.Errorf("read %s: %w: SHA-256 %x, %s says %s", path, ErrCorrupt, sum, ManifestFile, f.SHA256)
		}
		return nil
	}
	return fmt.Errorf("read %s: %w: not listed in %s", path, ErrCorrupt, mp)
}
