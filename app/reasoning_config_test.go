package app_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
)

// TestReasoningSettingsConfig: -structured, -reasoning-effort and
// -max-tokens are checked naming the flag, auto is written as "" (the
// default), and Settings carries them to every request.
func TestReasoningSettingsConfig(t *testing.T) {
	c := app.Defaults()
	if err := c.LLM.Structured.Set("auto"); err != nil {
		t.Fatal(err)
	}
	c.LLM.ReasoningEffort, c.LLM.MaxTokens = "low", "1024,check=64,clin=300"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	s := c.LLM.Settings()
	if c.LLM.Structured != "" || s.NoSchemas || s.ReasoningEffort != "low" || s.MaxTokensFor("check") != 64 || s.MaxTokensFor("clin.memory") != 300 || s.MaxTokensFor("summarize") != 1024 {
		t.Errorf("settings %+v from %+v", s, c.LLM)
	}
	var fromJSON app.Config
	if err := json.Unmarshal([]byte(`{"llm": {"structured": "auto"}}`), &fromJSON); err != nil || fromJSON.LLM.Structured != app.StructuredAuto {
		t.Errorf(`config.json "auto": %q, %v; want "" (auto)`, fromJSON.LLM.Structured, err)
	}
	c.LLM.Structured = "off"
	if err := c.Validate(); err != nil || !c.LLM.Settings().NoSchemas {
		t.Errorf("off: %v, %+v", err, c.LLM.Settings())
	}
	for name, tc := range map[string]struct {
		edit func(*app.Config)
		flag string
	}{
		"structured":    {func(c *app.Config) { c.LLM.Structured = "yes" }, "-structured"},
		"effort":        {func(c *app.Config) { c.LLM.ReasoningEffort = "Very High!" }, "-reasoning-effort"},
		"tokens":        {func(c *app.Config) { c.LLM.MaxTokens = "lots" }, "-max-tokens"},
		"unknown role":  {func(c *app.Config) { c.LLM.MaxTokens = "summarise=100" }, "-max-tokens"},
		"zero tokens":   {func(c *app.Config) { c.LLM.MaxTokens = "think=0" }, "-max-tokens"},
		"twice the all": {func(c *app.Config) { c.LLM.MaxTokens = "100,200" }, "-max-tokens"},
	} {
		c := app.Defaults()
		tc.edit(&c)
		err := c.Validate()
		if !errors.Is(err, app.ErrConfig) || !strings.Contains(err.Error(), tc.flag+":") {
			t.Errorf("%s: %v; want a configuration error naming %s", name, err, tc.flag)
		}
	}
}
