package clin

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/clin/internal/fakeworld"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
)

// stubController proposes the admissible actions in turn: the core's tests
// need a controller without a model, not the rules of package clin/offline.
type stubController struct{}

func (stubController) Next(_ context.Context, in ControllerInput) (Proposal, error) {
	if len(in.Obs.Admissible) == 0 {
		return Proposal{Goal: "look around", Action: "look"}, nil
	}
	a := in.Obs.Admissible[len(in.Trace)%len(in.Obs.Admissible)]
	return Proposal{Goal: "try " + a, Action: a}, nil
}

// stubGenerator writes one abstraction per trial and a meta-memory of the
// first item of each archived memory.
type stubGenerator struct{}

func (stubGenerator) Adapt(_ context.Context, in AdaptInput) ([]Abstraction, error) {
	return []Abstraction{{Kind: Necessary, X: "trying harder", Y: in.Task.Goal, Trial: in.Trial, Reward: in.Reward}}, nil
}

func (stubGenerator) Meta(_ context.Context, in MetaInput) ([]Abstraction, error) {
	var out []Abstraction
	for _, a := range in.Archive {
		if len(a.Items) > 0 {
			it := a.Items[0]
			it.Trial = -1
			out = append(out, it)
		}
	}
	return out, nil
}

func newStubWith(t testing.TB, cfg Config) *Method {
	t.Helper()
	m, err := New(cfg, Deps{Embed: offline.New(256), Controller: stubController{}, Generator: stubGenerator{}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newStub(t testing.TB) *Method { return newStubWith(t, Config{}) }

// play runs one trial of task on the fake world.
func play(t testing.TB, m *Method, task envbridge.Task, mode agent.Mode, trial int, seed uint64) runner.Episode {
	t.Helper()
	ep, err := runner.Run(context.Background(), &fakeworld.World{}, m, agent.Start{
		Task: task, Mode: mode, Style: envbridge.StyleHousehold, Trial: trial,
		Rand: rand.New(rand.NewPCG(seed, uint64(trial))),
	})
	if err != nil {
		t.Fatalf("run %s trial %d: %v", task.ID, trial, err)
	}
	return ep
}

// train plays trials of each task with one shared method.
func train(t *testing.T, m *Method, tasks []envbridge.Task, trials int) {
	for k := range trials {
		for _, task := range tasks {
			play(t, m, task, agent.Train, k, 99)
		}
	}
}
