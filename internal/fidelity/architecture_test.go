package fidelity

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// reFile is a code location of docs/ARCHITECTURE.md: a path from the module
// root with a folder in it and a file extension, or any such path with a
// symbol (`samem/episode.go:episode.Act`). Package names (`samem`), Go
// expressions (`samem.Config`) and paths relative to something else are
// prose, not locations.
var reFile = regexp.MustCompile(`^[A-Za-z0-9_-]+/[A-Za-z0-9_./-]*\.[a-z0-9]+$`)

// TestArchitectureLocations: every file and `path:Symbol` that
// docs/ARCHITECTURE.md names exists (the symbol declared in the file), and
// every test it cites (`pkg.TestName`) exists, so its paper-to-code table
// and package map lead to code that is there.
func TestArchitectureLocations(t *testing.T) {
	root := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, symbols, tests := 0, 0, 0
	for i, line := range strings.Split(string(b), "\n") {
		for _, m := range reTest.FindAllStringSubmatch(line, -1) {
			tests++
			if !declaresTest(filepath.Join(root, filepath.FromSlash(m[1])), m[2]) {
				t.Errorf("line %d: cites %s.%s, which no test file of %s declares", i+1, m[1], m[2], m[1])
			}
		}
		for _, m := range reCode.FindAllStringSubmatch(line, -1) {
			loc := reLocation.FindStringSubmatch(m[1])
			if loc == nil || strings.HasPrefix(loc[1], "../") || !strings.Contains(loc[1], "/") {
				continue
			}
			if loc[2] == "" && !reFile.MatchString(loc[1]) {
				continue
			}
			files++
			if checkLocation(t, root, i+1, loc[1], loc[2]) {
				symbols++
			}
		}
	}
	// The paper-to-code tables alone name more than 40 symbols.
	if files < 50 || symbols < 40 || tests < 5 {
		t.Errorf("read %d file locations, %d symbols and %d cited tests; the page lost its paper-to-code tables?", files, symbols, tests)
	}
}

// checkLocation fails t unless file (a path from root) exists and, when
// symbol is not "", is a Go file that declares it; line names the page's
// line. It reports whether a symbol was looked for.
func checkLocation(t *testing.T, root string, line int, file, symbol string) bool {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(file))
	st, err := os.Stat(path)
	if err != nil {
		t.Errorf("line %d: %s: %v", line, file, err)
		return false
	}
	if symbol == "" {
		return false
	}
	if st.IsDir() {
		t.Errorf("line %d: %s is a folder, a symbol needs a file", line, file)
		return true
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !declares(string(src), symbol) {
		t.Errorf("line %d: %s does not declare %s", line, file, symbol)
	}
	return true
}
