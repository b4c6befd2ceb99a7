package runner

import (
	"context"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
)

// goalEnv wins on the step numbered winAt (1-based; 0: never) and never
// truncates itself, so that the runner's own step limit ends the episode.
type goalEnv struct {
	winAt, steps int
}

func (e *goalEnv) Reset(context.Context, envbridge.Task) (envbridge.Observation, error) {
	e.steps = 0
	return envbridge.Observation{Text: "start"}, nil
}

func (e *goalEnv) Step(_ context.Context, action string) (envbridge.StepResult, error) {
	e.steps++
	r := envbridge.StepResult{Observation: envbridge.Observation{Text: "ok"}, MaxScore: 1}
	if e.steps == e.winAt {
		r.Won, r.Done, r.Score, r.Reward = true, true, 1, 1
	}
	return r, nil
}

func (e *goalEnv) Close() error { return nil }

type waitMethod struct{}

func (waitMethod) Name() string { return "wait" }
func (waitMethod) Start(context.Context, agent.Start) (agent.Episode, error) {
	return waitEpisode{}, nil
}

type waitEpisode struct{}

func (waitEpisode) Act(context.Context, envbridge.Observation) (agent.Decision, error) {
	return agent.Decision{Action: "wait"}, nil
}
func (waitEpisode) Observe(context.Context, agent.Transition) error { return nil }
func (waitEpisode) Finish(context.Context, agent.Outcome) error     { return nil }

// TestStepLimit plays whole episodes and checks success and SPL as seed 002
// Eq. 8 defines them: a win on the last allowed step is a success, an
// episode done at the step limit without the goal is a failure that counts
// P = the limit, and SPL uses L / max(P, L) for P longer and shorter than L.
func TestStepLimit(t *testing.T) {
	const limit = 10
	for _, tc := range []struct {
		name      string
		winAt     int
		oracle    int
		won       bool
		truncated bool
		steps     int
		spl       float64
	}{
		{"won on the last step", limit, 5, true, false, limit, 0.5},
		{"won before the oracle's length", 3, 5, true, false, 3, 1},
		{"won at the oracle's length", 5, 5, true, false, 5, 1},
		{"done at the step limit", 0, 5, false, true, limit, 0},
		{"goal after the limit", limit + 1, 5, false, true, limit, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := envbridge.Task{ID: "t", Type: "put", MaxSteps: limit, OracleSteps: tc.oracle}
			ep, err := Run(context.Background(), &goalEnv{winAt: tc.winAt}, waitMethod{}, agent.Start{Task: task, Mode: agent.Eval})
			if err != nil {
				t.Fatal(err)
			}
			o := ep.Outcome
			if o.Won != tc.won || o.Truncated != tc.truncated || o.Steps != tc.steps {
				t.Errorf("outcome won %v truncated %v steps %d, want %v %v %d", o.Won, o.Truncated, o.Steps, tc.won, tc.truncated, tc.steps)
			}
			s := Summarize([]Episode{ep}, map[string]int{"put": tc.oracle})
			wantRate := 0.0
			if tc.won {
				wantRate = 1
			}
			if s.SuccessRate != wantRate || s.SPL == nil || !near(*s.SPL, tc.spl) || s.SPLPaper == nil || !near(*s.SPLPaper, tc.spl) {
				t.Errorf("success %v SPL %v SPLPaper %v, want %v and %v", s.SuccessRate, s.SPL, s.SPLPaper, wantRate, tc.spl)
			}
			if !near(s.AvgScore, wantRate) || !near(s.AvgSteps, float64(tc.steps)) {
				t.Errorf("avg score %v avg steps %v, want %v %d", s.AvgScore, s.AvgSteps, wantRate, tc.steps)
			}
		})
	}
}
