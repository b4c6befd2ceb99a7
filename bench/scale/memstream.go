package scale

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"time"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/memstream"
)

// MemstreamConfig configures the memory-stream retrieval measurement.
type MemstreamConfig struct {
	Memories int // memories in the stream (default 100,000)
	Queries  int // retrievals timed (default 400)
	// ScanQueries are the retrievals also timed as the scan that scores
	// every memory (Stream.Score), the baseline (default 20).
	ScanQueries int
	Dim         int // embedding dimension (default 1024, as seed 002)
	Seed        uint64
}

// MemstreamResult is what MemstreamRetrieval measured.
type MemstreamResult struct {
	// Memories and Texts are the stream's memories and distinct texts (one
	// embedding each).
	Memories, Texts int
	// Median and P90 time one Retrieve of 5 memories (the method's k),
	// query embedding included; Scan is the median of Score over every
	// memory, the first 5 taken, on the same queries. They are the CPU
	// time of the measuring thread when ThreadCPU (Linux), else wall time;
	// WallMedian and WallScan are the wall-clock medians.
	Median, P90, Scan    time.Duration
	WallMedian, WallScan time.Duration
	ThreadCPU            bool
	// Compared retrievals were checked against the scan; Equal of them
	// returned exactly its first 5 (memories, order, scores).
	Compared, Equal int
	// Build is the time to play the episodes and add the memories; Embed
	// the first retrieval, which embeds every text.
	Build, Embed time.Duration
}

// MemstreamRetrieval builds a memory stream of household observations the
// way training grows one (the training tasks played in turn, iteration
// after iteration, each step's observation a memory, about 7 % of the
// memories reflections) with the offline hashing embedder, then times
// Retrieve against the scan that scores every memory, on queries of the
// method's form (goal and observation), checking that both return the same.
//
// The episodes are played with random admissible actions (not the agent:
// the agent's retrievals are what is measured). Importance is 2, 5 or 8
// as the offline roles rate household observations (40, 40 and 20 % of a
// real run's memories).
func MemstreamRetrieval(ctx context.Context, cfg MemstreamConfig) (MemstreamResult, error) {
	if cfg.Memories <= 0 {
		cfg.Memories = 100_000
	}
	if cfg.Queries <= 0 {
		cfg.Queries = 400
	}
	if cfg.ScanQueries <= 0 {
		cfg.ScanQueries = 20
	}
	if cfg.Dim <= 0 {
		cfg.Dim = 1024
	}
	var res MemstreamResult
	began := time.Now()
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		return res, err
	}
	env, err := suite.Open(ctx)
	if err != nil {
		return res, err
	}
	defer env.Close()
	tasks, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		return res, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 26))
	s := memstream.NewStream()
	var queries []string
	now := 0
	importance := func() float64 {
		switch x := rng.IntN(10); {
		case x < 4:
			return 2
		case x < 8:
			return 5
		}
		return 8
	}
	texts := map[string]bool{}
	add := func(kind, text, task string) {
		s.Add(kind, text, task, now, importance(), nil)
		texts[text] = true
	}
	for s.Len() < cfg.Memories {
		for _, task := range tasks {
			if s.Len() >= cfg.Memories {
				break
			}
			obs, err := env.Reset(ctx, task)
			if err != nil {
				return res, err
			}
			for step := 0; step < 20 && s.Len() < cfg.Memories; step++ {
				add(memstream.KindObservation, obs.Text, task.ID)
				queries = append(queries, task.Goal+"\n"+obs.Text)
				if rng.IntN(14) == 0 {
					add(memstream.KindReflection, fmt.Sprintf("To %s, first look in the places not searched yet.", task.Goal), task.ID)
				}
				now++
				if len(obs.Admissible) == 0 {
					break
				}
				r, err := env.Step(ctx, obs.Admissible[rng.IntN(len(obs.Admissible))])
				if err != nil {
					return res, err
				}
				if r.Done {
					break
				}
				obs = r.Observation
			}
		}
	}
	res.Build = time.Since(began)
	res.Memories, res.Texts = s.Len(), len(texts)
	emb := offline.New(cfg.Dim)
	w := memstream.PaperWeights
	t0 := time.Now()
	if _, err := s.Retrieve(ctx, emb, queries[0], now, 5, memstream.DefaultDecay, w, nil); err != nil {
		return res, err
	}
	res.Embed = time.Since(t0)
	// One goroutine on one thread: its CPU time is the cost on one core.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, res.ThreadCPU = threadCPU()
	clock := func() (wall, cpu time.Duration) {
		c, _ := threadCPU()
		return time.Duration(time.Now().UnixNano()), c
	}
	since := func(w0, c0 time.Duration) (wall, cpu time.Duration) {
		w1, c1 := clock()
		if !res.ThreadCPU {
			c1, c0 = w1, w0
		}
		return w1 - w0, c1 - c0
	}
	var times, scans, wtimes, wscans []time.Duration
	for i := range cfg.Queries {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		q := queries[rng.IntN(len(queries))]
		var want []memstream.Scored
		if i < cfg.ScanQueries {
			w0, c0 := clock()
			all, err := s.Score(ctx, emb, q, now, memstream.DefaultDecay, w, nil)
			if err != nil {
				return res, err
			}
			want = all[:min(5, len(all))]
			wd, cd := since(w0, c0)
			wscans, scans = append(wscans, wd), append(scans, cd)
		}
		w0, c0 := clock()
		got, err := s.Retrieve(ctx, emb, q, now, 5, memstream.DefaultDecay, w, nil)
		if err != nil {
			return res, err
		}
		wd, cd := since(w0, c0)
		wtimes, times = append(wtimes, wd), append(times, cd)
		if want != nil {
			res.Compared++
			if reflect.DeepEqual(got, want) {
				res.Equal++
			}
		}
		now++
	}
	res.Median, res.P90, res.Scan = median(times), quantile(times, 0.9), median(scans)
	res.WallMedian, res.WallScan = median(wtimes), median(wscans)
	return res, nil
}
