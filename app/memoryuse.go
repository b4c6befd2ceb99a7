package app

import (
	"fmt"

	"github.com/samem/trainer/runner"
)

// MemoryUse is how much a method's memory guided its decisions in an
// evaluation: the steps whose decision it guided (agent.Decision.Guided)
// of all the steps played. A method whose memory never guided a step is
// evaluated as if it had none, and its row says so (NeverGuided).
type MemoryUse struct {
	// HasMemory is false for a method that keeps nothing from one episode
	// to the next (the baselines: nomemory, fullhistory, summary): guidance
	// does not apply to it.
	HasMemory   bool `json:"has_memory"`
	GuidedSteps int  `json:"guided_steps"`
	Steps       int  `json:"steps"`
}

// MemoryUseOf is method's memory use over the evaluated episodes eps
// (every trial). It is the one definition of the guided-step share and of
// "never guided"; reports and statistics use it.
func MemoryUseOf(method string, eps []runner.Episode) MemoryUse {
	g, n := runner.GuidedSteps(eps)
	return MemoryUse{HasMemory: !IsBaseline(method), GuidedSteps: g, Steps: n}
}

// NeverGuided reports whether the method has a memory that guided none of
// the steps it played.
func (u MemoryUse) NeverGuided() bool { return u.HasMemory && u.Steps > 0 && u.GuidedSteps == 0 }

// Share is the share of steps the memory guided (0 without steps).
func (u MemoryUse) Share() float64 {
	if u.Steps == 0 {
		return 0
	}
	return float64(u.GuidedSteps) / float64(u.Steps)
}

// String is the table cell: "43%", "never" or "- (no memory)".
func (u MemoryUse) String() string {
	switch {
	case !u.HasMemory:
		return "- (no memory)"
	case u.Steps == 0:
		return "-"
	case u.NeverGuided():
		return "never ⚠"
	}
	return fmt.Sprintf("%.0f%%", 100*u.Share())
}
