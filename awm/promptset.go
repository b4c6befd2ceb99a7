package awm

import "github.com/samem/trainer/internal/promptset"

// The prompt templates and answer schemas are recorded for provenance (internal/promptset).
func init() { promptset.Register("awm", promptFS, "prompts/*.tmpl", "prompts/*.schema.json") }
