package clin

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/clin/internal/fakeworld"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm/offline"
)

// TestTrialCount: a training task's memory is adapted for Config.Trials
// trials (default 5, seed 004 Fig. 4's Trial-0 to Trial-4); later trials
// play with the last memory and leave it unchanged.
func TestTrialCount(t *testing.T) {
	m := newStub(t)
	train(t, m, []envbridge.Task{fakeworld.HeatApple}, DefaultTrials)
	after := m.Memory(fakeworld.HeatApple.ID)
	train(t, m, []envbridge.Task{fakeworld.HeatApple}, 2)
	m.mu.Lock()
	n := len(m.tasks[fakeworld.HeatApple.ID].Trials)
	m.mu.Unlock()
	if n != DefaultTrials {
		t.Errorf("%d adapted memories after %d trials, want %d", n, DefaultTrials+2, DefaultTrials)
	}
	if !reflect.DeepEqual(m.Memory(fakeworld.HeatApple.ID), after) {
		t.Error("trials past Config.Trials changed the memory")
	}
}

// TestFirstTrialSetting: the first trial of a new training task starts with
// an empty memory (ADAPT, seed 004 Sec. 5A); MetaFirstTrial starts it from
// a meta-memory of the trained tasks of its type.
func TestFirstTrialSetting(t *testing.T) {
	for _, metaFirst := range []bool{false, true} {
		m, err := New(Config{MetaFirstTrial: metaFirst}, Deps{Embed: offline.New(256), Controller: stubController{}, Generator: stubGenerator{}})
		if err != nil {
			t.Fatal(err)
		}
		train(t, m, []envbridge.Task{fakeworld.HeatApple, fakeworld.HeatMug}, 3)
		ep, err := m.Start(context.Background(), agent.Start{Task: fakeworld.HeatEgg, Mode: agent.Train, Style: envbridge.StyleHousehold, Rand: rand.New(rand.NewPCG(1, 1))})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(ep.(*episode).memory) > 0; got != metaFirst {
			t.Errorf("MetaFirstTrial %v: first trial of %s starts from %d items", metaFirst, fakeworld.HeatEgg.ID, len(ep.(*episode).memory))
		}
	}
}
