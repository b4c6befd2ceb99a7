package fidelity

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

var (
	reCode     = regexp.MustCompile("`([^`]+)`")
	reLocation = regexp.MustCompile(`^([A-Za-z0-9_./-]+)(?::([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?))?$`)
	statuses   = []string{"faithful", "documented option", "missing", "default"}
	// reTest is a test a verdict cites as its evidence: `pkg.TestName` or
	// `pkg/sub.TestName`, the package by its folder from the module root.
	reTest = regexp.MustCompile("`([a-z0-9_]+(?:/[a-z0-9_]+)*)\\.(Test[A-Za-z0-9_]*)`")
)

// declaresTest reports whether a _test.go file in dir declares func name.
func declaresTest(dir, name string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	re := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(name) + `\(t \*testing\.T\)`)
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && re.Match(b) {
			return true
		}
	}
	return false
}

// declares reports whether src declares sym: a function, a type, a
// constant, a variable, or for "T.M" a method M of T or a field M of the
// struct T.
func declares(src, sym string) bool {
	q := regexp.QuoteMeta
	if recv, name, ok := strings.Cut(sym, "."); ok {
		if regexp.MustCompile(`(?m)^func \(\w+ \*?` + q(recv) + `\) ` + q(name) + `\(`).MatchString(src) {
			return true
		}
		return regexp.MustCompile(`(?m)^type `+q(recv)+` struct`).MatchString(src) &&
			regexp.MustCompile(`(?m)^\s+`+q(name)+`\b`).MatchString(src)
	}
	return regexp.MustCompile(`(?m)^(func (\(\w+ \*?\w+\) )?` + q(sym) + `\(|type ` + q(sym) + `\b|(const|var) ` + q(sym) + `\b|\s+` + q(sym) + `\s+(\S+\s+)?=)`).MatchString(src)
}

// TestLocationsExist reads every table of docs/FIDELITY.md: each row has
// four cells and names at least one code location, the element tables a
// known status (a verdict), every code location (`path` or `path:Symbol`)
// names a file or folder that exists and, with a symbol, declares it, and
// every test a verdict cites as evidence (`pkg.TestName`) exists.
func TestLocationsExist(t *testing.T) {
	root := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "docs", "FIDELITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	locations, rows, tests := 0, 0, 0
	header := ""
	for i, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "|") {
			header = ""
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			t.Errorf("line %d: %d cells, want 4: %s", i+1, len(cells), line)
			continue
		}
		if header == "" {
			header = strings.TrimSpace(cells[0])
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		rows++
		// A missing element has no code to name; every other row does.
		missing := strings.HasPrefix(strings.TrimSpace(cells[3]), "missing")
		if !missing && !reCode.MatchString(cells[2]) {
			t.Errorf("line %d: names no code location: %s", i+1, line)
		}
		for _, m := range reTest.FindAllStringSubmatch(cells[3], -1) {
			tests++
			if !declaresTest(filepath.Join(root, filepath.FromSlash(m[1])), m[2]) {
				t.Errorf("line %d: the verdict cites %s.%s, which no test file of %s declares", i+1, m[1], m[2], m[1])
			}
		}
		if header == "element" {
			st := strings.TrimSpace(cells[3])
			ok := false
			for _, s := range statuses {
				ok = ok || strings.HasPrefix(st, s)
			}
			if !ok {
				t.Errorf("line %d: status %q is none of %v", i+1, st, statuses)
			}
			if strings.HasPrefix(st, "missing") && !strings.Contains(st, ":") {
				t.Errorf("line %d: a missing element must say why (\"missing: ...\")", i+1)
			}
		}
		for _, m := range reCode.FindAllStringSubmatch(cells[2], -1) {
			loc := reLocation.FindStringSubmatch(m[1])
			if loc == nil {
				t.Errorf("line %d: %q is not a code location (path or path:Symbol)", i+1, m[1])
				continue
			}
			locations++
			checkLocation(t, root, i+1, loc[1], loc[2])
		}
	}
	if rows < 40 || locations < 40 || tests < 8 {
		t.Errorf("read %d rows, %d code locations and %d cited tests; the page lost its tables?", rows, locations, tests)
	}
}

// TestDeclares checks the symbol matcher on what it must accept and refuse.
func TestDeclares(t *testing.T) {
	src := "type Config struct {\n\tTopK int\n}\n\nconst (\n\tDefaultTopK = 20\n)\n\nfunc (m *Method) finish() {}\nfunc New() {}\n"
	for sym, want := range map[string]bool{
		"Config": true, "Config.TopK": true, "DefaultTopK": true, "Method.finish": true, "New": true,
		"Method.start": false, "Config.Window": false, "Old": false, "Default": false,
	} {
		if got := declares(src, sym); got != want {
			t.Errorf("declares(%q) = %v, want %v", sym, got, want)
		}
	}
}
