package memstream_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/memstream"
	msoff "github.com/samem/trainer/memstream/offline"
	"github.com/samem/trainer/runner"
)

// TestRetrieveEqualsScanInTraining: every retrieval of the memory-stream
// agent training on household tasks (offline roles, hashing embedder) and
// then evaluated with parallel episodes equals the scan, both with the
// default episode-scoped stream (every episode searches its own stream,
// nothing persists; household episodes keep it under ScanBelow memories,
// where Retrieve scans) and with Carry (one stream over training; each
// evaluation episode on its own copy of it, sharing the trained rows).
func TestRetrieveEqualsScanInTraining(t *testing.T) {
	for _, carry := range []bool{false, true} {
		t.Run(map[bool]string{false: "episode", true: "carry"}[carry], func(t *testing.T) {
			retrieveEqualsScanInTraining(t, carry)
		})
	}
}

func retrieveEqualsScanInTraining(t *testing.T, carry bool) {
	all, large := memstream.CompareTop(t)
	ctx := context.Background()
	m, err := memstream.New(memstream.Config{Carry: carry}, memstream.Deps{Embed: offline.New(256), Offline: msoff.Method{}})
	if err != nil {
		t.Fatal(err)
	}
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := suite.Tasks(envbridge.SplitTrain)
	res, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: tasks[:24], Iterations: 2, Workers: 1, Seed: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	trained, trainedLarge := all(), large()
	switch {
	case carry && (trained < 200 || m.StreamLen() < 4*memstream.ScanBelow):
		t.Fatalf("%d retrievals compared over %d memories: the test trained too little", trained, m.StreamLen())
	case !carry && m.StreamLen() != 0:
		t.Fatalf("episode-scoped stream: %d memories kept after training, want none", m.StreamLen())
	case trained < 200:
		t.Fatalf("%d retrievals compared in training: the test searched too little", trained)
	}
	eval, _ := suite.Tasks(envbridge.SplitValidUnseen)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, _ := suite.Open(ctx)
			defer env.Close()
			for i := w; i < 12; i += 4 {
				if _, err := runner.Run(ctx, env, m, agent.Start{Task: eval[i], Mode: agent.Eval, Style: suite.Style(), Rand: rand.New(rand.NewPCG(2, uint64(i)))}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d retrievals in training (%d iterations, %d memories kept; %d on %d memories or more), %d in evaluation (%d on %d or more), all equal to the scan",
		trained, len(res.History), m.StreamLen(), trainedLarge, memstream.ScanBelow, all()-trained, large()-trainedLarge, memstream.ScanBelow)
	if all() == trained {
		t.Error("no retrieval in evaluation was compared")
	}
}
