package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/runner"
)

// readAccount reads a saved usage account.
func readAccount(t *testing.T, path string) app.Account {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("usage account: %v", err)
	}
	var a app.Account
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return a
}

// TestFailedTrainingPrintsAndSavesUsage: a training run
// that fails when the model server breaks down prints its usage account and
// saves it in the run directory, with the server's own request count.
func TestFailedTrainingPrintsAndSavesUsage(t *testing.T) {
	// The server answers 30 calls, then fails every one with 500.
	f := faults.NewFaulty(faults.SAMemReplies(), func(n int, _ llmtest.Call) llmtest.Fault {
		if n > 30 {
			return llmtest.Fault{Status: http.StatusInternalServerError, Message: "down"}
		}
		return llmtest.Fault{}
	})
	srv := llmtest.NewServer(t, f.Handler())
	cfg := openaiConfig(t, srv.URL, 2, 1, 1)
	var out bytes.Buffer
	res, err := app.Train(context.Background(), cfg, streams(&out))
	if err == nil {
		t.Fatalf("Train succeeded against a failing server:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "model usage (openai backend), whole run:") {
		t.Errorf("a failed run printed no usage account:\n%s", out.String())
	}
	acct := readAccount(t, filepath.Join(cfg.Run, app.TrainUsageFile))
	if acct.Run.Total.Requests != int64(srv.Requests()) || acct.Methods["samem"].Total.Requests != int64(srv.Requests()) {
		t.Errorf("saved account: run %d, samem %d requests; the server saw %d", acct.Run.Total.Requests, acct.Methods["samem"].Total.Requests, srv.Requests())
	}
	// Every failed call was tried twice (-retries 1): requests are the
	// answered calls, the failures and their retries.
	if tot := acct.Run.Total; tot.Errors < 1 || tot.Retries != tot.Errors || tot.Requests != tot.Calls+tot.Retries+tot.Errors || tot.EmbedTexts == 0 {
		t.Errorf("saved account total = %+v; want failures, one retry each, texts embedded", tot)
	}
	if len(res) != 1 || res[0].Usage.Total != acct.Methods["samem"].Total {
		t.Errorf("the result's usage differs from the saved account: %+v", res)
	}

}

// TestEvalErroredEpisodes: episodes that end in a model
// error are errored, not failed; eval returns ErrErrored, keeps its results
// in eval/<split>.partial, and leaves the complete earlier results and the
// report as they were. -max-errors tolerates them.
func TestEvalErroredEpisodes(t *testing.T) {
	srv := llmtest.NewServer(t, faults.SAMemReplies())
	cfg := openaiConfig(t, srv.URL, 1, 1, 0)
	cfg.Methods = []string{"nomemory"}
	cfg.Tasks = 3
	ctx := context.Background()
	var out bytes.Buffer
	good, err := app.Eval(ctx, cfg, streams(&out))
	if err != nil {
		t.Fatalf("Eval: %v\n%s", err, out.String())
	}
	if good[0].Errors != 0 || good[0].Completed != 3 {
		t.Fatalf("healthy eval: %+v", good[0])
	}
	dir, _, err := app.EvalDir(cfg) // -tasks 3 names the evaluation's directory
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, app.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(app.ReportPath(cfg.Run, filepath.Base(dir)), "report.md")
	reportBefore, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}

	// The model now answers 404 (a wrong path): every episode errors.
	srv.SetHandler(llmtest.Always(llmtest.Fault{Status: http.StatusNotFound, Message: "no such path"}))
	out.Reset()
	res, err := app.Eval(ctx, cfg, streams(&out))
	if !errors.Is(err, app.ErrErrored) {
		t.Fatalf("Eval with a failing model: err = %v, want ErrErrored\n%s", err, out.String())
	}
	if !strings.Contains(err.Error(), "nomemory 3 of 3") || !strings.Contains(err.Error(), "not found") {
		t.Errorf("error does not name the method, the count and the cause: %v", err)
	}
	if r := res[0]; r.Errors != 3 || r.Completed != 0 || r.SuccessRate != 0 || r.SPL != nil {
		t.Errorf("errored eval row = %+v; want 3 errored, 0 completed, no SPL", r)
	}
	after, _ := os.ReadFile(filepath.Join(dir, app.SummaryFile))
	if !bytes.Equal(before, after) {
		t.Error("a failed evaluation replaced the complete earlier summary")
	}
	if r, _ := os.ReadFile(report); !bytes.Equal(r, reportBefore) {
		t.Error("a failed evaluation redrew the report")
	}
	var partial []app.EvalResult
	b, err := os.ReadFile(filepath.Join(dir+app.PartialSuffix, app.SummaryFile))
	if err != nil || json.Unmarshal(b, &partial) != nil || len(partial) != 1 || partial[0].Errors != 3 {
		t.Fatalf("partial summary: %v, %s", err, b)
	}
	if !strings.Contains(out.String(), "model usage (openai backend)") {
		t.Errorf("a failed eval printed no usage account:\n%s", out.String())
	}
	acct := readAccount(t, filepath.Join(dir+app.PartialSuffix, app.EvalUsageFile))
	if f := acct.Methods["nomemory"].Total.Errors; f != 3 {
		t.Errorf("partial usage: %d failures, want 3 (one per episode)", f)
	}

	// Tolerated: the results are complete and replace the earlier ones.
	cfg.MaxErrors = 3
	if _, err := app.Eval(ctx, cfg, streams(&out)); err != nil {
		t.Fatalf("Eval with -max-errors 3: %v", err)
	}
	if _, err := os.Stat(dir + app.PartialSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a complete evaluation left the partial one: %v", err)
	}
	var now []app.EvalResult
	b, _ = os.ReadFile(filepath.Join(dir, app.SummaryFile))
	if json.Unmarshal(b, &now) != nil || len(now) != 1 || now[0].Errors != 3 {
		t.Errorf("tolerated evaluation summary: %s", b)
	}
}

