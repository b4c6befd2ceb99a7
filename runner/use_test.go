package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
)

// useSuite's environment lists "a" and "b" as admissible, scores one point
// per "b" out of 4, and ends after 4 steps.
type useSuite struct{ scriptSuite }

func (useSuite) Open(context.Context) (envbridge.Env, error) { return &useEnv{}, nil }

type useEnv struct{ steps, score int }

func (e *useEnv) Reset(context.Context, envbridge.Task) (envbridge.Observation, error) {
	e.steps, e.score = 0, 0
	return envbridge.Observation{Text: "start", Admissible: []string{"a", "b"}}, nil
}

func (e *useEnv) Step(_ context.Context, action string) (envbridge.StepResult, error) {
	e.steps++
	if action == "b" {
		e.score++
	}
	done := e.steps == 4
	return envbridge.StepResult{Observation: envbridge.Observation{Text: "x", Admissible: []string{"a", "b"}},
		Score: float64(e.score), MaxScore: 4, Done: done, Truncated: done}, nil
}

func (*useEnv) Close() error { return nil }

// memMethod plays "A" (valid, other case), "zzz" (invalid), "b", "b";
// its decisions are guided when its memory holds something, and each
// step spends the tokens of one call.
type memMethod struct{ memory int }

func (m memMethod) Name() string { return "mem" }
func (m memMethod) Start(context.Context, agent.Start) (agent.Episode, error) {
	return &memEpisode{guided: m.memory > 0}, nil
}

type memEpisode struct {
	guided bool
	n      int
	routes []uint64
}

func (e *memEpisode) Act(ctx context.Context, _ envbridge.Observation) (agent.Decision, error) {
	llm.CountTokens(ctx, llm.Usage{PromptTokens: 10, CompletionTokens: 1})
	if ep, ok := llm.EpisodeFrom(ctx); ok {
		e.routes = append(e.routes, ep.Route)
	}
	e.n++
	return agent.Decision{Action: []string{"A", "zzz", "b", "b"}[e.n-1], Guided: e.guided && e.n%2 == 1}, nil
}
func (*memEpisode) Observe(context.Context, agent.Transition) error { return nil }
func (e *memEpisode) Finish(ctx context.Context, _ agent.Outcome) error {
	// Every call of the episode is routed as the episode: by its task's
	// index in the whole list.
	ep, ok := llm.EpisodeFrom(ctx)
	for _, r := range e.routes {
		if !ok || r != ep.Route {
			return fmt.Errorf("a call routed %d in episode %d (%v)", r, ep.Route, ok)
		}
	}
	if ok && ep.Route != 4 && ep.Route != 7 {
		return fmt.Errorf("episode routed %d, want its task's index 4 or 7", ep.Route)
	}
	return nil
}

func TestUseMetrics(t *testing.T) {
	tasks := []envbridge.Task{{ID: "t0", Type: "x", MaxSteps: 10}, {ID: "t1", Type: "x", MaxSteps: 10}}
	for _, c := range []struct {
		memory int
		guided float64
	}{{0, 0}, {3, 0.5}} {
		eps, err := Evaluate(context.Background(), EvalConfig{Method: memMethod{c.memory}, Suite: useSuite{}, Tasks: tasks, Indices: []int{4, 7}, Workers: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if eps[0].Index != 4 || eps[1].Index != 7 {
			t.Errorf("indices %d %d, want 4 7", eps[0].Index, eps[1].Index)
		}
		u := SummarizeUse(eps)
		share, guided, steps := GuidedShare(eps)
		if share != c.guided || u.GuidedShare != c.guided || steps != 8 || guided != int(c.guided*8) {
			t.Errorf("memory %d: guided share %v (%d of %d), summary %v, want %v", c.memory, share, guided, steps, u.GuidedShare, c.guided)
		}
		if u.InvalidRate == nil || *u.InvalidRate != 0.25 || u.InvalidActions != 2 || u.CheckedSteps != 8 {
			t.Errorf("invalid actions %d of %d (%v), want 2 of 8", u.InvalidActions, u.CheckedSteps, u.InvalidRate)
		}
		if u.ScoreShare == nil || *u.ScoreShare != 0.5 || u.ProgressRate != nil {
			t.Errorf("score share %v progress %v, want 0.5 and none", u.ScoreShare, u.ProgressRate)
		}
		if u.Tokens != 2*4*11 || eps[0].Use.Tokens != 44 {
			t.Errorf("tokens %d (episode %d), want 88 (44)", u.Tokens, eps[0].Use.Tokens)
		}
	}
	// An errored episode is in no rate.
	bad := Episode{Outcome: agent.Outcome{Steps: 3, Err: "boom"}, Use: Use{GuidedSteps: 3, CheckedSteps: 3, InvalidActions: 3}}
	good := Episode{Outcome: agent.Outcome{Steps: 4}, Use: Use{GuidedSteps: 1, CheckedSteps: 4}}
	u := SummarizeUse([]Episode{bad, good})
	if u.GuidedShare != 0.25 || *u.InvalidRate != 0 {
		t.Errorf("with an errored episode: %+v", u)
	}
	if s, _, n := GuidedShare(nil); s != 0 || n != 0 {
		t.Error(fmt.Sprint("no episode: ", s, n))
	}
}
