package samem

import (
	"context"
	"math"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	forgetoff "github.com/samem/trainer/forget/offline"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/qlearn"
	sumoff "github.com/samem/trainer/summarize/offline"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

func newTest(t *testing.T, cfg Config) *Method {
	t.Helper()
	m, err := New(cfg, Deps{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}, Checker: forgetoff.Checker{}, Embedder: offline.New(64)})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestScheduleUnits: with ScheduleStep (the default), epsilon follows Eq. 7
// over the training steps applied against the step budget (episodes x step
// limit); with ScheduleEpisode over the episode index; NoDecay always
// explores.
func TestScheduleUnits(t *testing.T) {
	start := agent.Start{Task: envbridge.Task{MaxSteps: 40}, Episode: 3, Episodes: 10}
	step := newTest(t, Config{})
	if got := step.Config().Schedule; got != ScheduleStep {
		t.Errorf("default schedule %q, want %q", got, ScheduleStep)
	}
	step.step = 100
	if got, want := step.Epsilon(start), qlearn.Eps0*math.Exp(-qlearn.Beta*100/400); math.Abs(got-want) > 1e-12 {
		t.Errorf("step schedule: epsilon %v, want %v", got, want)
	}
	start.Task.MaxSteps = 0 // no limit given: defaultStepLimit
	if got, want := step.Epsilon(start), qlearn.Eps0*math.Exp(-qlearn.Beta*100/(10*defaultStepLimit)); math.Abs(got-want) > 1e-12 {
		t.Errorf("step schedule, default limit: epsilon %v, want %v", got, want)
	}
	ep := newTest(t, Config{Schedule: ScheduleEpisode})
	ep.step = 100
	if got, want := ep.Epsilon(start), qlearn.Eps0*math.Exp(-qlearn.Beta*3/10); math.Abs(got-want) > 1e-12 {
		t.Errorf("episode schedule: epsilon %v, want %v", got, want)
	}
	if got := newTest(t, Config{NoDecay: true}).Epsilon(start); got != 1 {
		t.Errorf("no-decay epsilon %v, want 1", got)
	}
	if _, err := New(Config{Schedule: "hourly"}, Deps{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}, Checker: forgetoff.Checker{}, Embedder: offline.New(64)}); err == nil {
		t.Error("an unknown schedule was accepted")
	}
}

// TestRetryZero: in a state with a positive thought, the least-visited
// tried thought still at 0 is retried; a pruned one never is; a state with
// no positive thought gives nothing to retry.
func TestRetryZero(t *testing.T) {
	m := newTest(t, Config{RetryZero: true})
	ctx := context.Background()
	ids := map[string]int64{}
	for _, text := range []string{"good", "zero-often", "zero-once", "pruned"} {
		v, err := m.embed(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		if ids[text], err = m.thoughts.Assign(v, text); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) != 4 || ids["good"] == ids["zero-once"] {
		t.Fatalf("thought clusters %v", ids)
	}
	const s, other = 1, 2
	if got := m.retryZero(s); got != "" {
		t.Errorf("empty state: retry %q, want none", got)
	}
	must := func(_ float64, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Zero-valued, tried: terminal updates with reward 0.
	for range 3 {
		must(m.table.Update(s, ids["zero-often"], 0, s, true, 1))
	}
	must(m.table.Update(s, ids["zero-once"], 0, s, true, 1))
	must(m.table.Update(s, ids["pruned"], 0, s, true, 1))
	if got := m.retryZero(s); got != "" {
		t.Errorf("state without a positive thought: retry %q, want none", got)
	}
	must(m.table.Update(s, ids["good"], 1, s, true, 2))
	m.pruned[[2]int64{s, ids["pruned"]}] = true
	if got := m.retryZero(s); got != "zero-once" {
		t.Errorf("retry %q, want zero-once (least visited, not pruned)", got)
	}
	delete(m.pruned, [2]int64{s, ids["pruned"]})
	if got := m.retryZero(s); got != "zero-once" && got != "pruned" {
		t.Errorf("retry %q, want a thought visited once", got)
	}
	if got := m.retryZero(other); got != "" {
		t.Errorf("unknown state: retry %q, want none", got)
	}
}

// TestTieMargin: with a tie margin, evaluation follows the most visited of
// the thoughts within the margin of the best; training keeps the plain
// argmax of Eq. 6; the default (0) is the plain argmax in both; a margin
// outside [0, 1) is refused.
func TestTieMargin(t *testing.T) {
	setup := func(margin float64) *Method {
		m := newTest(t, Config{TieMargin: margin})
		ctx := context.Background()
		ids := map[string]int64{}
		for _, text := range []string{"search", "open"} {
			v, err := m.embed(ctx, text)
			if err != nil {
				t.Fatal(err)
			}
			if ids[text], err = m.thoughts.Assign(v, text); err != nil {
				t.Fatal(err)
			}
		}
		if ids["search"] == ids["open"] {
			t.Fatalf("thought clusters %v", ids)
		}
		// The near-tie of the SAMem sweep: "search" slightly higher, "open" far
		// better tested.
		err := m.table.Set(1, ids["search"], 0.2411)
		if err == nil {
			err = m.table.Set(1, ids["open"], 0.2404)
		}
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			if _, err := m.table.Update(1, ids["open"], 0, 1, true, 1); err != nil {
				t.Fatal(err)
			}
			if err := m.table.Set(1, ids["open"], 0.2404); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	for _, tt := range []struct {
		margin      float64
		train, eval string
	}{
		{0, "search", "search"},
		{0.02, "search", "open"},
	} {
		m := setup(tt.margin)
		if got := m.guide(1, nil, true, agent.Train); got != tt.train {
			t.Errorf("margin %v, training: guide %q, want %q", tt.margin, got, tt.train)
		}
		if got := m.guide(1, nil, true, agent.Eval); got != tt.eval {
			t.Errorf("margin %v, evaluation: guide %q, want %q", tt.margin, got, tt.eval)
		}
	}
	for _, bad := range []float64{-0.1, 1, math.NaN()} {
		if _, err := New(Config{TieMargin: bad}, Deps{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}, Checker: forgetoff.Checker{}, Embedder: offline.New(64)}); err == nil {
			t.Errorf("tie margin %v was accepted", bad)
		}
	}
}
