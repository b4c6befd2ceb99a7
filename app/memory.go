package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/llm/offline"
)

// ErrNotShown is returned by OpenMemory for a method that cannot show its
// memory (it is no agent.Shower, or keeps no memory).
var ErrNotShown = errors.New("method cannot show its memory")

// ErrNoEmbedding is what a memory opened for showing answers when asked
// to embed a text: it was opened without the model that embedded it.
var ErrNoEmbedding = errors.New("a memory opened for showing embeds nothing")

// OpenMemory loads one checkpoint of a method for showing it (cmd/inspect,
// the run viewer): ckpt is a committed checkpoint directory
// (<run>/<method>/checkpoints/iter-NNNN). The method is built as the run's
// config.json describes it (the defaults when the run has none) with the
// roles that need no model, and with an embedder that bears the
// checkpoint's model name and dimension but embeds nothing unless the
// checkpoint was made with the offline embedder; no model is started and no
// request sent. The checkpoint is verified against its manifest first.
func OpenMemory(ctx context.Context, run, method, ckpt string) (agent.Shower, checkpoints.Meta, error) {
	if err := checkpoints.Verify(ctx, ckpt); err != nil {
		return nil, checkpoints.Meta{}, err
	}
	meta, err := checkpoints.LoadMeta(ctx, filepath.Join(ckpt, checkpoints.MetaFile))
	if err != nil {
		return nil, meta, err
	}
	if method == "" {
		method = meta.Method
	}
	if meta.Method != method {
		return nil, meta, fmt.Errorf("%s: a checkpoint of %s, not %s", ckpt, meta.Method, method)
	}
	cfg, err := LoadConfig(run)
	if errors.Is(err, fs.ErrNotExist) {
		cfg, err = Defaults(), nil
	}
	if err != nil {
		return nil, meta, err
	}
	cfg.LLM.Backend, cfg.LLM.Embed = BackendOffline, ""
	b := &Backend{Embedder: recordedEmbedder{model: meta.EmbedderModel, dim: int(meta.EmbedDim)}}
	if meta.EmbedderModel == offline.Model {
		b.Embedder = offline.New(int(meta.EmbedDim))
	}
	m, err := NewMethod(method, cfg, b)
	if err != nil {
		return nil, meta, fmt.Errorf("method %s: %w", method, err)
	}
	sh, ok := m.(agent.Shower)
	s, saves := m.(agent.Saver)
	if !ok || !saves {
		return nil, meta, fmt.Errorf("%s: %w", method, ErrNotShown)
	}
	if err := s.Load(ctx, filepath.Join(ckpt, method)); err != nil {
		return nil, meta, fmt.Errorf("%s: %w", ckpt, err)
	}
	return sh, meta, nil
}

// recordedEmbedder names a checkpoint's embedder without being it.
type recordedEmbedder struct {
	model string
	dim   int
}

func (e recordedEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("%w (model %s)", ErrNoEmbedding, e.model)
}
func (e recordedEmbedder) Model() string { return e.model }
func (e recordedEmbedder) Dim() int      { return max(1, e.dim) }
