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

// TestScheduleUnits: with ScheduleBudget (the default), epsilon follows
// Eq. 7 over t = episode x limit + step against T = episodes x limit, and
// reaches eps0*exp(-beta) at the last step of training; with ScheduleStep
// over the training steps applied against the same budget; with
// ScheduleEpisode over the episode index; NoDecay always explores.
func TestScheduleUnits(t *testing.T) {
	start := agent.Start{Task: envbridge.Task{MaxSteps: 40}, Episode: 3, Episodes: 10}
	budget := newTest(t, Config{})
	if got := budget.Config().Schedule; got != ScheduleBudget {
		t.Errorf("default schedule %q, want %q", got, ScheduleBudget)
	}
	budget.step = 5 // the transition clock plays no part
	if got, want := budget.epsilonAt(start, 7), qlearn.Eps0*math.Exp(-qlearn.Beta*(3*40+7)/400); math.Abs(got-want) > 1e-12 {
		t.Errorf("budget schedule: epsilon %v, want %v", got, want)
	}
	if got, want := budget.Epsilon(start), qlearn.Eps0*math.Exp(-qlearn.Beta*120/400); math.Abs(got-want) > 1e-12 {
		t.Errorf("budget schedule at the episode's start: epsilon %v, want %v", got, want)
	}
	// The end of training: the last step of the last episode.
	last := agent.Start{Task: envbridge.Task{MaxSteps: 50}, Episode: 269, Episodes: 270}
	end := qlearn.Eps0 * math.Exp(-qlearn.Beta)
	if got := budget.epsilonAt(last, 49); got < end || got > end*math.Exp(qlearn.Beta/(270*50))*(1+1e-9) {
		t.Errorf("budget schedule, last step of training: epsilon %v, want eps0*exp(-beta) = %v", got, end)
	}
	// Steps past the limit (a task without one) count as its last.
	if a, b := budget.epsilonAt(last, 49), budget.epsilonAt(last, 500); a != b {
		t.Errorf("past the limit: epsilon %v, want %v", b, a)
	}
	// An episode that ended early leaves the next one where the budget says.
	if got := budget.Epsilon(last); got > end*math.Exp(qlearn.Beta/270)*1.0000001 {
		t.Errorf("budget schedule, last episode's start: epsilon %v, want at most %v", got, end*math.Exp(qlearn.Beta/270))
	}
	step := newTest(t, Config{Schedule: ScheduleStep})
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

// TestGuideRuleSameInAblations: whether a step is guided follows one rule in
// full SAMem and in every ablation (Eq. 6: a matched state with a stored
// thought that forgetting left, whatever its value; with GuidePositive only
// when the best value is positive). The ablations differ only in which
// thought guides: "w/o Q-learning" the most similar one.
func TestGuideRuleSameInAblations(t *testing.T) {
	variants := map[string]Config{
		"samem": {}, "no-q": {NoQ: true}, "no-situation": {NoClustering: true},
		"no-decay": {NoDecay: true}, "no-forgetting": {NoForgetting: true}, "action-level": {ActionLevel: true},
	}
	for name, base := range variants {
		for _, positive := range []bool{false, true} {
			cfg := base
			cfg.GuidePositive = positive
			m := newTest(t, cfg)
			ctx := context.Background()
			ids := map[string]int64{}
			for _, text := range []string{"search the shelves", "open the fridge", "rejected"} {
				v, err := m.embed(ctx, text)
				if err != nil {
					t.Fatal(err)
				}
				if ids[text], err = m.thoughts.Assign(v, text); err != nil {
					t.Fatal(err)
				}
			}
			set := func(s int64, th string, q float64) {
				if err := m.table.Set(s, ids[th], q); err != nil {
					t.Fatal(err)
				}
			}
			// state 1: every thought negative (ScienceWorld's penalties)
			set(1, "search the shelves", -0.3)
			set(1, "open the fridge", -0.1)
			// state 2: one positive thought
			set(2, "open the fridge", 0.4)
			// state 3: only a thought forgetting rejected
			set(3, "rejected", 0.2)
			m.pruned[[2]int64{3, ids["rejected"]}] = true
			// state 4: a rejected thought above a negative one
			set(4, "rejected", 0)
			set(4, "search the shelves", -0.2)
			m.pruned[[2]int64{4, ids["rejected"]}] = true
			vec, err := m.embed(ctx, "a state")
			if err != nil {
				t.Fatal(err)
			}
			for _, tt := range []struct {
				s    int64
				want bool
			}{{1, !positive}, {2, true}, {3, false}, {4, !positive}, {5, false}} {
				for _, mode := range []agent.Mode{agent.Train, agent.Eval} {
					got, _ := m.guide(tt.s, vec, true, mode)
					if (got != "") != tt.want {
						t.Errorf("%s (guide-positive %v), state %d, mode %v: guide %q, want guided %v", name, positive, tt.s, mode, got, tt.want)
					}
					if got == "rejected" {
						t.Errorf("%s, state %d: a rejected thought guides", name, tt.s)
					}
				}
			}
			if got, _ := m.guide(2, vec, false, agent.Eval); got != "" {
				t.Errorf("%s: an unmatched state guides with %q", name, got)
			}
			if !cfg.NoQ {
				if got, _ := m.guide(1, vec, true, agent.Train); !positive && got != "open the fridge" {
					t.Errorf("%s: state 1 guided by %q, want the argmax %q", name, got, "open the fridge")
				}
			}
		}
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
	if got, _ := m.retryZero(s); got != "" {
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
	if got, _ := m.retryZero(s); got != "" {
		t.Errorf("state without a positive thought: retry %q, want none", got)
	}
	must(m.table.Update(s, ids["good"], 1, s, true, 2))
	m.pruned[[2]int64{s, ids["pruned"]}] = true
	if got, _ := m.retryZero(s); got != "zero-once" {
		t.Errorf("retry %q, want zero-once (least visited, not pruned)", got)
	}
	delete(m.pruned, [2]int64{s, ids["pruned"]})
	if got, _ := m.retryZero(s); got != "zero-once" && got != "pruned" {
		t.Errorf("retry %q, want a thought visited once", got)
	}
	if got, _ := m.retryZero(other); got != "" {
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
		if got, _ := m.guide(1, nil, true, agent.Train); got != tt.train {
			t.Errorf("margin %v, training: guide %q, want %q", tt.margin, got, tt.train)
		}
		if got, _ := m.guide(1, nil, true, agent.Eval); got != tt.eval {
			t.Errorf("margin %v, evaluation: guide %q, want %q", tt.margin, got, tt.eval)
		}
	}
	for _, bad := range []float64{-0.1, 1, math.NaN()} {
		if _, err := New(Config{TieMargin: bad}, Deps{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}, Checker: forgetoff.Checker{}, Embedder: offline.New(64)}); err == nil {
			t.Errorf("tie margin %v was accepted", bad)
		}
	}
}
