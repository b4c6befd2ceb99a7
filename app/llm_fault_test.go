package app_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/openai"
)

// openaiConfig is a short SAMem training run on the household world through
// the openai backend at url: 6 tasks (one per type), 6 steps each.
func openaiConfig(t *testing.T, url string, iterations, workers, retries int) app.Config {
	cfg := app.Defaults()
	cfg.Run = t.TempDir()
	cfg.Workers = workers
	cfg.Iterations = iterations
	cfg.PerType = 1
	cfg.Env.MaxSteps = 6
	cfg.LLM.Backend = "openai"
	cfg.LLM.ChatModel = "fault-chat"
	cfg.LLM.EmbedModel = "fault-embed"
	cfg.LLM.EmbedDim = 32
	cfg.LLM.SendDimensions = true
	cfg.LLM.ChatURLs = []string{url}
	// A hang guard, not part of any verdict: a normal reply on a loaded
	// machine never comes near it (a test of the deadline itself holds a
	// request until the client gives up, see TestTrainSurvivesModelServerFaults).
	cfg.LLM.Timeout = 30 * time.Second
	cfg.LLM.Retries = retries
	cfg.LLM.Concurrency = 4
	cfg.LLM.Cache = "off"
	return cfg
}

func streams(out *bytes.Buffer) app.Streams { return app.Streams{Out: out, Err: out} }

// latestSAMem is the memory recorded in the run's latest checkpoint of
// SAMem, read back through the store (so the checkpoint is verified).
func latestSAMem(t *testing.T, run string) (checkpoints.SAMemState, checkpoints.Meta) {
	t.Helper()
	dir, meta, err := faults.LatestCheckpoint(context.Background(), run+"/samem")
	if err != nil {
		t.Fatalf("latest checkpoint: %v", err)
	}
	st, err := checkpoints.LoadSAMem(context.Background(), dir+"/samem", int(meta.EmbedDim))
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return st, meta
}

// TestTrainSurvivesModelServerFaults runs a real training run against a
// server that answers with 429 storms, 5xx bursts, garbage, truncated and
// empty bodies, a reply slower than the deadline (held until the client
// gives up), and that goes away for a second and comes back. The run retries through all of it: no episode
// fails, and the final checkpoint holds the memory learned.
func TestTrainSurvivesModelServerFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: a training run through every model-server fault (runs without -short)")
	}
	var gate *faults.Gate
	var upErr atomic.Value
	// Faults are spaced out so that each one is retried on its own; the
	// two-call bursts make one request fail twice in a row.
	plan := func(n int, c llmtest.Call) llmtest.Fault {
		switch n {
		case 10, 11:
			return llmtest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "0", Message: "Rate limit reached"}
		case 25, 26:
			return llmtest.Fault{Status: http.StatusServiceUnavailable}
		case 40:
			return llmtest.Fault{Status: http.StatusBadGateway, Body: "<html><body>502 Bad Gateway</body></html>", ContentType: "text/html"}
		case 55:
			return llmtest.Fault{Body: "<html><body>Welcome to nginx!</body></html>", ContentType: "text/html"}
		case 70:
			return llmtest.Fault{Truncate: true}
		case 85:
			return llmtest.Fault{Empty: true}
		case 100:
			return llmtest.Fault{Body: `{"choices": [{"message": {"content": "Thought`, ContentType: "application/json"}
		case 115:
			// Held until the client's 5 s deadline passes and it hangs up.
			return llmtest.Fault{Delay: time.Hour}
		case 130:
			// The server goes away (this request and every new connection
			// fail) and comes back 800 ms later. The verdict does not hang
			// on those 800 ms: the client's 5 retries of the call span at
			// least 0.25+0.5+1+2+4 = 7.75 s (default backoff, jitter to
			// half), and the outage costs at least one retry however short.
			gate.Down()
			time.AfterFunc(800*time.Millisecond, func() {
				if err := gate.Up(); err != nil {
					upErr.Store(err)
				}
			})
			return llmtest.Fault{Hangup: true}
		}
		return llmtest.Fault{}
	}
	f := faults.NewFaulty(faults.SAMemReplies(), plan)
	srv := llmtest.NewServer(t, f.Handler())
	gate = faults.NewGate(t, srv.URL)

	// One worker and no forgetting: the run is deterministic and its memory
	// large, so it can be compared with a run without faults.
	cfg := openaiConfig(t, gate.URL, 2, 1, 5)
	cfg.SAMem.NoForgetting = true
	// The deadline of the reply held at call 115 (which it always passes,
	// being held until the client hangs up); 5 s so that no normal reply
	// on a loaded machine comes near it.
	cfg.LLM.Timeout = 5 * time.Second
	var out bytes.Buffer
	res, err := app.Train(context.Background(), cfg, streams(&out))
	if err, ok := upErr.Load().(error); ok {
		t.Fatalf("the model server could not come back on its address: %v", err)
	}
	if err != nil {
		t.Fatalf("Train: %v\n%s", err, out.String())
	}
	if f.Calls() < 140 || f.Faults() != 11 {
		t.Fatalf("the run made %d model calls with %d faults; the fault plan needs 140 calls and injects 11", f.Calls(), f.Faults())
	}
	for _, it := range res[0].History {
		if it.Errors != 0 {
			t.Errorf("iteration %d: %d episode errors; every fault should have been retried\n%s", it.Iteration, it.Errors, out.String())
		}
	}
	// Every fault costs at least one retry (the outage more than one).
	if m := regexp.MustCompile(`llm total .* (\d+) retries 0 failures`).FindStringSubmatch(out.String()); m == nil || atoi(m[1]) < 11 {
		t.Errorf("usage report does not show at least 11 retries and no failures:\n%s", out.String())
	}
	// The account counts every attempt: answered ones and
	// retries; during the outage attempts never reach the server, so the
	// server's own count is a lower bound here (the e2e test checks equality).
	if u := res[0].Usage.Total; u.Requests < int64(srv.Requests()) || u.Requests != u.Calls+u.Retries {
		t.Errorf("usage: %d requests (%d answered + %d retries); the server saw %d", u.Requests, u.Calls, u.Retries, srv.Requests())
	}
	got, meta := latestSAMem(t, cfg.Run)
	if meta.Iteration != 1 || len(got.States) == 0 || len(got.Thoughts) == 0 || len(got.QTable) == 0 {
		t.Fatalf("final checkpoint: iteration %d, %d states, %d thoughts, %d Q entries; want iteration 1 with memory", meta.Iteration, len(got.States), len(got.Thoughts), len(got.QTable))
	}

	// The same run against a server without faults learns the same memory.
	clean := openaiConfig(t, llmtest.NewServer(t, faults.SAMemReplies()).URL, 2, 1, 5)
	clean.SAMem.NoForgetting = true
	if _, err := app.Train(context.Background(), clean, streams(new(bytes.Buffer))); err != nil {
		t.Fatalf("clean run: %v", err)
	}
	want, _ := latestSAMem(t, clean.Run)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("memory after the faults differs from a clean run's: %d/%d/%d states/thoughts/Q, want %d/%d/%d",
			len(got.States), len(got.Thoughts), len(got.QTable), len(want.States), len(want.Thoughts), len(want.QTable))
	}
}

