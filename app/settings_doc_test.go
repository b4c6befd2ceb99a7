package app

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateDoc = flag.Bool("update", false, "rewrite the table of settings in docs/ARCHITECTURE.md")

const (
	docPath     = "../docs/ARCHITECTURE.md"
	docTableBeg = "<!-- settings table: generated from app.Settings by go test ./app -run TestArchitectureSettings -update -->"
	docTableEnd = "<!-- end of the settings table -->"
)

// settingsMarkdown renders the table of settings for docs/ARCHITECTURE.md:
// each flag, the commands that bind it, what it changes and its owner.
func settingsMarkdown() string {
	var b strings.Builder
	b.WriteString("| flag | commands | changes | owner: field of `app.Config` (declared in) |\n|---|---|---|---|\n")
	for _, s := range Settings() {
		var cmds []string
		for _, c := range []struct {
			c    Command
			name string
		}{{CmdTrain, "train"}, {CmdEval, "eval"}, {CmdSweep, "sweep"}, {CmdPlay, "play"}} {
			if s.Cmds&c.c != 0 {
				cmds = append(cmds, c.name)
			}
		}
		effect := map[Effect]string{ChangesResult: "result", ExecutionOnly: "execution", Selects: "selection"}[s.Effect]
		if s.Effect == ChangesResult && s.Method != "" {
			effect += " (" + s.Method + ")"
		}
		flagName := "`-" + s.Flag + "`"
		if s.Key != "" {
			flagName += " (file: `" + s.Key + "`)"
		}
		field, decl, _ := strings.Cut(s.Owner(), " (")
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` (`%s`) |\n", flagName, strings.Join(cmds, ", "), effect, field, strings.TrimSuffix(decl, ")"))
	}
	return b.String()
}

// TestArchitectureSettings: docs/ARCHITECTURE.md lists every setting with
// its owner as the table of settings has them (-update rewrites it).
func TestArchitectureSettings(t *testing.T) {
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, docTableBeg), strings.Index(doc, docTableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no settings table between %q and %q", docPath, docTableBeg, docTableEnd)
	}
	want := settingsMarkdown()
	got := doc[i+len(docTableBeg)+1 : j]
	if got == want {
		return
	}
	if *updateDoc {
		doc = doc[:i+len(docTableBeg)+1] + want + doc[j:]
		if err := os.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the settings table of %s is out of date; go test ./app -run TestArchitectureSettings -update rewrites it", docPath)
}
