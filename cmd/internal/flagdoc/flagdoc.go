// Package flagdoc renders a command's FlagSet as the Markdown page of the
// flag reference (docs/flags/<command>.md), and checks a page against the
// FlagSet in the command's tests, so that the reference is the flags' own
// help text and cannot drift from it: a test fails when a flag or its help
// changes and the page was not regenerated with -update.
package flagdoc

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Page is what a reference page says besides the flags.
type Page struct {
	// Command is the command's name (train, eval, ...), also its folder
	// under cmd/.
	Command string
	// Usage is the text -h prints before the flags: the synopsis line and
	// what the command does.
	Usage string
	// MachineDefaults gives, for flags whose default depends on the
	// machine (the number of cores), the text the page shows instead of
	// this machine's value.
	MachineDefaults map[string]string
}

// Cores is MachineDefaults for the commands whose -workers defaults to the
// number of cores.
var Cores = map[string]string{"workers": "number of cores"}

// Markdown renders fs as the page: a title, how to regenerate it, the
// usage text, then one table row per flag in -h's order (by name).
func Markdown(fs *flag.FlagSet, p Page) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s flags\n\n", p.Command)
	fmt.Fprintf(&b, "<!-- Generated from cmd/%s's FlagSet by `make flags` (go test ./cmd/%s -run TestFlagReference -update). Edit the flags' help text, not this file. -->\n\n", p.Command, p.Command)
	if u := strings.TrimSpace(p.Usage); u != "" {
		b.WriteString("```\n" + u + "\n```\n\n")
	}
	b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		flagText := "-" + f.Name
		if name != "" {
			flagText += " " + name
		}
		def := f.DefValue
		if d, ok := p.MachineDefaults[f.Name]; ok {
			def = d
		} else if isZero(f) {
			def = ""
		} else {
			def = code(def)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", code(flagText), def, cell(usage))
	})
	return b.Bytes()
}

// isZero reports whether f's default is its type's zero value, which -h
// does not print either.
func isZero(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return true
	}
	return false
}

// code formats s as inline code in a table cell.
func code(s string) string {
	if s == "" {
		return "`\"\"`"
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// cell makes help text safe in a table cell: pipes, angle brackets (read
// as HTML), asterisks (read as emphasis) and line breaks.
func cell(s string) string {
	r := strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "*", `\*`, "\n", " ")
	return r.Replace(s)
}

// Check compares the page rendered from fs with the file at path (from the
// test's package folder, e.g. ../../docs/flags/train.md); with update set
// it writes the file instead.
func Check(t testing.TB, fs *flag.FlagSet, p Page, path string, update bool) {
	t.Helper()
	got := Markdown(fs, p)
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the flag reference (make flags writes it): %v", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from cmd/%s's flags: a flag or its help changed; regenerate the reference with make flags (go test ./cmd/%s -run TestFlagReference -update)\n%s", path, p.Command, p.Command, firstDiff(want, got))
	}
}

// firstDiff shows the first line that differs.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  file:  %s\n  flags: %s", i+1, wl, gl)
		}
	}
	return ""
}
