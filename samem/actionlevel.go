package samem

import "github.com/samem/trainer/thought"

// memoryKey is what a step stores beside its state: the thought (SAMem,
// seed 002 Sec. 3.1: Q(s, th)), or with Config.ActionLevel the action taken
// (the action-level memory Table 3 compares with: Q(s, a)).
func memoryKey(cfg Config, d thought.Decision) string {
	if cfg.ActionLevel {
		return d.Action
	}
	return d.Thought
}
