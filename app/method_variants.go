package app

import (
	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	arioff "github.com/samem/trainer/arigraph/offline"
	"github.com/samem/trainer/clin"
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
	{CLINGenTaskName, "clin", "CLIN GEN-TASK+A (seed 004 Sec. 5C, Fig. 9, Table 2): a held-out task's meta-memory from the other task types' memories, then retried as in G+A",
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
}

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
