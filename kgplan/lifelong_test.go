package kgplan

import (
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// TestLifelong checks seed 003's lifelong memory: after a training episode
// of a task, an episode of the same task starts from the learned graph (the
// world as a reset leaves it) and is solved in fewer steps than by an agent
// with no memory; with NoLifelong it is played as from scratch.
func TestLifelong(t *testing.T) {
	s := newSuite(t)
	tasks, err := s.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	tasks = tasks[:12]
	fresh, _ := New(Config{}, Deps{})
	before := play(t, s, fresh, tasks)

	m, _ := New(Config{}, Deps{})
	playMode(t, s, m, tasks, agent.Train)
	for _, task := range tasks {
		g, ok := m.Graph(task.ID)
		if !ok {
			t.Fatalf("no graph kept for %s", task.ID)
		}
		for _, tr := range g.Triplets() {
			if tr.Subject == agentName {
				t.Errorf("%s: kept graph holds the agent's own state %v", task.ID, tr)
			}
		}
	}
	after := play(t, s, m, tasks)
	off, _ := New(Config{NoLifelong: true}, Deps{})
	playMode(t, s, off, tasks, agent.Train)
	noLife := play(t, s, off, tasks)

	sumBefore, sumAfter, faster := 0, 0, 0
	for i := range tasks {
		b, a := before[i].Outcome, after[i].Outcome
		if !a.Won {
			t.Errorf("%s: not solved with the learned graph (%d steps)", tasks[i].ID, a.Steps)
		}
		if b.Won && a.Won {
			sumBefore += b.Steps
			sumAfter += a.Steps
			if a.Steps < b.Steps {
				faster++
			}
			if a.Steps > b.Steps {
				t.Errorf("%s: %d steps with the learned graph, %d without", tasks[i].ID, a.Steps, b.Steps)
			}
		}
		if noLife[i].Outcome.Steps != b.Steps || noLife[i].Outcome.Won != b.Won {
			t.Errorf("%s: NoLifelong played %d steps, a fresh agent %d", tasks[i].ID, noLife[i].Outcome.Steps, b.Steps)
		}
	}
	t.Logf("12 train tasks: %d steps without memory, %d with the learned graph; %d tasks faster", sumBefore, sumAfter, faster)
	if faster == 0 || sumAfter >= sumBefore {
		t.Errorf("learned graph: %d steps against %d, %d tasks faster", sumAfter, sumBefore, faster)
	}
}
