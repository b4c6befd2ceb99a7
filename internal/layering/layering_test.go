package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/samem/trainer/"

// shared are the packages every method core may import.
var shared = []string{
	"agent", "envbridge", "llm", "checkpoints", "cluster", "qlearn", "pddl",
	"internal/reply", "internal/fold", "internal/promptset", "actions", "ariadne",
}

// cores are the method cores and the packages each may import besides
// shared: SAMem wires its three role packages; the baselines without
// memory are SAMem's summariser and thinker without it (NoMemory, the
// offline summary baseline).
var cores = map[string][]string{
	"samem":     {"summarize", "thought", "forget"},
	"baseline":  {"summarize", "thought"},
	"clin":      nil,
	"arigraph":  nil,
	"memstream": nil,
	"kgplan":    nil,
	// AutoGuide's actor is the ReAct asker of package thought.
	"autoguide": {"thought"},
	// CDMem's actor likewise.
	"cdmem": {"thought"},
	"expel": {"thought"},
	"awm":   {"thought"},
	// MemRL acts with the thinker's asker (Thought/Action replies).
	"memrl":     {"thought"},
	"summarize": nil,
	"thought":   nil,
	"forget":    nil,
}

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

// imports maps every package of the module (by its path inside the module)
// to the module packages its non-test files import.
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			if dep, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[pkg], dep) {
				out[pkg] = append(out[pkg], dep)
			}
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMethodCoreImports checks, for every method core, each module package
// it imports directly or through others: it must be shared, one of the
// core's own extras, or a package inside the core's own directory that is
// not its offline package.
func TestMethodCoreImports(t *testing.T) {
	graph := imports(t, moduleRoot(t))
	for core, extra := range cores {
		if _, ok := graph[core]; !ok {
			t.Errorf("method core %s: no such package", core)
			continue
		}
		allowed := func(p string) bool {
			return slices.Contains(shared, p) || slices.Contains(extra, p)
		}
		// Walk the imports, remembering how each package was reached.
		via := map[string]string{core: ""}
		queue := []string{core}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, dep := range graph[p] {
				if _, seen := via[dep]; seen {
					continue
				}
				via[dep] = p
				if !allowed(dep) {
					t.Errorf("method core %s imports %s (%s); a core may import %s and %s", core, dep, chain(via, dep), strings.Join(shared, ", "), orNone(extra))
					continue
				}
				queue = append(queue, dep)
			}
		}
	}
}

// TestRuleIsLive keeps the check above from passing vacuously: the
// household parser and the offline packages exist, and a package offline
// does import the household parser.
func TestRuleIsLive(t *testing.T) {
	graph := imports(t, moduleRoot(t))
	for _, p := range []string{"envbridge/household/hhtext", "belief", "clin/offline", "arigraph/offline", "memstream/offline", "kgplan/offline", "baseline/offline"} {
		if _, ok := graph[p]; !ok {
			t.Errorf("package %s is gone: update the rule of package layering", p)
		}
	}
	if !slices.Contains(graph["clin/offline"], "envbridge/household/hhtext") {
		t.Error("clin/offline no longer imports the household parser: the rule's premise changed")
	}
}

func chain(via map[string]string, p string) string {
	var path []string
	for ; p != ""; p = via[p] {
		path = append(path, p)
	}
	slices.Reverse(path)
	return strings.Join(path, " -> ")
}

func orNone(extra []string) string {
	if len(extra) == 0 {
		return "nothing else"
	}
	return strings.Join(extra, ", ")
}
