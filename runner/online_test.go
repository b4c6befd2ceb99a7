package runner

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// modeMethod records the mode of every episode and the iterations ended.
type modeMethod struct {
	mu     sync.Mutex
	modes  []agent.Mode
	ended  []int
	endErr error
}

func (m *modeMethod) Name() string { return "modes" }
func (m *modeMethod) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.modes = append(m.modes, s.Mode)
	return scriptEpisode("win"), nil
}
func (m *modeMethod) EndIteration(_ context.Context, it int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ended = append(m.ended, it)
	return m.endErr
}

// An evaluation plays every episode in Eval mode and ends no iteration; an
// online one plays them in Online mode, records them so, and ends its pass
// as a training iteration ends (once, after every episode), reporting an
// error there.
func TestEvaluateOnline(t *testing.T) {
	tasks := []envbridge.Task{{ID: "a", MaxSteps: 2}, {ID: "b", MaxSteps: 2}, {ID: "c", MaxSteps: 2}}
	for _, online := range []bool{false, true} {
		m := &modeMethod{}
		eps, err := Evaluate(context.Background(), EvalConfig{Method: m, Suite: scriptSuite{}, Tasks: tasks, Workers: 2, Seed: 1, Online: online})
		if err != nil {
			t.Fatal(err)
		}
		want, ended := agent.Eval, []int(nil)
		if online {
			want, ended = agent.Online, []int{OnlineIteration}
		}
		for i, md := range m.modes {
			if md != want {
				t.Errorf("online %v: episode %d played in mode %s, want %s", online, i, md, want)
			}
		}
		for _, e := range eps {
			if e.Mode != want.String() {
				t.Errorf("online %v: %s recorded in mode %q, want %q", online, e.Task.ID, e.Mode, want)
			}
		}
		if !slices.Equal(m.ended, ended) {
			t.Errorf("online %v: iterations ended %v, want %v", online, m.ended, ended)
		}
	}
	m := &modeMethod{endErr: errors.New("forgetting failed")}
	_, err := Evaluate(context.Background(), EvalConfig{Method: m, Suite: scriptSuite{}, Tasks: tasks, Workers: 1, Seed: 1, Online: true})
	if err == nil || !errors.Is(err, m.endErr) {
		t.Errorf("online evaluation whose pass fails to end: %v, want the error", err)
	}
}
