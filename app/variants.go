package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/samem"
)

// Ablation variants of SAMem live side by side with the full method in one
// run directory, each under its own name (its own method directory and
// checkpoint subdirectory), so that seed 002 Table 2 and Fig. 6 come out of
// one train and one eval. A variant is SAMem built with one switch turned on.
var variants = []struct {
	name  string
	apply func(*samem.Config)
	doc   string
}{
	{"samem-no-q", func(c *samem.Config) { c.NoQ = true }, "w/o Q-learning (seed 002 Table 2): thoughts retrieved by state similarity only"},
	{"samem-no-situation", func(c *samem.Config) { c.NoClustering = true }, "w/o situation processing (Table 2): the raw observation is the state, no clustering"},
	{"samem-no-decay", func(c *samem.Config) { c.NoDecay = true }, "w/o decayed epsilon-greedy (Table 2): memory unused during training"},
	{"samem-no-forgetting", func(c *samem.Config) { c.NoForgetting = true }, "without the forgetting step (Fig. 6)"},
	{ActionLevelName, func(c *samem.Config) { c.ActionLevel = true }, "action-level memory (Table 3): Q over (state, action), the stored action guides"},
}

// ActionLevelName is the action-level variant of seed 002 Table 3.
const ActionLevelName = "samem-action-level"

// AblationsKeyword is the -method value that means SAMem and its ablation
// variants.
const AblationsKeyword = "ablations"

func init() {
	// The variants are registered here rather than in methods.go so that
	// the registry's main table stays the list of methods.
	for _, v := range variants {
		registry[v.name] = entry{build: func(cfg Config, b *Backend) (agent.Method, error) {
			v.apply(&cfg.SAMem)
			m, err := registry[samem.Name].build(cfg, b)
			if err != nil {
				return nil, err
			}
			sm, ok := m.(*samem.Method)
			if !ok {
				return nil, fmt.Errorf("variant %s: samem built a %T", v.name, m)
			}
			return &Variant{Method: sm, name: v.name}, nil
		}}
	}
}

// Variant is SAMem under another name: one of the ablations. It has every
// ability of samem.Method (saving, forgetting, sizes, epsilon, Snapshot).
type Variant struct {
	*samem.Method
	name string
}

// Name implements agent.Method: the variant's name, so that its
// checkpoints and results are its own.
func (v *Variant) Name() string { return v.name }

// Ablations lists the ablation variants' names: SAMem's in Table 2 order,
// then the other methods' (methodVariants).
func Ablations() []string {
	out := make([]string, 0, len(variants)+len(methodVariants))
	for _, v := range variants {
		out = append(out, v.name)
	}
	for _, v := range methodVariants {
		out = append(out, v.name)
	}
	return out
}

// AblationDoc describes an ablation variant, or returns "" for other names.
func AblationDoc(name string) string {
	for _, v := range variants {
		if v.name == name {
			return v.doc
		}
	}
	for _, v := range methodVariants {
		if v.name == name {
			return v.doc
		}
	}
	return ""
}

// IsAblation reports whether name is an ablation variant.
func IsAblation(name string) bool { return AblationDoc(name) != "" }

// MainMethods is what -method all means: the registered methods without
// the ablation variants (baselines only when asked).
func MainMethods(withBaselines bool) []string {
	return slices.DeleteFunc(MethodNames(withBaselines), IsAblation)
}

// AblationMethods is what -method ablations means: SAMem and its variants,
// then each other method with an ablation followed by its variants (the full
// method is what a variant is compared with).
func AblationMethods() []string {
	out := []string{samem.Name}
	for _, v := range variants {
		out = append(out, v.name)
	}
	for _, v := range methodVariants {
		if !slices.Contains(out, v.base) {
			out = append(out, v.base)
		}
		out = append(out, v.name)
	}
	return out
}

// TrainedMethods lists the registered methods (variants included) that have
// a committed checkpoint in the run directory, in PaperOrder.
func TrainedMethods(run string) []string {
	var out []string
	for _, name := range MethodNames(false) {
		if _, err := os.Stat(filepath.Join(run, name, checkpoints.Folder, checkpoints.LatestFile)); err == nil {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		// A run repeated over seeds: the methods trained in its seeds.
		if cfg, err := LoadConfig(run); err == nil {
			for _, s := range cfg.Seeds {
				for _, m := range TrainedMethods(SeedRun(run, s)) {
					if !slices.Contains(out, m) {
						out = append(out, m)
					}
				}
			}
			slices.Sort(out)
		}
	}
	return out
}

// EvalAll is what eval -method all means: every method trained in the run,
// then the baselines.
func EvalAll(run string) []string {
	out := TrainedMethods(run)
	for _, name := range MethodNames(true) {
		if IsBaseline(name) {
			out = append(out, name)
		}
	}
	return out
}
