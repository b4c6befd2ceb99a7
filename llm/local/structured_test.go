package local_test

import (
	"context"
	"testing"

	"github.com/samem/trainer/internal/jsonschema"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/local"
	"github.com/samem/trainer/llm/openai"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// TestChatStructured: the local chat model takes a role's JSON schema as a
// llama.cpp grammar, so its reply is JSON of the schema by construction,
// with -structured on (the server does not refuse it); a reply bound far
// beyond the context is cut to what fits instead of refused.
func TestChatStructured(t *testing.T) {
	if testing.Short() {
		t.Skip("local-model test: starts the local chat model and waits for three CPU replies (runs without -short)")
	}
	dir := needInstalled(t, local.Chat)
	ctx := context.Background()
	srv, err := local.Start(ctx, local.Chat, local.Options{Dir: dir, MaxTokens: local.DefaultContext - 8})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := openai.New(openai.Config{ChatModel: local.ChatModel, ChatBaseURLs: []string{srv.URL}, Structured: openai.StructuredOn, MaxConcurrent: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*llm.Schema{summarize.Schema, thought.ThoughtActionSchema} {
		resp, err := c.Chat(ctx, llm.Request{Purpose: "test", MaxTokens: 64, Schema: s, Messages: []llm.Message{
			{Role: "system", Content: "You describe situations in one short sentence."},
			{Role: "user", Content: "You are in a kitchen. A fridge is closed. Answer in JSON."},
		}})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		t.Logf("%s: %q (finish %s)", s.Name, resp.Text, resp.FinishReason)
		if !resp.Structured {
			t.Errorf("%s: the schema was not sent", s.Name)
		}
		if resp.FinishReason == "stop" {
			if err := jsonschema.Validate(s.JSON, []byte(resp.Text)); err != nil {
				t.Errorf("%s: reply %q does not fit the schema: %v", s.Name, resp.Text, err)
			}
		}
	}
	// The prompt and this bound exceed the context together.
	if _, err := c.Chat(ctx, llm.Request{Purpose: "test", MaxTokens: local.DefaultContext - 8, Stop: []string{"\n", "."},
		Messages: []llm.Message{{Role: "user", Content: "Say hi to the kitchen, the fridge and the apple."}}}); err != nil {
		t.Errorf("a bound beyond the room the prompt leaves: %v", err)
	}
}
