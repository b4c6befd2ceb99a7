package app

import (
	"context"
	"hash/fnv"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/llm/llmtest"
)

// householdModel stands in for a language model behind the OpenAI protocol:
// it answers SAMem's summarise, think and check prompts in the formats the
// roles parse, choosing an admissible action from the prompt.
func householdModel(c llmtest.Call) llmtest.Reply {
	if c.Chat == nil {
		return llmtest.Reply{} // embeddings: the server's deterministic vectors
	}
	sys, user := c.Chat.System(), c.Chat.LastUser()
	switch {
	case strings.Contains(sys, "summarise"):
		return llmtest.Reply{Text: "Summary: You are looking for the target object."}
	case strings.Contains(sys, "evaluator"):
		return llmtest.Reply{Text: "is_valid: True"}
	}
	// The thinker: pick one admissible action, by a hash of the prompt.
	var adm []string
	if i := strings.Index(user, "Admissible actions:\n"); i >= 0 {
		for _, l := range strings.Split(user[i+len("Admissible actions:\n"):], "\n") {
			if l == "" {
				break
			}
			adm = append(adm, l)
		}
	}
	act := "look"
	if len(adm) > 0 {
		h := fnv.New32a()
		io.WriteString(h, user)
		act = adm[int(h.Sum32()%uint32(len(adm)))]
	}
	return llmtest.Reply{Text: "Thought: Check the places that may hold the target object.\nAction: " + act}
}

// TestOpenAIPathEndToEnd runs a short training and an evaluation of SAMem
// through the OpenAI-compatible client against a local server that speaks
// the real protocol, and checks that token usage is reported.
func TestOpenAIPathEndToEnd(t *testing.T) {
	srv := llmtest.NewServer(t, householdModel)
	cfg := Defaults()
	cfg.Run = t.TempDir()
	cfg.Iterations, cfg.PerType, cfg.Workers = 2, 1, 2
	cfg.Env.MaxSteps = 4
	cfg.LLM = LLMConfig{Backend: "openai", ChatModel: "test-chat", EmbedModel: "test-embed", EmbedDim: llmtest.DefaultEmbedDim,
		ChatURLs: []string{srv.URL}, Timeout: 10 * time.Second, Retries: 1, Concurrency: 4, APIKey: "sk-test-e2e"}
	ctx := context.Background()
	streams := Streams{Out: io.Discard, Err: io.Discard}
	tr, err := Train(ctx, cfg, streams)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 1 || len(tr[0].History) != 2 {
		t.Fatalf("train results = %+v", tr)
	}
	u := tr[0].Usage
	for _, purpose := range []string{"summarize", "think"} {
		if s := u.ByPurpose[purpose]; s.Calls == 0 || s.PromptTokens == 0 || s.CompletionTokens == 0 {
			t.Errorf("training usage of %s = %+v, want calls and tokens", purpose, s)
		}
	}
	chats := srv.ChatRequests()
	if chats == 0 || srv.EmbedRequests() == 0 {
		t.Fatalf("server saw %d chat and %d embedding requests", chats, srv.EmbedRequests())
	}

	cfg.Tasks = 3
	cfg.Methods = []string{"samem", "nomemory"}
	res, err := Eval(ctx, cfg, streams)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("eval gave %d results, want 2", len(res))
	}
	for _, r := range res {
		if r.Tasks != 3 || r.Tokens == 0 {
			t.Errorf("eval %s: %d tasks, %d tokens; want 3 tasks and tokens reported", r.Method, r.Tasks, r.Tokens)
		}
		// The memory-use account: the episodes' own tokens are the
		// evaluation's (SAMem calls no model outside its episodes at
		// evaluation), SAMem's training built its memory, nomemory built
		// none, and the evaluation's tokens are all using memory.
		mu := r.MemoryUse
		if mu.Tokens != r.Tokens || mu.TokensUse != r.Tokens || mu.TokensBuild != mu.TokensTraining {
			t.Errorf("eval %s: memory use %+v with %d tokens", r.Method, mu, r.Tokens)
		}
		if want := r.Method == "samem"; (mu.TokensTraining > 0) != want {
			t.Errorf("eval %s: training tokens %d", r.Method, mu.TokensTraining)
		}
	}
	// The replies' model and fingerprint are recorded.
	p, err := ReadProvenance(filepath.Join(cfg.Run, ProvenanceFile))
	if err != nil || len(p.Models.Served) == 0 || p.Models.Served[0].Model != "test-chat" || p.Models.Served[0].Fingerprint != "fp_llmtest" {
		t.Errorf("training provenance: served %+v (%v)", p.Models.Served, err)
	}
	tr0 := tr[0].History
	if tr0[0].Tokens == 0 || tr0[0].Tokens+tr0[1].Tokens != u.Total.PromptTokens+u.Total.CompletionTokens+u.Total.CachedTokens {
		t.Errorf("iterations' tokens %d + %d, want the training's %+v", tr0[0].Tokens, tr0[1].Tokens, u.Total)
	}
	// A second identical evaluation is served from the response cache.
	before := srv.ChatRequests()
	if _, err := Eval(ctx, cfg, streams); err != nil {
		t.Fatal(err)
	}
	if after := srv.ChatRequests(); after != before {
		t.Errorf("a repeated evaluation made %d chat requests, want 0 (cache)", after-before)
	}
}
