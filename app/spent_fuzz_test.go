package app

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzSpentBefore: any content of train-usage.json gives what earlier
// commands spent or an error naming the file, never a panic, and never a
// negative spending from a file that parsed.
func FuzzSpentBefore(f *testing.F) {
	f.Add([]byte(`{"command":"train","run":{"total":{"requests":3,"cost_usd":0.5}},"spent":{"requests":7,"cost_usd":1.25,"episodes":4}}`))
	f.Add([]byte(`{"run":{"total":{"requests":3,"cost_usd":0.5}}}`))
	f.Add([]byte(`{"spent":null}`))
	f.Add([]byte(`not json`))
	f.Add([]byte(`{"spent":{"requests":-1,"cost_usd":-2}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg := Config{Run: t.TempDir()}
		if err := os.WriteFile(filepath.Join(cfg.Run, TrainUsageFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := spentBefore(cfg)
		if err != nil {
			return
		}
		if s.Requests < 0 || s.Episodes < 0 || !(s.CostUSD >= 0) {
			t.Fatalf("spent %+v from %q", s, b)
		}
	})
}
