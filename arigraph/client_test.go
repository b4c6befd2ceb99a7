package arigraph

import (
	"context"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

// wireChatter speaks the OpenAI protocol to a llmtest server through
// go-openai. It stands in for llm/openai until that client is committed; the
// point is that the request crosses the real protocol.
type wireChatter struct{ c *goopenai.Client }

func newTestClient(t *testing.T, srv *llmtest.Server) llm.Chatter {
	t.Helper()
	cfg := goopenai.DefaultConfig("")
	cfg.BaseURL = srv.URL
	return wireChatter{goopenai.NewClientWithConfig(cfg)}
}

func (w wireChatter) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	msgs := make([]goopenai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	r, err := w.c.CreateChatCompletion(ctx, goopenai.ChatCompletionRequest{Model: "test", Messages: msgs, Temperature: float32(req.Temperature)})
	if err != nil {
		return llm.Response{}, err
	}
	return llm.Response{Text: r.Choices[0].Message.Content, Model: r.Model}, nil
}
