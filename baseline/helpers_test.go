package baseline

import (
	"context"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
)

func smallSuite(t *testing.T, maxSteps int) *household.Suite {
	t.Helper()
	s, err := household.New(household.Config{Seed: 3, Train: 12, ValidSeen: 6, ValidUnseen: 12, MaxSteps: maxSteps})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stubHistory is an offline actor that always looks: the core's tests need
// a method without a model, not the rules of package baseline/offline.
type stubHistory struct{}

func (stubHistory) Begin(agent.Start, []string) HistorySession { return stubSession{} }

type stubSession struct{}

func (stubSession) Act(context.Context, envbridge.Observation) (agent.Decision, error) {
	return agent.Decision{Action: "look"}, nil
}
func (stubSession) Observe(string, string) {}
func (stubSession) Reflect() string        { return "" }

var stubOffline = Offline{History: stubHistory{}}

func mustFull(t *testing.T, cfg FullHistoryConfig, d Deps) *FullHistory {
	m, err := NewFullHistory(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustReflexion(t *testing.T, cfg ReflexionConfig, d Deps) *Reflexion {
	m, err := NewReflexion(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// taskOf returns the first task of a type in a split.
func taskOf(t *testing.T, s *household.Suite, split, typ string) envbridge.Task {
	t.Helper()
	tasks, err := s.Tasks(split)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if task.Type == typ {
			return task
		}
	}
	t.Fatalf("no %s task in %s", typ, split)
	return envbridge.Task{}
}
