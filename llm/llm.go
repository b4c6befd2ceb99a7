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
	// Schema is the JSON schema of the answer the role parses. Clients that
	// support it send it as the structured-output request (OpenAI's
	// response_format json_schema, strict) when the run allows it
	// (Response.Structured then says so); others ignore it, and the role
	// reads the reply as text.
	Schema *Schema `json:"schema,omitempty"`
	// ReasoningEffort is passed through as "reasoning_effort" ("low",
	// "medium", "high", ...); "" sends none.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// Again is the number of earlier replies to this question the role
	// could not use (0 on a first ask). It never reaches the server; a
	// Chatter that sets the token budget gives a question asked again more
	// room (see Settings).
	Again int `json:"-"`
}

// Schema is a named JSON schema (a JSON object, as sent to the server).
type Schema struct {
	Name string `json:"name"`
	JSON []byte `json:"schema"`
}

// Finish reasons of a Response that roles act on (OpenAI's values).
const (
	// FinishLength: the reply ran into its token limit and was cut off.
	FinishLength = "length"
)

// Usage counts the tokens of one response.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// ReasoningTokens are the completion tokens the model spent reasoning
	// (usage.completion_tokens_details.reasoning_tokens), part of
	// CompletionTokens; 0 when the server does not report them.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// Response is one chat completion.
type Response struct {
	// Text is the message content as the server sent it: it may still hold
	// the model's reasoning in think tags (internal/reply takes it out
	// before any role parses it).
	Text string `json:"text"`
	// Reasoning is the reasoning the server returned apart from the content
	// (reasoning_content, reasoning or thinking); it is never an answer.
	Reasoning string `json:"reasoning,omitempty"`
	// FinishReason is why the model stopped ("stop", FinishLength, ...; ""
	// when the server did not say).
	FinishReason string `json:"finish_reason,omitempty"`
	// Structured reports that the request's Schema was sent as a
	// structured-output request: Text should be JSON of that schema.
	Structured bool   `json:"structured,omitempty"`
	Model      string `json:"model"`
	// Fingerprint is the reply's system_fingerprint (the server's
	// configuration), empty where the server sends none.
	Fingerprint string `json:"system_fingerprint,omitempty"`
	Usage       Usage  `json:"usage"`
	Cached      bool   `json:"cached"` // served from the response cache, no request made
}

// CutOff reports a reply that ran into its token limit.
func (r Response) CutOff() bool { return r.FinishReason == FinishLength }

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