// TestTrainFailsAfterRetryBudget lets the server answer one clean iteration,
// then fail every call with 503. The run must stop (not play on with every
// episode failing) with an error naming the role, the model and the cause;
// the last checkpoint holds the first iteration's memory; and once the
// server is back the same command resumes and finishes.
func TestTrainFailsAfterRetryBudget(t *testing.T) {
	// A clean one-iteration run counts the calls of iteration 1 (one worker:
	// the same calls in the same order).
	clean := faults.NewFaulty(faults.SAMemReplies(), func(int, llmtest.Call) llmtest.Fault { return llmtest.Fault{} })
	srv1 := llmtest.NewServer(t, clean.Handler())
	cleanCfg := openaiConfig(t, srv1.URL, 1, 1, 1)
	if _, err := app.Train(context.Background(), cleanCfg, streams(new(bytes.Buffer))); err != nil {
		t.Fatalf("clean iteration: %v", err)
	}
	cleanState, _ := latestSAMem(t, cleanCfg.Run)
	perIteration := clean.Calls()

	broken := faults.NewFaulty(faults.SAMemReplies(), func(n int, c llmtest.Call) llmtest.Fault {
		if n > perIteration+15 {
			return llmtest.Fault{Status: http.StatusServiceUnavailable, Message: "The engine is currently overloaded"}
		}
		return llmtest.Fault{}
	})
	srv := llmtest.NewServer(t, broken.Handler())
	cfg := openaiConfig(t, srv.URL, 3, 1, 1)
	var out bytes.Buffer
	_, err := app.Train(context.Background(), cfg, streams(&out))
	if err == nil {
		t.Fatalf("Train with a dead server succeeded:\n%s", out.String())
	}
	var oe *openai.Error
	if !errors.As(err, &oe) || !errors.Is(err, openai.ErrServer) {
		t.Fatalf("Train error %v: want an *openai.Error of kind ErrServer", err)
	}
	msg := err.Error()
	for _, want := range []string{"fault-chat", "(" + oe.Purpose + ")", "server error", "503", "after 2 attempts", "overloaded"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %q", msg, want)
		}
	}
	if oe.Purpose != "summarize" && oe.Purpose != "think" && oe.Purpose != "check" && oe.Purpose != "embed" {
		t.Errorf("error names role %q, want one of SAMem's", oe.Purpose)
	}
	// It stopped at the first failure: a handful of calls past the
	// breaking point, not an iteration's worth of failing episodes.
	if extra := broken.Calls() - (perIteration + 15); extra > 10 {
		t.Errorf("%d calls after the server broke: the run played on instead of stopping", extra)
	}
	// The failure cut an episode of iteration 2 short: no checkpoint holds
	// part of it. The last one is the end of iteration 1,
	// exactly the memory of a clean one-iteration run.
	st, meta := latestSAMem(t, cfg.Run)
	if meta.Iteration != 0 || len(st.States) == 0 || !reflect.DeepEqual(st, cleanState) {
		t.Errorf("last checkpoint: iteration %d, %d states, %d thoughts; want the end of iteration 1, equal to a clean run's", meta.Iteration, len(st.States), len(st.Thoughts))
	}

	// The server comes back: the same command resumes and finishes.
	srv.SetHandler(faults.SAMemReplies())
	out.Reset()
	res, err := app.Train(context.Background(), cfg, streams(&out))
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out.String())
	}
	if res[0].ResumedFrom == "" || len(res[0].History) != 3 {
		t.Errorf("resume: resumed from %q, %d iterations; want a resume to 3 iterations", res[0].ResumedFrom, len(res[0].History))
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
