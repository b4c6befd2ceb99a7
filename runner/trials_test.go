package runner

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// scriptSuite opens goalEnvs that win on the action "win".
type scriptSuite struct{}

func (scriptSuite) Name() string                                { return "script" }
func (scriptSuite) Style() envbridge.Style                      { return envbridge.StyleHousehold }
func (scriptSuite) Splits() []string                            { return []string{"test"} }
func (scriptSuite) Tasks(string) ([]envbridge.Task, error)      { return nil, nil }
func (scriptSuite) Open(context.Context) (envbridge.Env, error) { return &winEnv{}, nil }

type winEnv struct{}

func (*winEnv) Reset(context.Context, envbridge.Task) (envbridge.Observation, error) {
	return envbridge.Observation{Text: "start"}, nil
}
func (*winEnv) Step(_ context.Context, action string) (envbridge.StepResult, error) {
	r := envbridge.StepResult{Observation: envbridge.Observation{Text: "ok"}, MaxScore: 1}
	if action == "win" {
		r.Won, r.Done, r.Score, r.Reward = true, true, 1, 1
	}
	return r, nil
}
func (*winEnv) Close() error { return nil }

// trialMethod plays, for trial k of a task, what its script says: "win",
// "fail" (wait to the step limit) or "err" (an error from Act). It records
// the trials it was started for.
type trialMethod struct {
	trials int
	script map[string][]string
	mu     sync.Mutex
	starts map[string][]int
}

func (m *trialMethod) Name() string    { return "trials" }
func (m *trialMethod) EvalTrials() int { return m.trials }
func (m *trialMethod) Start(_ context.Context, s agent.Start) (agent.Episode, error) {
	m.mu.Lock()
	m.starts[s.Task.ID] = append(m.starts[s.Task.ID], s.Trial)
	m.mu.Unlock()
	return scriptEpisode(m.script[s.Task.ID][s.Trial]), nil
}

type scriptEpisode string

func (e scriptEpisode) Act(context.Context, envbridge.Observation) (agent.Decision, error) {
	switch e {
	case "win":
		return agent.Decision{Action: "win"}, nil
	case "err":
		return agent.Decision{}, errors.New("scripted failure")
	}
	return agent.Decision{Action: "wait"}, nil
}
func (scriptEpisode) Observe(context.Context, agent.Transition) error { return nil }
func (scriptEpisode) Finish(context.Context, agent.Outcome) error     { return nil }

// TestEvaluateTrials: a method with several evaluation trials (CLIN's G+A)
// retries a task only after a trial that was neither won nor errored, at
// most EvalTrials times; First is each task's first trial and Final its
// result (the win, else the error, else the best trial).
func TestEvaluateTrials(t *testing.T) {
	m := &trialMethod{trials: 3, starts: map[string][]int{}, script: map[string][]string{
		"a": {"fail", "win", "win"}, // won on the retry
		"b": {"fail", "fail", "fail", "win"},
		"c": {"err", "win"},         // errored: not retried
		"d": {"win", "fail"},        // won at once
		"e": {"fail", "err", "win"}, // errored on the retry: the task is errored
	}}
	var tasks []envbridge.Task
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		tasks = append(tasks, envbridge.Task{ID: id, Type: "put", MaxSteps: 2})
	}
	eps, err := Evaluate(context.Background(), EvalConfig{Method: m, Suite: scriptSuite{}, Tasks: tasks, Workers: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int{"a": {0, 1}, "b": {0, 1, 2}, "c": {0}, "d": {0}, "e": {0, 1}}
	if !reflect.DeepEqual(m.starts, want) {
		t.Errorf("trials started %v, want %v", m.starts, want)
	}
	var order []string
	for _, e := range eps {
		order = append(order, e.Task.ID+string(rune('0'+e.Trial)))
	}
	if want := []string{"a0", "a1", "b0", "b1", "b2", "c0", "d0", "e0", "e1"}; !reflect.DeepEqual(order, want) {
		t.Errorf("episodes %v, want by task then trial %v", order, want)
	}
	first, final := First(eps), Final(eps)
	if len(first) != 5 || len(final) != 5 {
		t.Fatalf("%d first trials, %d results; want 5 each", len(first), len(final))
	}
	fs, gs := Summarize(first, nil), Summarize(final, nil)
	if fs.Successes != 1 || fs.Errors != 1 || fs.Completed != 4 {
		t.Errorf("first trials: %+v; want 1 won (d), 1 errored (c) of 5", fs)
	}
	if gs.Successes != 2 || gs.Errors != 2 || gs.Completed != 3 || gs.Tasks != 5 {
		t.Errorf("results: %+v; want 2 won (a, d), 2 errored (c, e), 5 tasks", gs)
	}
	if final[1].Trial != 2 || final[4].Trial != 1 || final[4].Outcome.Err == "" {
		t.Errorf("b's result is trial %d (want the latest of equal ones, 2); e's is trial %d errored %q (want 1, errored)", final[1].Trial, final[4].Trial, final[4].Outcome.Err)
	}
	// A method without trials plays each task once, as before.
	once, err := Evaluate(context.Background(), EvalConfig{Method: waitMethod{}, Suite: scriptSuite{}, Tasks: tasks, Workers: 2, Seed: 1})
	if err != nil || len(once) != len(tasks) {
		t.Errorf("one-trial method: %d episodes, %v; want %d", len(once), err, len(tasks))
	}
}
