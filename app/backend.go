package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/cache"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/llm/openai"
)

// Backend is the model layer of a run: a chat model (nil for the offline
// backend, whose roles need none), an embedder, and the usage meter.
type Backend struct {
	Chat     llm.Chatter // nil: offline roles
	Embedder llm.Embedder
	Meter    *llm.Meter
	cache    *cache.Cache
}

// Offline reports whether the roles run without a model.
func (b *Backend) Offline() bool { return b.Chat == nil }

// Close releases the response cache.
func (b *Backend) Close() error {
	if b.cache != nil {
		return b.cache.Close()
	}
	return nil
}

// NewBackend builds the model layer of cfg.
func NewBackend(cfg Config) (*Backend, error) {
	prices, err := llm.ParsePrices(cfg.LLM.Prices)
	if err != nil {
		return nil, fmt.Errorf("%w: -prices: %v", ErrConfig, err)
	}
	b := &Backend{Meter: llm.NewMeter(prices)}
	if cfg.LLM.Backend == "offline" {
		b.Embedder = offline.New(cfg.LLM.EmbedDim)
		return b, nil
	}
	var chat llm.Chatter
	var emb llm.Embedder
	if cfg.LLM.Backend == "openai" {
		client, err := openai.New(openai.Config{
			APIKey:         cfg.LLM.APIKey,
			ChatModel:      cfg.LLM.ChatModel,
			ChatBaseURLs:   cfg.LLM.ChatURLs,
			EmbedModel:     cfg.LLM.EmbedModel,
			EmbedBaseURLs:  cfg.LLM.EmbedURLs,
			EmbedDim:       cfg.LLM.EmbedDim,
			SendDimensions: cfg.LLM.SendDimensions,
			Timeout:        cfg.LLM.Timeout,
			Retries:        cfg.LLM.Retries,
			MaxConcurrent:  cfg.LLM.concurrency(cfg.Workers),
			Meter:          b.Meter,
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		chat, emb = client, client
	}
	if path := cfg.CachePath(); path != "" {
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
		// fails with cache.ErrMiss instead of reaching a server.
		chat = c.Chatter(chat, cfg.LLM.ChatModel)
		if emb == nil {
			emb = c.EmbedderFor(cfg.LLM.EmbedModel, cfg.LLM.EmbedDim)
		} else {
			emb = c.Embedder(emb)
		}
	}
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
