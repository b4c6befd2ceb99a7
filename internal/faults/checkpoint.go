package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/samem/trainer/checkpoints"
)

// LatestCheckpoint finds the newest committed checkpoint under a method's
// directory (dir/checkpoints/iter-NNNN), verifies it against its manifest
// and reads its metadata, without opening (and locking) the store: a test
// can look at a run and then let the run resume.
func LatestCheckpoint(ctx context.Context, dir string) (string, checkpoints.Meta, error) {
	root := filepath.Join(dir, "checkpoints")
	ents, err := os.ReadDir(root)
	if err != nil {
		return "", checkpoints.Meta{}, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "iter-") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", checkpoints.Meta{}, fmt.Errorf("%s: no checkpoint", root)
	}
	sort.Strings(names)
	cdir := filepath.Join(root, names[len(names)-1])
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
