package flagdoc

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sample() *flag.FlagSet {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.String("run", "runs/default", "run `directory`: results go to <run>/eval")
	fs.Int("workers", 2, "episodes in parallel")
	fs.Bool("json", false, "print JSON | one object per line")
	fs.Duration("timeout", 2*time.Minute, "deadline of one request (text-embedding-3-*)")
	fs.String("cache", "", "response cache `file`")
	return fs
}

func TestMarkdown(t *testing.T) {
	got := string(Markdown(sample(), Page{Command: "demo", Usage: "usage: demo [flags]\n\nDoes things.\n", MachineDefaults: map[string]string{"workers": "number of cores"}}))
	want := "# demo flags\n\n" +
		"<!-- Generated from cmd/demo's FlagSet by `make flags` (go test ./cmd/demo -run TestFlagReference -update). Edit the flags' help text, not this file. -->\n\n" +
		"```\nusage: demo [flags]\n\nDoes things.\n```\n\n" +
		"| flag | default | meaning |\n|---|---|---|\n" +
		"| `-cache file` |  | response cache file |\n" +
		"| `-json` |  | print JSON \\| one object per line |\n" +
		"| `-run directory` | `runs/default` | run directory: results go to &lt;run&gt;/eval |\n" +
		"| `-timeout duration` | `2m0s` | deadline of one request (text-embedding-3-\\*) |\n" +
		"| `-workers int` | number of cores | episodes in parallel |\n"
	if got != want {
		t.Errorf("Markdown =\n%s\nwant\n%s", got, want)
	}
}

// recorder is a testing.TB that keeps its failures instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func TestCheckFailsWhenHelpChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flags", "demo.md")
	p := Page{Command: "demo"}
	r := &recorder{TB: t}
	Check(r, sample(), p, path, false)
	if len(r.failed) != 1 || !strings.Contains(r.failed[0], "make flags") {
		t.Fatalf("a missing page: failures %q, want one naming make flags", r.failed)
	}
	Check(t, sample(), p, path, true)
	Check(t, sample(), p, path, false)

	changed := sample()
	changed.Lookup("workers").Usage = "episodes played in parallel"
	r = &recorder{TB: t}
	Check(r, changed, p, path, false)
	if len(r.failed) != 1 || !strings.Contains(r.failed[0], "episodes played in parallel") || !strings.Contains(r.failed[0], "TestFlagReference -update") {
		t.Fatalf("changed help: failures %q, want one showing the new line and how to regenerate", r.failed)
	}
	added := sample()
	added.Bool("new", false, "a new flag")
	r = &recorder{TB: t}
	Check(r, added, p, path, false)
	if len(r.failed) != 1 {
		t.Fatalf("added flag: failures %q, want one", r.failed)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
