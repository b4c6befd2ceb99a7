package app_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/runner"
)

// spentIn reads what train commands have spent in run (train-usage.json).
func spentIn(t *testing.T, run string) app.Spent {
	t.Helper()
	a := readAccount(t, filepath.Join(run, app.TrainUsageFile))
	if a.Spent == nil {
		t.Fatalf("%s has no spent record", app.TrainUsageFile)
	}
	return *a.Spent
}

// TestCapsStopBelowAndResumeExactly: against a priced model server, a
// SAMem run with -budget (or -max-requests) at 40 % of what the whole run
// costs stops with ErrBudget at an episode boundary, below the cap, with a
// checkpoint in the middle of the run; the same command with a cap above
// the whole run goes on from there and ends with exactly the memory of an
// uninterrupted run (one worker: the Q-table, states and thoughts).
func TestCapsStopBelowAndResumeExactly(t *testing.T) {
	ctx := context.Background()
	srv := llmtest.NewServer(t, faults.SAMemReplies())
	config := func() app.Config {
		cfg := openaiConfig(t, srv.URL, 2, 1, 0)
		cfg.LLM.Prices = "fault-chat=1000/2000,fault-embed=100"
		return cfg
	}
	clean := config()
	var out bytes.Buffer
	if _, err := app.Train(ctx, clean, streams(&out)); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out.String())
	}
	whole := spentIn(t, clean.Run)
	want, _ := latestSAMem(t, clean.Run)
	t.Logf("uninterrupted run: %d requests, $%.4f, %d episodes", whole.Requests, whole.CostUSD, whole.Episodes)
	if whole.CostUSD <= 0 || whole.Requests <= 0 {
		t.Fatalf("the priced server cost nothing: %+v", whole)
	}
	for _, tc := range []struct {
		flag string
		set  func(c *app.Config, share float64)
		used func(s app.Spent) float64
		cap  func(c app.Config) float64
	}{
		{"budget", func(c *app.Config, f float64) { c.Budget = f * whole.CostUSD },
			func(s app.Spent) float64 { return s.CostUSD }, func(c app.Config) float64 { return c.Budget }},
		{"max-requests", func(c *app.Config, f float64) { c.MaxRequests = int64(f * float64(whole.Requests)) },
			func(s app.Spent) float64 { return float64(s.Requests) }, func(c app.Config) float64 { return float64(c.MaxRequests) }},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			cfg := config()
			tc.set(&cfg, 0.4)
			var out bytes.Buffer
			_, stopped := app.Train(ctx, cfg, streams(&out))
			if !errors.Is(stopped, app.ErrBudget) || !strings.Contains(stopped.Error(), "-"+tc.flag) {
				t.Fatalf("capped run: %v, want ErrBudget naming -%s\n%s", stopped, tc.flag, out.String())
			}
			spent := spentIn(t, cfg.Run)
			if got, limit := tc.used(spent), tc.cap(cfg); got > limit || got < 0.2*limit {
				t.Errorf("capped run spent %v of a cap of %v: want it below the cap, and not stopped long before", got, limit)
			}
			dir, _, err := faults.LatestCheckpoint(ctx, filepath.Join(cfg.Run, "samem"))
			if err != nil {
				t.Fatalf("no checkpoint after the capped run: %v", err)
			}
			if !strings.Contains(stopped.Error(), dir) {
				t.Errorf("the capped run's error does not name its checkpoint %s: %v", dir, stopped)
			}
			it, mid, err := runner.CheckpointProgress(dir)
			if err != nil || it*6+mid == 0 || it*6+mid >= 12 {
				t.Errorf("checkpoint %s after the capped run: %d iterations and %d episodes done (%v); want part of the 12 episodes", dir, it, mid, err)
			}
			tc.set(&cfg, 2)
			out.Reset()
			if _, err := app.Train(ctx, cfg, streams(&out)); err != nil {
				t.Fatalf("resume with a higher cap: %v\n%s", err, out.String())
			}
			got, _ := latestSAMem(t, cfg.Run)
			if len(got.QTable) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("resumed run's memory differs from the uninterrupted run's (%d vs %d Q entries)", len(got.QTable), len(want.QTable))
			}
			after := spentIn(t, cfg.Run)
			t.Logf("-%s: stopped at %+v, after the resume %+v", tc.flag, spent, after)
			if after.Episodes != whole.Episodes {
				t.Errorf("%d episodes over the two commands, the uninterrupted run played %d", after.Episodes, whole.Episodes)
			}
		})
	}
}
