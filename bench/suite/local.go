package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/samem/trainer/bench/report"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/local"
	"github.com/samem/trainer/llm/openai"
)

// localRows measures the local models of llm/local: USE
// embeddings per second through the trainer's client (llm/openai: batching,
// normalising, checking) against the same batches posted to the server
// directly, and TinyLlama's prompt and generation tokens per second. Without
// node, npm or the installs (make local-models) the rows say so.
func localRows(ctx context.Context, opts Options) ([]report.Row, error) {
	embedFig := "local USE embeddings through the trainer's client (texts/s)"
	promptFig := "local TinyLlama chat: prompt (tokens/s)"
	genFig := "local TinyLlama chat: generation, prompt time taken off (tokens/s)"
	skip := func(why string, figs ...string) []report.Row {
		var rows []report.Row
		for _, f := range figs {
			rows = append(rows, report.Row{Figure: f, Value: none, Baseline: none, Ratio: none, Note: why})
		}
		return rows
	}
	if err := local.Tools(); err != nil {
		return skip(err.Error(), embedFig, promptFig, genFig), nil
	}
	dir, err := local.DefaultDir()
	if err != nil {
		return nil, err
	}
	var rows []report.Row
	if !local.Installed(dir, local.Embed) {
		rows = append(rows, skip("local embeddings not installed (make local-models)", embedFig)...)
	} else {
		r, err := embedRow(ctx, dir, embedFig, opts)
		if err != nil {
			return rows, err
		}
		rows = append(rows, r)
	}
	if !local.Installed(dir, local.Chat) {
		rows = append(rows, skip("local chat model not installed (make local-models)", promptFig, genFig)...)
	} else {
		r, err := chatRows(ctx, dir, promptFig, genFig, opts)
		if err != nil {
			return rows, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// benchTexts are n distinct household sentences.
func benchTexts(n int) []string {
	objs := []string{"apple", "mug", "knife", "towel", "book", "pen", "plate", "soapbar"}
	places := []string{"fridge", "countertop 1", "drawer 2", "sinkbasin 1", "shelf 3", "cabinet 4", "desk 1"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("I am at %s %d; the %s is probably in the %s, so I should look there next",
			places[i%len(places)], i, objs[(i/len(places))%len(objs)], places[(i+3)%len(places)])
	}
	return out
}

func embedRow(ctx context.Context, dir, fig string, opts Options) (report.Row, error) {
	srv, err := local.Start(ctx, local.Embed, local.Options{Dir: dir, Log: opts.Log})
	if err != nil {
		return report.Row{}, err
	}
	defer srv.Close()
	n, batch := 1024, openai.DefaultEmbedBatch
	if opts.Quick {
		n = 256
	}
	texts := benchTexts(n)
	client, err := openai.New(openai.Config{EmbedModel: local.EmbedModel, ChatBaseURLs: []string{srv.URL}, EmbedDim: local.EmbedDim, EmbedBatch: batch, MaxConcurrent: 1})
	if err != nil {
		return report.Row{}, err
	}
	// Warm up both paths (the first batches compile the model's kernels).
	if _, err := client.Embed(ctx, texts[:8]); err != nil {
		return report.Row{}, err
	}
	t0 := time.Now()
	for i := 0; i < n; i += batch {
		if err := postEmbeddings(ctx, srv.URL, texts[i:min(i+batch, n)]); err != nil {
			return report.Row{}, err
		}
	}
	raw := float64(n) / time.Since(t0).Seconds()
	t0 = time.Now()
	if _, err := client.Embed(ctx, texts); err != nil {
		return report.Row{}, err
	}
	through := float64(n) / time.Since(t0).Seconds()
	return report.Row{Figure: fig, Value: through, Baseline: raw, BaselineName: "server alone (texts/s)",
		Ratio: through / raw, RatioName: "of server", Note: fmt.Sprintf("%d texts, batches of %d", n, batch)}, nil
}

// postEmbeddings sends one batch straight to the server and reads the reply.
func postEmbeddings(ctx context.Context, base string, texts []string) error {
	body, _ := json.Marshal(map[string]any{"model": local.EmbedModel, "input": texts, "encoding_format": "float"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var reply struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || len(reply.Data) != len(texts) {
		return fmt.Errorf("embeddings: status %d, %d vectors for %d texts", resp.StatusCode, len(reply.Data), len(texts))
	}
	return nil
}

func chatRows(ctx context.Context, dir, promptFig, genFig string, opts Options) ([]report.Row, error) {
	maxTokens := 64
	if opts.Quick {
		maxTokens = 16
	}
	srv, err := local.Start(ctx, local.Chat, local.Options{Dir: dir, Log: opts.Log, MaxTokens: maxTokens})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	client, err := openai.New(openai.Config{ChatModel: local.ChatModel, ChatBaseURLs: []string{srv.URL}, MaxConcurrent: 1, Timeout: 10 * time.Minute})
	if err != nil {
		return nil, err
	}
	ask := func(tag string, max int) (llm.Response, time.Duration, error) {
		// Each prompt starts differently, so no evaluated prefix is reused.
		user := tag + ": " + benchTexts(12)[0]
		for _, s := range benchTexts(12)[1:] {
			user += ". " + s
		}
		t0 := time.Now()
		resp, err := client.Chat(ctx, llm.Request{Purpose: "bench", MaxTokens: max, Messages: []llm.Message{
			{Role: "user", Content: user + ". Where should I look for the apple? Explain step by step."}}})
		return resp, time.Since(t0), err
	}
	if _, _, err := ask("warm-up", 1); err != nil {
		return nil, err
	}
	p, pd, err := ask("first", 1)
	if err != nil {
		return nil, err
	}
	promptRate := float64(p.Usage.PromptTokens) / pd.Seconds()
	g, gd, err := ask("second", maxTokens)
	if err != nil {
		return nil, err
	}
	genTime := gd.Seconds() - float64(g.Usage.PromptTokens)/promptRate
	genRate := none
	note := fmt.Sprintf("%d reply tokens after a %d-token prompt", g.Usage.CompletionTokens, g.Usage.PromptTokens)
	if genTime > 0 && g.Usage.CompletionTokens > 0 {
		genRate = float64(g.Usage.CompletionTokens) / genTime
	}
	return []report.Row{
		{Figure: promptFig, Value: promptRate, Baseline: none, Ratio: none, Note: fmt.Sprintf("%d-token prompt, 1 thread", p.Usage.PromptTokens)},
		{Figure: genFig, Value: genRate, Baseline: none, Ratio: none, Note: note},
	}, nil
}
