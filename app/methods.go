package app

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	arioff "github.com/samem/trainer/arigraph/offline"
	"github.com/samem/trainer/autoguide"
	autoguideoff "github.com/samem/trainer/autoguide/offline"
	"github.com/samem/trainer/awm"
	awmoff "github.com/samem/trainer/awm/offline"
	"github.com/samem/trainer/baseline"
	baselineoff "github.com/samem/trainer/baseline/offline"
	"github.com/samem/trainer/cdmem"
	cdmemoff "github.com/samem/trainer/cdmem/offline"
	"github.com/samem/trainer/clin"
	clinoff "github.com/samem/trainer/clin/offline"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/expel"
	expeloff "github.com/samem/trainer/expel/offline"
	"github.com/samem/trainer/forget"
	forgetoff "github.com/samem/trainer/forget/offline"
	"github.com/samem/trainer/kgplan"
	kgoff "github.com/samem/trainer/kgplan/offline"
	"github.com/samem/trainer/memrl"
	memrloff "github.com/samem/trainer/memrl/offline"
	"github.com/samem/trainer/memstream"
	msoff "github.com/samem/trainer/memstream/offline"
	"github.com/samem/trainer/samem"
	"github.com/samem/trainer/summarize"
	sumoff "github.com/samem/trainer/summarize/offline"
	"github.com/samem/trainer/thought"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

// entry is one method the trainer knows.
type entry struct {
	build func(cfg Config, b *Backend) (agent.Method, error)
	// baseline methods learn nothing: train skips them and eval runs them
	// without a checkpoint.
	baseline bool
	// styles lists the environment styles the method can run on; nil: any.
	styles []envbridge.Style
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
		return clin.New(cfg.CLIN, clinDeps(b))
	}},
	// AriGraph (seed 000): semantic + episodic knowledge graph, Ariadne agent.
	"arigraph": {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return arigraph.New(cfg.AriGraph, arigraph.Deps{Chat: b.Chat, Embed: b.Embedder, Offline: arioff.Roles{}})
	}},
	// The Generative Agents memory stream (seed 001), AriGraph's RAG baseline.
	"memstream": {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return memstream.New(cfg.MemStream, memstream.Deps{Chat: b.Chat, Embed: b.Embedder, Offline: msoff.Method{}})
	}},
	// L3M+P (seed 003): PDDL-verified knowledge graph and a classical planner;
	// household world only.
	"kgplan": {styles: []envbridge.Style{envbridge.StyleHousehold}, build: func(cfg Config, b *Backend) (agent.Method, error) {
		kc := cfg.KGPlan
		if cfg.Env.Kind == EnvHousehold {
			// Where objects are likely to be is public knowledge of the
			// game (ALFWORLD-FACTS.md) that a language model brings; the
			// offline planner gets it as a search order.
			kc.CanHold = household.CanHold
		}
		m, err := kgplan.New(kc, kgplan.Deps{Chat: b.Chat, Embed: b.Embedder, Text: kgoff.Text{}})
		if errors.Is(err, kgplan.ErrConfig) {
			return nil, &SettingError{Flag: "planner", Reason: err.Error()}
		}
		return m, err
	}},
	// AutoGuide (Fu et al. 2024; seed 002 B.2): context-aware guidelines
	// from pairs of trials, selected by context at every step.
	autoguide.Name: {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return autoguide.New(cfg.AutoGuide, autoguide.Deps{Chat: b.Chat, Embed: b.Embedder, Offline: autoguideoff.Roles{}})
	}},
	// CDMem (Gao et al. 2025; seed 002 B.2): scene and task-type memories
	// from expert, short-term and long-term encodings.
	cdmem.Name: {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return cdmem.New(cfg.CDMem, cdmem.Deps{Chat: b.Chat, Embed: b.Embedder, Offline: cdmemoff.Roles{}})
	}},
	// ExpeL (Zhao et al. 2024; seed 002 B.2's task-level baseline): insights
	// extracted from gathered successes and failures, similar successes
	// retrieved by task text.
	expel.Name: {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return expel.New(cfg.ExpeL, expelDeps(b))
	}},
	// Agent Workflow Memory (Wang et al. 2025; seed 002 B.2's other
	// task-level memory): workflows induced from each task type's successes.
	awm.Name: {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return awm.New(cfg.AWM, awm.Deps{Chat: b.Chat, Embed: b.Embedder, Offline: awmoff.Roles()})
	}},
	// MemRL (arXiv:2601.03192): Q-values over episodic memory triplets,
	// two-phase retrieval.
	memrl.Name: {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return memrl.New(cfg.MemRL, memrlDeps(b))
	}},
	// Plain baselines (seed 002 B.2, seed 000 Sec. 4): the whole episode in
	// the prompt, a running summary, and Reflexion's reflections after failed
	// trials (the last three kept; it learns, so it is trained).
	baseline.FullHistoryName: {baseline: true, build: func(cfg Config, b *Backend) (agent.Method, error) {
		return baseline.NewFullHistory(cfg.FullHistory, baselineDeps(b))
	}},
	baseline.SummaryName: {baseline: true, build: func(cfg Config, b *Backend) (agent.Method, error) {
		return baseline.NewSummary(cfg.Summary, baselineDeps(b))
	}},
	baseline.ReflexionName: {build: func(cfg Config, b *Backend) (agent.Method, error) {
		return baseline.NewReflexion(cfg.Reflexion, baselineDeps(b))
	}},
	baseline.NoMemoryName: {baseline: true, build: func(cfg Config, b *Backend) (agent.Method, error) {
		return baseline.NoMemory{Summarizer: summarizer(cfg, b), Thinker: thinker(cfg, b)}, nil
	}},
}

