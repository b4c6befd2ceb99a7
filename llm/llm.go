// Package llm is the shared vocabulary for language and embedding models: the
// chat and embedding contracts that role packages (summarize, thought, forget,
// clin, arigraph, ...) depend on, and usage accounting.
//
// Implementations live in subpackages: llm/openai (any OpenAI-compatible
// server, with retries), llm/cache (a persistent response cache that wraps
// either contract) and llm/offline (a hashing embedder that needs no server).
package llm

import "context"

// Message is one chat message. Role is "system", "user" or "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one chat completion request.
type Request struct {
	// Purpose names the agent role that makes the call ("summarize", "think",
	// "check", "clin.controller", ...). It is used for usage accounting only and
	// never reaches the server.
	Purpose     string    `json:"purpose"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"` // 0 is sent as 0
	MaxTokens   int       `json:"max_tokens"`  // 0: the server's default
	Seed        *int      `json:"seed,omitempty"`
	Stop        []string  `json:"stop,omitempty"`
}

// Usage counts the tokens of one response.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Response is one chat completion.
type Response struct {
	Text  string `json:"text"`
	Model string `json:"model"`
	// Fingerprint is the reply's system_fingerprint (the server's
	// configuration), empty where the server sends none.
	Fingerprint string `json:"system_fingerprint,omitempty"`
	Usage       Usage  `json:"usage"`
	Cached      bool   `json:"cached"` // served from the response cache, no request made
}

// Chatter answers chat requests. Implementations are safe for concurrent use.
type Chatter interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// Embedder turns texts into L2-normalised vectors of one fixed dimension.
// Implementations are safe for concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the embedding model; checkpoints record it so that memories
	// are never mixed across embedders.
	Model() string
	// Dim is the vector dimension (> 0).
	Dim() int
}
