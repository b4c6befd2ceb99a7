package app

import (
	"sort"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/forget"
	"github.com/samem/trainer/kgplan"
	"github.com/samem/trainer/memstream"
	"github.com/samem/trainer/samem"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// entry is one method the trainer knows.
type entry struct {
	build func(cfg Config, b *Backend) (agent.Method, error)
	// baseline methods learn nothing: train skips them and eval runs them
	// without a checkpoint.
	baseline bool
}

// registry maps method names (the -method flag) to their constructors.
var registry = map[string]entry{
	samem.Name: {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return samem.New(cfg.SAMem, samem.Deps{
			Summarizer: summarizer(cfg, b), Thinker: thinker(cfg, b), Checker: checker(b), Embedder: b.Embedder,
		})
	}},
	// CLIN (seed 004): causal abstractions, adaptation and generalisation.
	"clin": {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return clin.New(clin.Config{}, clin.Deps{Chat: b.Chat, Embed: b.Embedder})
	}},
	// AriGraph (seed 000): semantic + episodic knowledge graph, Ariadne agent.
	"arigraph": {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return arigraph.New(arigraph.Config{}, arigraph.Deps{Chat: b.Chat, Embed: b.Embedder})
	}},
	// The Generative Agents memory stream (seed 001), AriGraph's RAG baseline.
	"memstream": {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return memstream.New(memstream.Config{}, memstream.Deps{Chat: b.Chat, Embed: b.Embedder})
	}},
	// L3M+P (seed 003): PDDL-verified knowledge graph and a classical planner;
	// household world only.
	"kgplan": {build: func(cfg Config, b *Backend) (agent.Method, error) {
		var kc kgplan.Config
		if cfg.Env.Kind == "household" {
			// Where objects are likely to be is public knowledge of the
			// game (ALFWORLD-FACTS.md) that a language model brings; the
			// offline planner gets it as a search order.
			kc.CanHold = household.CanHold
		}
		return kgplan.New(kc, kgplan.Deps{Chat: b.Chat, Embed: b.Embedder})
	}},
	// Plain baselines (seed 002 B.2, seed 000 Sec. 4): the whole episode in
	// the prompt, a running summary, and Reflexion's reflections after failed
	// trials (the last three kept; it learns, so it is trained).
	baseline.FullHistoryName: {baseline: true, build: func(cfg Config, b *Backend) (agent.Method, error) {
		return baseline.NewFullHistory(baseline.FullHistoryConfig{}, baseline.Deps{Chat: b.Chat, Embed: b.Embedder})
	}},
	baseline.SummaryName: {baseline: true, build: func(cfg Config, b *Backend) (agent.Method, error) {
		return baseline.NewSummary(baseline.SummaryConfig{}, baseline.Deps{Chat: b.Chat, Embed: b.Embedder})
	}},
	baseline.ReflexionName: {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return baseline.NewReflexion(baseline.ReflexionConfig{}, baseline.Deps{Chat: b.Chat, Embed: b.Embedder})
	}},
	baseline.NoMemoryName: {baseline: true, build: func(cfg Config, b *Backend) (agent.Method, error) {
		return baseline.NoMemory{Summarizer: summarizer(cfg, b), Thinker: thinker(cfg, b)}, nil
	}},
}

// MethodNames lists the registered methods, sorted; baselines only when asked.
func MethodNames(withBaselines bool) []string {
	var out []string
	for n, e := range registry {
		if withBaselines || !e.baseline {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// IsBaseline reports whether a method learns nothing (no training, no checkpoint).
func IsBaseline(name string) bool { return registry[name].baseline }

// NewMethod builds a registered method on the backend.
func NewMethod(name string, cfg Config, b *Backend) (agent.Method, error) {
	return registry[name].build(cfg, b)
}

func summarizer(cfg Config, b *Backend) summarize.Summarizer {
	switch {
	case cfg.SAMem.NoClustering:
		// "w/o situation processing" (seed 002 Table 2): the raw observation is the state.
		return summarize.Raw{}
	case b.Offline():
		return summarize.Offline{TaskProgress: cfg.SAMem.TaskProgress}
	}
	return summarize.NewLLM(b.Chat)
}

func thinker(cfg Config, b *Backend) thought.Thinker {
	if b.Offline() {
		return thought.Offline{}
	}
	t := thought.NewLLM(b.Chat, b.Embedder)
	t.Temperature = cfg.LLM.Temperature
	return t
}

func checker(b *Backend) forget.Checker {
	if b.Offline() {
		return forget.Offline{}
	}
	return forget.NewLLM(b.Chat)
}