// TestProgressLinesInLogs: when stderr is not a
// terminal a batch prints a line at every tenth and on every tick of the
// clock (the ticker is driven by the test, not by wall-clock time).
func TestProgressLinesInLogs(t *testing.T) {
	var buf bytes.Buffer
	p := app.NewProgress(&buf, false)
	ticks := make(chan time.Time)
	now := time.Unix(1000, 0)
	p.Now = func() time.Time { return now }
	p.Ticker = func(time.Duration) (<-chan time.Time, func()) { return ticks, func() {} }
	p.Begin("samem iteration 1/9", 20)
	now = now.Add(40 * time.Second)
	for i := 0; i < 5; i++ { // tenths: lines at 2 and 4 of 20
		p.Done(runnerEpisode(i == 0, i == 1))
	}
	// A long silence: two ticks. The ticker's goroutine has taken each tick
	// once the send returns, and End waits for it to finish.
	now = now.Add(60 * time.Second)
	ticks <- now
	ticks <- now
	p.End("samem iteration 1/9: done")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		"samem iteration 1/9: 2/20 episodes, 1 won, 1 errored, 40s elapsed, ETA 6m0s",
		"samem iteration 1/9: 4/20 episodes, 1 won, 1 errored, 40s elapsed, ETA 2m40s",
		"samem iteration 1/9: 5/20 episodes, 1 won, 1 errored, 1m40s elapsed, ETA 5m0s",
		"samem iteration 1/9: 5/20 episodes, 1 won, 1 errored, 1m40s elapsed, ETA 5m0s",
		"samem iteration 1/9: done",
	}
	if len(lines) != len(want) {
		t.Fatalf("lines:\n%s\nwant:\n%s", buf.String(), strings.Join(want, "\n"))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i, lines[i], want[i])
		}
	}
}

func runnerEpisode(won, errored bool) runner.Episode {
	var e runner.Episode
	e.Outcome.Won = won
	if errored {
		e.Outcome.Err = "model down"
	}
	return e
}