// clinDeps are CLIN's models on the backend, with the rules of package
// clin/offline for the offline backend.
func clinDeps(b *Backend) clin.Deps {
	return clin.Deps{Chat: b.Chat, Embed: b.Embedder, Controller: clinoff.Controller{}, Generator: clinoff.Generator{}}
}

// expelDeps are ExpeL's models on the backend, with the roles of package
// expel/offline for the offline backend.
func expelDeps(b *Backend) expel.Deps {
	return expel.Deps{Chat: b.Chat, Embed: b.Embedder, Offline: expeloff.Roles()}
}

// memrlDeps are MemRL's models on the backend, with the agent of package
// memrl/offline for the offline backend.
func memrlDeps(b *Backend) memrl.Deps {
	return memrl.Deps{Chat: b.Chat, Embed: b.Embedder, Offline: memrloff.Agent{}}
}

// baselineDeps are the baselines' models on the backend, with the roles of
// package baseline/offline for the offline backend.
func baselineDeps(b *Backend) baseline.Deps {
	return baseline.Deps{Chat: b.Chat, Embed: b.Embedder, Offline: baselineoff.Roles()}
}

// PaperOrder is the order in which methods are listed, trained, evaluated
// and reported: seed 002 Table 1's rows (its no-memory "baseline",
// Reflexion, ExpeL, AWM, AutoGuide, CDMem, SAMem), then MemRL, SAMem's
// closest rival; every other registered method follows by name. A name
// here that is not registered is skipped, so a method's registration is
// all it takes to join -method all.
var PaperOrder = []string{baseline.NoMemoryName, baseline.ReflexionName, "expel", "awm", "autoguide", "cdmem", samem.Name, memrl.Name}

// compareMethods orders method names as PaperOrder says.
func compareMethods(a, b string) int {
	rank := func(n string) int {
		if i := slices.Index(PaperOrder, n); i >= 0 {
			return i
		}
		return len(PaperOrder)
	}
	if c := rank(a) - rank(b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// SortMethods sorts method names in PaperOrder, in place.
func SortMethods(names []string) { slices.SortFunc(names, compareMethods) }

// MethodNames lists the registered methods in PaperOrder; baselines only
// when asked.
func MethodNames(withBaselines bool) []string {
	var out []string
	for n, e := range registry {
		if withBaselines || !e.baseline {
			out = append(out, n)
		}
	}
	SortMethods(out)
	return out
}

// Fits reports whether a method can run on environments of style st.
func Fits(name string, st envbridge.Style) bool {
	styles := registry[name].styles
	return styles == nil || slices.Contains(styles, st)
}

// fitMethods checks cfg.Methods against the suite before anything is
// written: with cfg.FitOnly (-method all) the methods that
// cannot run on the environment are dropped with a note on w; otherwise such
// a method is refused with ErrConfig naming the method and the environment.
func fitMethods(cfg *Config, suite envbridge.Suite, w io.Writer) error {
	var keep []string
	for _, name := range cfg.Methods {
		if Fits(name, suite.Style()) {
			keep = append(keep, name)
			continue
		}
		if !cfg.FitOnly {
			return fmt.Errorf("%w: -method %s: %s cannot run on environment %s (%s text): it needs %s", ErrConfig, name, name, suite.Name(), suite.Style(), styleList(registry[name].styles))
		}
		fmt.Fprintf(w, "%s cannot run on environment %s (%s text; it needs %s): left out\n", name, suite.Name(), suite.Style(), styleList(registry[name].styles))
	}
	if len(keep) == 0 {
		return fmt.Errorf("%w: -method: none of %s can run on environment %s", ErrConfig, strings.Join(cfg.Methods, ", "), suite.Name())
	}
	cfg.Methods = keep
	return nil
}

func styleList(st []envbridge.Style) string {
	out := make([]string, len(st))
	for i, s := range st {
		out[i] = string(s) + " text"
	}
	return strings.Join(out, " or ")
}

// IsBaseline reports whether a method learns nothing (no training, no checkpoint).
func IsBaseline(name string) bool { return registry[name].baseline }

// NewMethod builds a registered method on the backend, from the resolved
// configuration (every method gets its own Config, -temperature included).
func NewMethod(name string, cfg Config, b *Backend) (agent.Method, error) {
	e, ok := registry[name]
	if !ok {
		return nil, &SettingError{Flag: "method", Reason: fmt.Sprintf("unknown method %q", name)}
	}
	return e.build(cfg.Resolved(), b)
}

func summarizer(cfg Config, b *Backend) summarize.Summarizer {
	switch {
	case cfg.SAMem.NoClustering:
		// "w/o situation processing" (seed 002 Table 2): the raw observation is the state.
		return summarize.Raw{}
	case b.Offline():
		return sumoff.Summarizer{TaskProgress: cfg.SAMem.TaskProgress}
	}
	s := summarize.NewLLM(b.Chat)
	s.MaxHistory = cfg.SAMem.SummaryHistory
	return s
}

func thinker(cfg Config, b *Backend) thought.Thinker {
	if b.Offline() {
		return thoughtoff.Thinker{}
	}
	return thought.NewLLMWith(b.Chat, b.Embedder, cfg.Thinker)
}

func checker(b *Backend) forget.Checker {
	if b.Offline() {
		return forgetoff.Checker{}
	}
	return forget.NewLLM(b.Chat)
}
