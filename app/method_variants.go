package app

import (
	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
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
			return arigraph.New(arigraph.Config{Carry: cfg.AriGraph.Carry, NoEpisodic: true, Name: "arigraph-no-episodic"},
				arigraph.Deps{Chat: b.Chat, Embed: b.Embedder})
		}},
}

func init() {
	for _, v := range methodVariants {
		registry[v.name] = entry{build: v.build}
	}
}
