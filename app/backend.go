package app

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/cache"
	"github.com/samem/trainer/llm/local"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/llm/openai"
	"github.com/samem/trainer/runner"
)

// Backend is the model layer of a run: a chat model (nil for the offline
// backend, whose roles need none), an embedder, and the usage meter.
type Backend struct {
	Chat     llm.Chatter // nil: offline roles
	Embedder llm.Embedder
	Meter    *llm.Meter
	cache    *cache.Cache
	servers  []*local.Server // local model servers this backend started
}

// Offline reports whether the roles run without a model.
func (b *Backend) Offline() bool { return b.Chat == nil }

// Close stops the local model servers and releases the response cache.
func (b *Backend) Close() error {
	for _, s := range b.servers {
		s.Close()
	}
	b.servers = nil
	if b.cache != nil {
		return b.cache.Close()
	}
	return nil
}

// NewBackend builds the model layer of cfg. Local models (-llm local,
// -embed local) are installed on first use and started here, with their
// progress written to log; Close stops them.
func NewBackend(ctx context.Context, cfg Config, log io.Writer) (_ *Backend, err error) {
	cfg = cfg.Resolved()
	prices, err := llm.ParsePrices(cfg.LLM.Prices)
	if err != nil {
		return nil, fmt.Errorf("%w: -prices: %v", ErrConfig, err)
	}
	b := &Backend{Meter: llm.NewMeter(prices)}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	localOpts := local.Options{Dir: cfg.LLM.LocalDir, Threads: cfg.LLM.LocalThreads, MaxTokens: cfg.LLM.LocalMaxTokens, Log: log}
	startLocal := func(role local.Role) (string, error) {
		srv, err := local.Start(ctx, role, localOpts)
		if err != nil && ctx.Err() != nil {
			// A second Ctrl-C while the model loads: an interruption
			// (exit 130), with nothing trained yet.
			return "", fmt.Errorf("local %s model: %w while it started", role, runner.ErrInterrupted)
		}
		if err != nil {
			return "", err
		}
		b.servers = append(b.servers, srv)
		return srv.URL, nil
	}
	client := func(c openai.Config) (*openai.Client, error) {
		c.Timeout, c.Retries, c.Meter = cfg.LLM.Timeout, cfg.LLM.Retries, b.Meter
		c.Structured, c.Log = cfg.LLM.Structured.String(), log
		if c.MaxConcurrent == 0 {
			c.MaxConcurrent = cfg.LLM.concurrency(cfg.Workers)
		}
		cl, err := openai.New(c)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		return cl, nil
	}
	var chat llm.Chatter
	var emb llm.Embedder
	var remote *openai.Client // the openai client, shared by both roles
	openaiClient := func() (*openai.Client, error) {
		if remote != nil {
			return remote, nil
		}
		remote, err = client(openai.Config{
			APIKey:         cfg.LLM.APIKey,
			ChatModel:      cfg.LLM.ChatModel,
			ChatBaseURLs:   cfg.LLM.ChatURLs,
			EmbedModel:     cfg.LLM.EmbedModel,
			EmbedBaseURLs:  cfg.LLM.EmbedURLs,
			EmbedDim:       cfg.LLM.EmbedDim,
			SendDimensions: cfg.LLM.SendDimensions,
		})
		return remote, err
	}
	switch cfg.LLM.Backend {
	case BackendOpenAI:
		c, err := openaiClient()
		if err != nil {
			return nil, err
		}
		chat = c
	case BackendLocal:
		url, err := startLocal(local.Chat)
		if err != nil {
			return nil, err
		}
		// No key goes to a local server. The server answers one request
		// at a time: unless -concurrency says otherwise, requests wait
		// here, so that -timeout bounds the model's time, not the queue.
		c, err := client(openai.Config{
			ChatModel: local.ChatModel, ChatBaseURLs: []string{url},
			MaxConcurrent: cmp.Or(cfg.LLM.Concurrency, 1),
		})
		if err != nil {
			return nil, err
		}
		chat = c
	}
	switch cfg.LLM.EmbedBackend() {
	case BackendOffline:
		emb = offline.New(cfg.LLM.EmbedDim)
	case BackendOpenAI:
		c, err := openaiClient()
		if err != nil {
			return nil, err
		}
		emb = c
	case BackendLocal:
		url, err := startLocal(local.Embed)
		if err != nil {
			return nil, err
		}
		c, err := client(openai.Config{
			ChatBaseURLs: []string{url}, EmbedModel: local.EmbedModel, EmbedBaseURLs: []string{url},
			EmbedDim: local.EmbedDim, MaxConcurrent: cmp.Or(cfg.LLM.Concurrency, 1),
		})
		if err != nil {
			return nil, err
		}
		emb = c
	}
	_, offlineEmb := emb.(*offline.Embedder)
	if path := cfg.CachePath(); path != "" && (cfg.LLM.Backend != BackendOffline || !offlineEmb) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("response cache: %w", err)
		}
		// IdleClose lets two runs that share one cache file take turns on
		// its lock (bbolt allows one writer process at a time).
		c, err := cache.Open(path, cache.Options{Meter: b.Meter, IdleClose: 100 * time.Millisecond})
		if err != nil {
			return nil, fmt.Errorf("response cache %s: %w", path, err)
		}
		b.cache = c
		// With a nil next (replay), a request that was never recorded
		// fails with cache.ErrMiss instead of reaching a server. Offline
		// roles stay offline (no chat model).
		if cfg.LLM.Backend != BackendOffline {
			chat = c.Chatter(chat, cfg.LLM.ChatModel)
		}
		switch {
		case emb == nil:
			emb = c.EmbedderFor(cfg.LLM.EmbedModel, cfg.LLM.EmbedDim)
		case !offlineEmb:
			emb = c.Embedder(emb)
		}
	}
	// -max-tokens, -reasoning-effort and -structured off shape every chat
	// request above the cache, so that its keys hold what is sent.
	chat = cfg.LLM.Settings().Chatter(chat)
	b.Chat, b.Embedder = chat, emb
	return b, nil
}

// meteredChat counts one method's calls in its own meter, so that train
// and eval report usage per method and role: the call's context carries
// the meter (llm.WithMeter), and the client and the cache record every event
// (requests sent, retries, failures, cache hits, tokens) in it as well as in
// the run's meter (Backend.Meter). Cache hits are counted as hits with
// their cached tokens, never as answered calls or sent tokens.
type meteredChat struct {
	next  llm.Chatter
	meter *llm.Meter
}

func (m meteredChat) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	return m.next.Chat(llm.WithMeter(ctx, m.meter), req)
}

// meteredEmbedder is meteredChat for embeddings.
type meteredEmbedder struct {
	llm.Embedder
	meter *llm.Meter
}

func (m meteredEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return m.Embedder.Embed(llm.WithMeter(ctx, m.meter), texts)
}

// ForMethod returns the backend as one method sees it: the same models,
// with the method's calls also counted in meter.
func (b *Backend) ForMethod(meter *llm.Meter) *Backend {
	out := *b
	out.Meter = meter
	if b.Chat != nil {
		out.Chat = meteredChat{next: b.Chat, meter: meter}
	}
	if b.Embedder != nil && !b.Offline() {
		out.Embedder = meteredEmbedder{Embedder: b.Embedder, meter: meter}
	}
	return &out
}

// concurrency is the bound on requests in flight (see LLMConfig.Concurrency).
func (c LLMConfig) concurrency(workers int) int {
	if c.Concurrency > 0 {
		return c.Concurrency
	}
	return max(8, workers)
}
