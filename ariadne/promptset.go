package ariadne

import "github.com/samem/trainer/internal/promptset"

// The answer schemas are recorded for provenance (internal/promptset).
func init() { promptset.Register("ariadne", promptFS, "prompts/*.schema.json") }
