// Package golden compares test output with files under testdata/, and
// rewrites them when tests run with -update.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/internal/jsonschema"
	"github.com/samem/trainer/llm"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/ with the current output")

// Check compares got with testdata/<name>; with -update it writes got there instead.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
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
		t.Fatalf("read golden file (run the test with -update to create it): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// Messages renders a prompt as golden files hold it: each message as a
// "### role" line followed by its content.
func Messages(msgs []llm.Message) []byte {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("### " + m.Role + "\n" + m.Content + "\n")
	}
	return []byte(b.String())
}

// Schema pins a role's structured-output schema: it must keep to the
// subset every structured-output server takes (jsonschema.Strict), and its
// indented JSON must equal testdata/<SchemaFile(s)>.
func Schema(t testing.TB, s *llm.Schema) {
	t.Helper()
	Check(t, SchemaFile(s), SchemaJSON(t, s))
}

// SchemaFile is the name of the golden file of s.
func SchemaFile(s *llm.Schema) string { return "schema-" + s.Name + ".json.golden" }

// SchemaJSON checks s as Schema does and returns its indented JSON, for a
// package with a golden helper of its own.
func SchemaJSON(t testing.TB, s *llm.Schema) []byte {
	t.Helper()
	if s == nil || s.Name == "" {
		t.Fatalf("schema %v has no name", s)
	}
	if err := jsonschema.Strict(s.JSON); err != nil {
		t.Errorf("schema %s: %v", s.Name, err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, s.JSON, "", "  "); err != nil {
		t.Fatalf("schema %s: %v", s.Name, err)
	}
	b.WriteByte('\n')
	return b.Bytes()
}
