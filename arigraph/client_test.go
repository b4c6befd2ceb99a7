package arigraph

import (
	"testing"
	"time"

	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/openai"
)

// newTestClient returns the project's OpenAI-compatible client pointed at a
// local llmtest server, so that LLM-backed paths cross the real protocol.
// It does not retry: a prompt no route answers fails at once.
func newTestClient(t *testing.T, srv *llmtest.Server) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{
		ChatBaseURLs: []string{srv.URL},
		ChatModel:    "test-chat",
		EmbedModel:   "test-embed",
		EmbedDim:     llmtest.DefaultEmbedDim,
		Timeout:      10 * time.Second,
		Retries:      -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
