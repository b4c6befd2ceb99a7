package zmachine

import (
	"path/filepath"
	"testing"

	"github.com/samem/trainer/envbridge/envtest"
)

func TestConformanceTiny(t *testing.T) {
	s, _ := tinySuite(t, Config{})
	envtest.Run(t, s, envtest.Options{FreeForm: true, Steps: 5, Actions: []string{"take coin", "drop coin", "look"}})
}

func TestConformanceShared(t *testing.T) {
	needInterpreter(t)
	dir := gamesDir(t)
	noChildrenLeft(t)
	s, err := NewSuite(ctxT(t), Config{}, filepath.Join(dir, "arigraph", "hunt.z8"))
	if err != nil {
		t.Fatal(err)
	}
	envtest.Run(t, s, envtest.Options{FreeForm: true, Steps: 8, Actions: []string{"west", "take key 1", "look", "east"}})
}

// TestConformanceValidActions: zork1 in-process with valid actions passes
// the conformance suite as an environment with admissible lists (actions
// chosen from them).
func TestConformanceValidActions(t *testing.T) {
	dir := gamesDir(t)
	s, err := NewSuite(ctxT(t), Config{ValidActions: true}, filepath.Join(dir, "jericho", "zork1.z5"))
	if err != nil {
		t.Fatal(err)
	}
	envtest.Run(t, s, envtest.Options{Steps: 6, Tasks: 1})
}
