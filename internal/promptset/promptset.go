// Package promptset knows every prompt template compiled into the program:
// each role package registers its embedded templates (and the JSON schemas
// of their answers) at init, and provenance records their SHA-256, so that
// runs made with different prompts are told apart.
package promptset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sync"
)

var (
	mu     sync.Mutex
	hashes = map[string]string{}
)

// Register records the SHA-256 of every file of fsys that matches one of
// patterns (the prompt templates, and the JSON schemas sent with them for
// structured outputs), as "pkg/<file name>". It panics on a pattern that
// matches nothing or a file it cannot read: both are programming errors of
// an embedded set.
func Register(pkg string, fsys fs.FS, patterns ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, pattern := range patterns {
		names, err := fs.Glob(fsys, pattern)
		if err != nil || len(names) == 0 {
			panic(fmt.Sprintf("promptset: %s: pattern %q matches no template (%v)", pkg, pattern, err))
		}
		for _, n := range names {
			b, err := fs.ReadFile(fsys, n)
			if err != nil {
				panic(fmt.Sprintf("promptset: %s: %v", pkg, err))
			}
			sum := sha256.Sum256(b)
			hashes[pkg+"/"+path.Base(n)] = hex.EncodeToString(sum[:])
		}
	}
}

// Hashes returns a copy of the registered templates' SHA-256 by name
// ("thought/household.tmpl").
func Hashes() map[string]string {
	mu.Lock()
	defer mu.Unlock()
	return maps.Clone(hashes)
}

// Names lists the registered templates, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	return slices.Sorted(maps.Keys(hashes))
}
