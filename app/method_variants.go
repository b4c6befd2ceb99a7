package app

import (
	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	arioff "github.com/samem/trainer/arigraph/offline"
	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/expel"
	"github.com/samem/trainer/memrl"
)

// methodVariants are the ablations of methods other than SAMem, each a
// method of its own name (own directory, checkpoints and results), trained
// and evaluated with -method ablations beside SAMem's variants.
var methodVariants = []struct {
	name  string
	base  string // the full method the variant is compared with
	doc   string
	build func(cfg Config, b *Backend) (agent.Method, error)
}{
	{"arigraph-no-episodic", "arigraph", "AriGraph w/o episodic memory (seed 000 Sec. 4.3, Fig. 4): semantic graph retrieval only",
		func(cfg Config, b *Backend) (agent.Method, error) {
			c := cfg.AriGraph
			c.NoEpisodic, c.Name = true, "arigraph-no-episodic"
			return arigraph.New(c, arigraph.Deps{Chat: b.Chat, Embed: b.Embedder, Offline: arioff.Roles{}})
		}},
	// CLIN's settings of seed 004 Table 2 beside plain clin (GEN-ENV: one
	// trial of each held-out task from its meta-memory), and its ablation of
	// Table 3. Each trains as clin does (ADAPT); they differ at evaluation
	// (G+A, GEN-TASK) or in what the memory generator writes (advice).
	{CLINGAName, "clin", "CLIN GEN-ENV+A (seed 004 Sec. 5B, Table 2): each held-out task retried from its meta-memory, memory adapted after each failed trial, up to -clin-trials trials",
		func(cfg Config, b *Backend) (agent.Method, error) {
			c := cfg.CLIN
			c.Name, c.GA = CLINGAName, true
			return clin.New(c, clinDeps(b))
		}},
	{CLINGenTaskName, "clin", "CLIN GEN-TASK+A (seed 004 Sec. 5C, Fig. 9, Table 2): a held-out task's meta-memory from the other tasks of its type on household worlds (the paper's ALFWorld runs; -clin-gen-task-other-types: the other types'), from the other types' on ScienceWorld, then retried as in G+A",
		func(cfg Config, b *Backend) (agent.Method, error) {
			c := cfg.CLIN
			c.Name, c.GenTask, c.GA = CLINGenTaskName, true, true
			return clin.New(c, clinDeps(b))
		}},
	{CLINAdviceName, "clin", "CLIN with free-form advice in place of causal abstractions (seed 004 Sec. 5 question E, Fig. 13, Table 3)",
		func(cfg Config, b *Backend) (agent.Method, error) {
			c := cfg.CLIN
			c.Name, c.Advice = CLINAdviceName, true
			return clin.New(c, clinDeps(b))
		}},
	// ExpeL's ablations (Zhao et al. 2024 Sec. 5, Table 2): trained as
	// expel, evaluated with one of the two parts of its memory.
	{ExpeLNoInsightsName, "expel", "ExpeL without insights (Zhao et al. 2024 Sec. 5, \"retrieve only\"): only the retrieved successful trajectories",
		func(cfg Config, b *Backend) (agent.Method, error) {
			c := cfg.ExpeL
			c.Name, c.NoInsights = ExpeLNoInsightsName, true
			return expel.New(c, expelDeps(b))
		}},
	{ExpeLNoRetrievalName, "expel", "ExpeL without retrieved trajectories (Zhao et al. 2024 Sec. 5, \"insights only\"): only the insight list",
		func(cfg Config, b *Backend) (agent.Method, error) {
			c := cfg.ExpeL
			c.Name, c.NoRetrieval = ExpeLNoRetrievalName, true
			return expel.New(c, expelDeps(b))
		}},
	// MemRL's Q ablation (arXiv:2601.03192 Sec. 5): Phase B ranks by
	// similarity alone, as MemRL's authors describe MemP.
	{memrl.NoQName, memrl.Name, "MemRL without the Q re-rank: similarity-only retrieval (MemP as MemRL's authors describe it)",
		func(cfg Config, b *Backend) (agent.Method, error) {
			c := cfg.MemRL
			c.Name, c.NoQ = memrl.NoQName, true
			return memrl.New(c, memrlDeps(b))
		}},
}

// Names of ExpeL's variants.
const (
	ExpeLNoInsightsName  = "expel-no-insights"
	ExpeLNoRetrievalName = "expel-no-retrieval"
)

// Names of CLIN's variants.
const (
	CLINGAName      = "clin-ga"
	CLINGenTaskName = "clin-gen-task"
	CLINAdviceName  = "clin-advice"
)

func init() {
	for _, v := range methodVariants {
		registry[v.name] = entry{build: v.build}
	}
}
