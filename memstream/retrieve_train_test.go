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
// then evaluated with parallel episodes (each on its own copy of the
// stream, sharing the trained rows) equals the scan.
func TestRetrieveEqualsScanInTraining(t *testing.T) {
	n := memstream.CompareTop(t)
	ctx := context.Background()
	m, err := memstream.New(memstream.Config{}, memstream.Deps{Embed: offline.New(256), Offline: msoff.Method{}})
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
	trained := n.Load()
	if trained < 200 || m.StreamLen() < 4*memstream.ScanBelow {
		t.Fatalf("%d retrievals compared over %d memories: the test trained too little", trained, m.StreamLen())
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
	t.Logf("%d retrievals in training (%d iterations, %d memories), %d in evaluation, all equal to the scan", trained, len(res.History), m.StreamLen(), n.Load()-trained)
	if n.Load() == trained {
		t.Error("no retrieval in evaluation was compared")
	}
}
