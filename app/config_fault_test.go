package app_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
)

// FuzzLoadConfig feeds arbitrary bytes as a run's config.json: LoadConfig
// and Validate never panic, and every error wraps ErrConfig and names the
// file (LoadConfig) or a flag (Validate).
func FuzzLoadConfig(f *testing.F) {
	f.Add([]byte(app.Defaults().JSON()))
	f.Add([]byte(""))
	f.Add([]byte("{"))
	f.Add([]byte(`{"workers": -1, "iterations": 0}`))
	f.Add([]byte(`{"llm": {"backend": "openai", "timeout": "soon"}}`))
	f.Add([]byte(`{"env": {"kind": "zmachine", "game": "../../etc/passwd"}, "methods": ["samem"], "workers": 1, "iterations": 1, "llm": {"backend": "offline", "embed_dim": 8}}`))
	f.Add([]byte(`{"samem": {"Threshold": 1e309}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, app.ConfigFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := app.LoadConfig(dir)
		if err != nil {
			if !errors.Is(err, app.ErrConfig) || !strings.Contains(err.Error(), path) {
				t.Fatalf("LoadConfig error %v: want ErrConfig naming %s", err, path)
			}
			return
		}
		if err := c.Validate(); err != nil && (!errors.Is(err, app.ErrConfig) || !strings.Contains(err.Error(), ": -")) {
			t.Fatalf("Validate error %v: want ErrConfig naming a flag", err)
		}
	})
}
