package reply

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/samem/trainer/llm"
)

// LoadSchema reads the JSON schema at path in fsys (a role's prompts
// folder, embedded) as the llm.Schema called name, compacted. It panics on
// a missing file or one that is not a JSON object: schemas are compiled
// into the program, and a broken one is a bug every test finds.
func LoadSchema(fsys fs.FS, path, name string) *llm.Schema {
	b, err := fs.ReadFile(fsys, path)
	if err != nil {
		panic(fmt.Sprintf("schema %s: %v", path, err))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		panic(fmt.Sprintf("schema %s: not a JSON object: %v", path, err))
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		panic(fmt.Sprintf("schema %s: %v", path, err))
	}
	return &llm.Schema{Name: name, JSON: c.Bytes()}
}

// Decode reads a structured answer, text that is exactly one JSON object,
// into v. ok is false for anything else: a server that ignored the schema
// answered in text, which the role then reads as it reads any reply.
func Decode(text string, v any) bool {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return false
	}
	return json.Unmarshal([]byte(t), v) == nil
}

// WithChoices is s with the string property prop (at the top level) limited
// to choices by an enum, so that a server that enforces the schema can only
// answer one of them (an admissible action, by construction); s itself
// when choices is empty or s has no such property. The name stays: the
// role and its golden-pinned schema are the same, the choices are the
// step's.
func WithChoices(s *llm.Schema, prop string, choices []string) *llm.Schema {
	if s == nil || len(choices) == 0 {
		return s
	}
	var obj map[string]any
	if json.Unmarshal(s.JSON, &obj) != nil {
		return s
	}
	props, _ := obj["properties"].(map[string]any)
	p, _ := props[prop].(map[string]any)
	if p == nil || p["type"] != "string" {
		return s
	}
	p["enum"] = choices
	b, err := json.Marshal(obj)
	if err != nil {
		return s
	}
	return &llm.Schema{Name: s.Name, JSON: b}
}
