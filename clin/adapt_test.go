package clin

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
)

func newOffline(t testing.TB) *Method {
	t.Helper()
	m, err := New(Config{}, Deps{Embed: offline.New(256)})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// play runs one trial of task on a fake world and returns whether it was won.
func play(t testing.TB, m *Method, task envbridge.Task, mode agent.Mode, trial int, seed uint64) runner.Episode {
	t.Helper()
	ep, err := runner.Run(context.Background(), &fakeWorld{}, m, agent.Start{
		Task: task, Mode: mode, Style: envbridge.StyleHousehold, Trial: trial,
		Rand: rand.New(rand.NewPCG(seed, uint64(trial))),
	})
	if err != nil {
		t.Fatalf("run %s trial %d: %v", task.ID, trial, err)
	}
	return ep
}

// adaptationCurve trains a fresh method on each task for trials trials, over
// seeds seeds, and returns the success rate at each trial index.
func adaptationCurve(t testing.TB, tasks []envbridge.Task, trials, seeds int) []float64 {
	curve := make([]float64, trials)
	for s := range seeds {
		for _, task := range tasks {
			m := newOffline(t) // per-task memory only: pure adaptation (Eq. 2)
			for k := range trials {
				if play(t, m, task, agent.Train, k, uint64(1000*s+7)).Outcome.Won {
					curve[k] += 1 / float64(seeds*len(tasks))
				}
			}
		}
	}
	return curve
}

// TestAdaptation: success over repeated trials of the same tasks rises
// (seed 004 Sec. 5A).
func TestAdaptation(t *testing.T) {
	tasks := []envbridge.Task{heatApple, heatMug, heatEgg, cleanPlate, lookBook, twoCD}
	curve := adaptationCurve(t, tasks, 6, 5)
	t.Logf("success by trial: %.2f", curve)
	first := curve[0]
	last := (curve[3] + curve[4] + curve[5]) / 3
	if last < first+0.3 {
		t.Errorf("success of trials 3-5 = %.2f, trial 0 = %.2f: want a rise of at least 0.3", last, first)
	}
}
