package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/samem/trainer/checkpoints"
)

// LatestCheckpoint finds the latest committed checkpoint of a method's
// directory (the one dir/checkpoints/LATEST names: replacing that file is
// the commit point), verifies it against its manifest and reads its
// metadata, without opening (and locking) the store: a test can look at a
// run and then let the run resume. With no LATEST file the error is
// fs.ErrNotExist.
func LatestCheckpoint(ctx context.Context, dir string) (string, checkpoints.Meta, error) {
	root := filepath.Join(dir, "checkpoints")
	b, err := os.ReadFile(filepath.Join(root, checkpoints.LatestFile))
	if err != nil {
		return "", checkpoints.Meta{}, err
	}
	name := strings.TrimSpace(string(b))
	if !strings.HasPrefix(name, "iter-") || strings.ContainsAny(name, `/\`) {
		return "", checkpoints.Meta{}, fmt.Errorf("%s names %q", filepath.Join(root, checkpoints.LatestFile), name)
	}
	cdir := filepath.Join(root, name)
	if err := checkpoints.Verify(ctx, cdir); err != nil {
		return cdir, checkpoints.Meta{}, err
	}
	meta, err := checkpoints.LoadMeta(ctx, filepath.Join(cdir, checkpoints.MetaFile))
	return cdir, meta, err
}

// Committed lists the committed checkpoint directory names under dir.
func Committed(dir string) []string {
	ents, _ := os.ReadDir(filepath.Join(dir, "checkpoints"))
	var out []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "iter-") {
			out = append(out, e.Name())
		}
	}
	return out
}
