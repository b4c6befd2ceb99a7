package app_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/llm/local"
)

// TestLocalBackendConfig: -llm local and -embed name their models and
// dimension (resolved, without a flag saying so), and a wrong combination
// is refused naming the flag.
func TestLocalBackendConfig(t *testing.T) {
	given := app.Defaults()
	given.LLM.Backend = "local"
	if err := given.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg := given.Resolved()
	if cfg.LLM.EmbedDim != local.EmbedDim {
		t.Errorf("local embeddings resolved to %d dimensions, want %d", cfg.LLM.EmbedDim, local.EmbedDim)
	}
	if cfg.LLM.ChatModel != local.ChatModel || cfg.LLM.EmbedModel != local.EmbedModel || cfg.LLM.EmbedBackend() != "local" {
		t.Errorf("local backend: chat %q, embed %q (%s)", cfg.LLM.ChatModel, cfg.LLM.EmbedModel, cfg.LLM.EmbedBackend())
	}
	mixed := app.Defaults()
	mixed.LLM.Embed = "local"
	mixed.LLM.EmbedDim = local.EmbedDim
	if err := mixed.Validate(); err != nil || mixed.LLM.EmbedBackend() != "local" || mixed.LLM.Backend != "offline" {
		t.Errorf("offline roles with local embeddings: %v, %+v", err, mixed.LLM)
	}
	if got := mixed.LLM.Describe(); got != "offline backend, local embeddings" {
		t.Errorf("Describe = %q", got)
	}
	for name, tc := range map[string]struct {
		edit func(*app.Config)
		flag string
	}{
		"dimension":     {func(c *app.Config) { c.LLM.Embed, c.LLM.EmbedDim = "local", 1024 }, "-embed-dim"},
		"unknown embed": {func(c *app.Config) { c.LLM.Embed = "bert" }, "-embed"},
		"replay embed": {func(c *app.Config) {
			c.LLM.Backend, c.LLM.ChatModel, c.LLM.EmbedModel, c.LLM.Embed = "replay", "m", "e", "local"
		}, "-embed"},
		"openai embed": {func(c *app.Config) { c.LLM.Embed = "openai" }, "-embed-model"},
		"chat model":   {func(c *app.Config) { c.LLM.Backend, c.LLM.ChatModel = "local", "gpt-4o"; c.LLM.EmbedDim = 512 }, "-chat-model"},
		"max tokens":   {func(c *app.Config) { c.LLM.LocalMaxTokens = 5000 }, "-local-max-tokens"},
		"threads":      {func(c *app.Config) { c.LLM.LocalThreads = -2 }, "-local-threads"},
	} {
		c := app.Defaults()
		tc.edit(&c)
		err := c.Validate()
		if !errors.Is(err, app.ErrConfig) || !strings.Contains(err.Error(), tc.flag+":") {
			t.Errorf("%s: %v; want a configuration error naming %s", name, err, tc.flag)
		}
	}
}
