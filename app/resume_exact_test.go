package app_test

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/memstream"
)

// memoryCounts sums the SAMem memory of the run's latest checkpoint: Q
// updates (visits), state members and thought members.
func memoryCounts(t *testing.T, run string) (visits, states, thoughts int64) {
	st, _ := latestSAMem(t, run)
	for _, q := range st.QTable {
		visits += q.Visits
	}
	for _, c := range st.States {
		states += c.Members
	}
	for _, c := range st.Thoughts {
		thoughts += c.Members
	}
	return
}

func stepsOf(res []app.TrainResult) (steps, episodes int64) {
	for _, it := range res[0].History {
		steps += int64(it.Steps)
		episodes += int64(it.Episodes)
	}
	return
}

// TestResumeExactAfterServerDeath: the model server dies
// in the middle of an iteration while 2 workers play; the same command
// resumes once it is back. The Q updates and cluster members of the final
// memory stand to the steps played exactly as in a run that never failed:
// nothing of an episode cut short is counted twice.
func TestResumeExactAfterServerDeath(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: trains twice against a model server that dies mid-iteration (runs without -short)")
	}
	ctx := context.Background()
	// A run that never fails gives the relation of memory to steps.
	clean := openaiConfig(t, llmtest.NewServer(t, faults.SAMemReplies()).URL, 2, 2, 0)
	clean.SAMem.NoForgetting = true
	res, err := app.Train(ctx, clean, streams(new(bytes.Buffer)))
	if err != nil {
		t.Fatal(err)
	}
	steps, eps := stepsOf(res)
	v, s, th := memoryCounts(t, clean.Run)
	t.Logf("clean: %d steps in %d episodes: %d Q updates, %d state members, %d thought members", steps, eps, v, s, th)
	dv, ds, dth := v-steps, s-steps, th-steps

	// The server dies after 150 calls (mid iteration 2) and comes back.
	var dead atomic.Bool
	var n atomic.Int64
	srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		if n.Add(1) > 150 {
			dead.Store(true)
		}
		if dead.Load() {
			return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusInternalServerError, Message: "killed"}}
		}
		return faults.SAMemReplies()(c)
	})
	cfg := openaiConfig(t, srv.URL, 2, 2, 0)
	cfg.SAMem.NoForgetting = true
	var out bytes.Buffer
	if _, err := app.Train(ctx, cfg, streams(&out)); err == nil {
		t.Fatalf("training survived a dead server:\n%s", out.String())
	}
	srv.SetHandler(faults.SAMemReplies())
	out.Reset()
	res, err = app.Train(ctx, cfg, streams(&out))
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out.String())
	}
	steps, eps = stepsOf(res)
	v, s, th = memoryCounts(t, cfg.Run)
	t.Logf("killed and resumed: %d steps in %d episodes: %d Q updates, %d state members, %d thought members", steps, eps, v, s, th)
	if eps != 12 {
		t.Errorf("%d episodes in the history, want 12 (6 tasks x 2 iterations)", eps)
	}
	if v-steps != dv || s-steps != ds || th-steps != dth {
		t.Errorf("memory against steps: Q updates %+d, state members %+d, thought members %+d; a clean run has %+d, %+d, %+d",
			v-steps, s-steps, th-steps, dv, ds, dth)
	}
}

// observationMemories counts the observation memories of the memory
// stream's latest checkpoint in run.
func observationMemories(t *testing.T, run string) (n int64) {
	t.Helper()
	dir, _, err := faults.LatestCheckpoint(t.Context(), filepath.Join(run, "memstream"))
	if err != nil {
		t.Fatal(err)
	}
	mems, err := checkpoints.ReadFile[memstream.Memory](t.Context(), filepath.Join(dir, "memstream", "memstream_memories.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mems {
		if m.Kind == memstream.KindObservation {
			n++
		}
	}
	return n
}

// TestResumeExactMemstreamAfterServerDeath is TestResumeExactAfterServerDeath
// for the memory stream: after the model server died mid-iteration (2 workers) and
// the run resumed, its observation memories stand to the steps played as
// in a run that never failed (one per step), so no memory of an episode
// cut short is kept twice.
func TestResumeExactMemstreamAfterServerDeath(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: trains twice against a model server that dies mid-iteration (runs without -short)")
	}
	ctx := context.Background()
	clean := openaiConfig(t, llmtest.NewServer(t, faults.AllReplies()).URL, 2, 2, 0)
	clean.Methods = []string{"memstream"}
	res, err := app.Train(ctx, clean, streams(new(bytes.Buffer)))
	if err != nil {
		t.Fatal(err)
	}
	steps, eps := stepsOf(res)
	obs := observationMemories(t, clean.Run)
	t.Logf("clean: %d steps in %d episodes: %d observation memories", steps, eps, obs)
	want := obs - steps

	var dead atomic.Bool
	var n atomic.Int64
	srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		if n.Add(1) > 150 {
			dead.Store(true)
		}
		if dead.Load() {
			return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusInternalServerError, Message: "killed"}}
		}
		return faults.AllReplies()(c)
	})
	cfg := openaiConfig(t, srv.URL, 2, 2, 0)
	cfg.Methods = []string{"memstream"}
	var out bytes.Buffer
	if _, err := app.Train(ctx, cfg, streams(&out)); err == nil {
		t.Fatalf("training survived a dead server:\n%s", out.String())
	}
	srv.SetHandler(faults.AllReplies())
	out.Reset()
	res, err = app.Train(ctx, cfg, streams(&out))
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out.String())
	}
	steps, eps = stepsOf(res)
	obs = observationMemories(t, cfg.Run)
	t.Logf("killed and resumed: %d steps in %d episodes: %d observation memories", steps, eps, obs)
	if eps != 12 {
		t.Errorf("%d episodes in the history, want 12 (6 tasks x 2 iterations)", eps)
	}
	if got := obs - steps; got != want {
		t.Errorf("observation memories against steps: %+d; a clean run has %+d", got, want)
	}
}
