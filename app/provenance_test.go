package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/samem/trainer/internal/promptset"
)

// Train records provenance.json; an evaluation made with another prompt
// template than the training (here: the training's record says its
// thought/household.tmpl had another SHA-256, as a build with an edited
// template writes) warns, naming the template, in its output, its record
// and the report.
func TestEvalWarnsAboutAnotherPrompt(t *testing.T) {
	ctx := context.Background()
	cfg := smallConfig(t, "samem")
	cfg.Iterations, cfg.PerType = 1, 1
	if _, err := Train(ctx, cfg, quiet()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfg.Run, ProvenanceFile)
	p, err := ReadProvenance(path)
	if err != nil {
		t.Fatal(err)
	}
	const tmpl = "thought/household.tmpl"
	if p.Command != "train" || p.Prompts[tmpl] == "" || p.Prompts[tmpl] != promptset.Hashes()[tmpl] || p.Environment.Tasks == "" ||
		p.Settings.Seed != cfg.Seed || !strings.Contains(p.Environment.Version, "ALFWorld 0.3 grammar") {
		t.Fatalf("training record: command %q, prompts %d, tasks %q, seed %d, environment %q", p.Command, len(p.Prompts), p.Environment.Tasks, p.Settings.Seed, p.Environment.Version)
	}
	ev := cfg
	ev.Methods, ev.Tasks = []string{"samem"}, 4
	var log bytes.Buffer
	if _, err := Eval(ctx, ev, Streams{Out: &log, Err: &log}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "warning: this evaluation differs") {
		t.Fatalf("the same build warned:\n%s", log.String())
	}
	p.Prompts[tmpl] = strings.Repeat("0", 64)
	b, _ := json.Marshal(p)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if _, err := Eval(ctx, ev, Streams{Out: &log, Err: &log}); err != nil {
		t.Fatal(err)
	}
	want := "prompt template " + tmpl + " (SHA-256): 000000000000 → " + promptset.Hashes()[tmpl][:12]
	if !strings.Contains(log.String(), want) {
		t.Errorf("eval did not warn %q:\n%s", want, log.String())
	}
	dir, _, _ := EvalDir(ev)
	ep, err := ReadProvenance(filepath.Join(dir, ProvenanceFile))
	if err != nil || len(ep.Warnings) != 1 || !strings.Contains(ep.Warnings[0], want) {
		t.Errorf("the evaluation's record: warnings %q (%v)", ep.Warnings, err)
	}
	md, _ := os.ReadFile(filepath.Join(ReportPath(cfg.Run, filepath.Base(dir)), "report.md"))
	if !strings.Contains(string(md), want) || !strings.Contains(string(md), "## Provenance") {
		t.Errorf("the report does not carry the warning")
	}
}

// The code version comes from the build information, the modified flag
// included; without a revision the record says why.
func TestCodeOfBuildInfo(t *testing.T) {
	bi, err := debug.ParseBuildInfo("go\tgo1.26.8\npath\tgithub.com/samem/trainer/cmd/eval\nmod\tgithub.com/samem/trainer\t(devel)\t\ndep\tgonum.org/v1/gonum\tv0.17.0\th1:x=\nbuild\tvcs=git\nbuild\tvcs.revision=0123456789abcdef0123\nbuild\tvcs.time=2026-11-25T10:00:00Z\nbuild\tvcs.modified=true\n")
	if err != nil {
		t.Fatal(err)
	}
	c, mods, gov := codeOf(bi)
	if c.Revision != "0123456789abcdef0123" || c.Modified == nil || !*c.Modified || c.VCS != "git" || c.Note != "" || gov != "go1.26.8" ||
		len(mods) != 1 || mods[0].Path != "gonum.org/v1/gonum" || mods[0].Version != "v0.17.0" {
		t.Errorf("codeOf = %+v %v %s", c, mods, gov)
	}
	if c.describe() != "0123456789ab (modified)" {
		t.Errorf("describe = %q", c.describe())
	}
	other := Provenance{Code: Code{Revision: "fedcba9876543210"}, Go: "go1.26.8"}
	d := (Provenance{Code: c, Go: "go1.26.8"}).Differences(other, compareOpts{})
	if len(d) != 1 || d[0] != "code revision: 0123456789ab (modified) → fedcba987654" {
		t.Errorf("differences %q", d)
	}
	bare, _ := debug.ParseBuildInfo("go\tgo1.26.8\npath\tx\nmod\tx\t(devel)\t\n")
	if c, _, _ := codeOf(bare); c.Note == "" || c.Revision != "" {
		t.Errorf("without VCS stamps: %+v", c)
	}
}

// TestEveryPromptRegistered: every prompt template and answer schema in a
// prompts/ folder of the module is in the provenance record's hashes, so a
// role package added without registering its files is caught.
func TestEveryPromptRegistered(t *testing.T) {
	files, err := filepath.Glob("../*/prompts/*")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../internal/*/prompts/*")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	hashes := promptset.Hashes()
	n := 0
	for _, f := range files {
		if !strings.HasSuffix(f, ".tmpl") && !strings.HasSuffix(f, ".schema.json") {
			continue
		}
		n++
		name := filepath.Base(filepath.Dir(filepath.Dir(f))) + "/" + filepath.Base(f)
		if hashes[name] == "" {
			t.Errorf("%s is not registered with internal/promptset (as %s)", f, name)
		}
	}
	if n == 0 {
		t.Fatal("no prompt files found under ../*/prompts/")
	}
}
