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

// meteredChat counts one method's calls in its own meter, so that an
// evaluation of several methods reports tokens per method. It counts what
// the method consumed: a call answered from the response cache counts as a
// call with the tokens of the recorded answer (and as a cache hit), so that
// methods compare alike whether or not a cache served them. What was paid is
// in the run's own meter (Backend.Meter), where cache hits cost nothing.
type meteredChat struct {
	next  llm.Chatter
	meter *llm.Meter
}

func (m meteredChat) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := m.next.Chat(ctx, req)
	switch {
	case err != nil:
		m.meter.Error(req.Purpose, resp.Model)
	case resp.Cached:
		m.meter.Hit(req.Purpose, resp.Model)
		m.meter.Call(req.Purpose, resp.Model, resp.Usage)
	default:
		m.meter.Call(req.Purpose, resp.Model, resp.Usage)
	}
	return resp, err
}

// ForMethod returns the backend as one method sees it: the same models,
// with the method's calls also counted in meter.
func (b *Backend) ForMethod(meter *llm.Meter) *Backend {
	out := *b
	out.Meter = meter
	if b.Chat != nil {
		out.Chat = meteredChat{next: b.Chat, meter: meter}
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
