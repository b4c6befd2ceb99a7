package reply

import "github.com/samem/trainer/internal/promptset"

// The prompt templates are recorded for provenance (internal/promptset).
func init() { promptset.Register("reply", promptFS, "prompts/*.tmpl") }
