package app_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
)

// TestDryRunEstimatesAndWritesNothing: -dry-run against a priced model
// server plays one short episode per method, sends only that episode's
// requests, writes nothing (the run directory is not even made), and
// estimates a whole-run cost of the order of what the run then costs.
func TestDryRunEstimatesAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	srv := llmtest.NewServer(t, faults.SAMemReplies())
	cfg := openaiConfig(t, srv.URL, 2, 1, 0)
	cfg.Run += "/run"
	cfg.LLM.Prices = "fault-chat=1000/2000,fault-embed=100"
	cfg.LLM.Cache = "" // the default: <run>/llm-cache.db, which must not be made
	cfg.DryRun = true
	var log bytes.Buffer
	est, err := app.DryRun(ctx, cfg, app.CmdTrain, &log)
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, log.String())
	}
	if _, err := os.Stat(cfg.Run); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dry run made the run directory: %v", err)
	}
	if len(est) != 1 || est[0].Method != "samem" {
		t.Fatalf("estimates %+v, want one for samem", est)
	}
	e := est[0]
	if sent := e.Usage.Total.Requests; sent == 0 || int(sent) != srv.Requests() {
		t.Errorf("the episode's account says %d requests sent, the server got %d", sent, srv.Requests())
	}
	if e.Steps == 0 || e.Steps > app.DryRunSteps || e.Episodes != 12 || e.CostUSD <= 0 {
		t.Errorf("estimate %+v: want a played episode of at most %d steps, 12 episodes left and a cost", e, app.DryRunSteps)
	}
	var out bytes.Buffer
	app.PrintEstimates(&out, cfg.Resolved(), app.CmdTrain, est)
	for _, want := range []string{"requests sent", "cache hits", "tokens sent", "tokens consumed", "episodes left", "nothing was written"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the dry run's table does not say %q:\n%s", want, out.String())
		}
	}
	// The real run, for the order of magnitude.
	cfg.DryRun = false
	if _, err := app.Train(ctx, cfg, streams(new(bytes.Buffer))); err != nil {
		t.Fatal(err)
	}
	spent := spentIn(t, cfg.Run)
	t.Logf("dry run: %d steps played, estimate $%.2f and %.0f requests for the run; the run spent $%.2f in %d requests\n%s",
		e.Steps, e.CostUSD, e.Calls, spent.CostUSD, spent.Requests, out.String())
	if r := e.CostUSD / spent.CostUSD; r < 0.3 || r > 3 {
		t.Errorf("estimated $%.2f, the run cost $%.2f: off by more than 3 times", e.CostUSD, spent.CostUSD)
	}
}
