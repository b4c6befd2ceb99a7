package scale

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/samem/trainer/bench/fakeai"
	"github.com/samem/trainer/envbridge"
	forgetoff "github.com/samem/trainer/forget/offline"
	"github.com/samem/trainer/llm/openai"
	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/samem"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// ChainReply answers the SAMem roles' prompts the way a model that
// understood them would, as a function of the current observation only:
// the summariser gets the observation back as the state, the thinker a
// thought naming the state and the action "advance". Anything else gets
// "ok". Equal situations thus give equal states and thoughts whatever the
// history or the goal, so runs are comparable across worker counts.
func ChainReply(msgs []fakeai.Message) string {
	user := ""
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			user = msgs[i].Content
			break
		}
	}
	const obsLabel, sumLabel, sitLabel = "Current observation:", "Summary of the current situation:", "Current situation:"
	switch {
	case strings.HasSuffix(strings.TrimSpace(user), sumLabel):
		i := strings.LastIndex(user, obsLabel)
		if i < 0 {
			return "ok"
		}
		body := strings.TrimSuffix(strings.TrimSpace(user[i+len(obsLabel):]), sumLabel)
		var keep []string
		for _, line := range strings.Split(body, "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, ">") {
				keep = append(keep, line)
			}
		}
		return "Summary: " + strings.Join(keep, " ")
	case strings.HasPrefix(user, "Task:") && strings.Contains(user, "\nThought: ") && strings.Contains(user, obsLabel):
		// The action call of the two-call pipeline (seed 002 Eq. 3).
		return "Action: advance"
	case strings.Contains(user, sitLabel):
		i := strings.Index(user, sitLabel) + len(sitLabel)
		state := strings.TrimSpace(user[i:])
		if j := strings.IndexByte(state, '\n'); j >= 0 {
			state = state[:j]
		}
		return fmt.Sprintf("Thought: %s The way on is forward, so I advance.\nAction: advance", state)
	}
	return "ok"
}

// ChainRun is one training run of SAMem with the model roles through
// llm/openai against a fakeai server, on the chain world.
type ChainRun struct {
	URL         string // the server's base URL
	Dim         int    // its embedding dimension
	Workers     int
	Tasks       int // episodes per iteration
	Length      int // steps per episode
	Iterations  int
	SharedStart bool // the first room is one state shared by all tasks
	// ClientLimit is the openai client's MaxConcurrent; 0 means
	// max(Workers, openai.DefaultMaxConcurrent).
	ClientLimit int
	Tag         string // makes this run's texts its own
	Seed        int64
}

// Train trains a fresh SAMem as r says and returns it. The openai client's
// MaxConcurrent is at least the number of workers: with its default (8),
// 16 workers measured a speedup of about 8, not 16, because half of them
// wait for a slot in the client's semaphore.
func (r ChainRun) Train(ctx context.Context) (*samem.Method, error) {
	m, _, err := r.train(ctx)
	return m, err
}

// train is Train that also returns the time the iterations' episodes took
// (runner.IterationStats.Seconds: the episodes, without the checkpoint
// commit that follows each iteration).
func (r ChainRun) train(ctx context.Context) (*samem.Method, time.Duration, error) {
	limit := r.ClientLimit
	if limit <= 0 {
		limit = max(r.Workers, openai.DefaultMaxConcurrent)
	}
	client, err := openai.New(openai.Config{
		ChatModel: "bench-chat", ChatBaseURLs: []string{r.URL},
		EmbedModel: "bench-embed", EmbedDim: r.Dim,
		MaxConcurrent: limit,
		Timeout:       time.Minute, Retries: -1,
	})
	if err != nil {
		return nil, 0, err
	}
	m, err := samem.New(samem.Config{NoForgetting: true}, samem.Deps{
		Summarizer: summarize.NewLLM(client), Thinker: thought.NewLLM(client, client),
		Checker: forgetoff.Checker{}, Embedder: client})
	if err != nil {
		return nil, 0, err
	}
	suite := &chainSuite{N: r.Tasks, Length: r.Length, Tag: r.Tag, SharedStart: r.SharedStart}
	tasks, _ := suite.Tasks(envbridge.SplitTrain)
	dir, err := os.MkdirTemp("", "bench-chain-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	res, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: tasks,
		Iterations: max(1, r.Iterations), Workers: r.Workers, Seed: r.Seed, Dir: dir})
	if err != nil {
		return nil, 0, err
	}
	var episodes time.Duration
	for _, it := range res.History {
		episodes += time.Duration(it.Seconds * float64(time.Second))
		if it.Errors > 0 || it.Successes != it.Episodes {
			return nil, 0, fmt.Errorf("chain run %s: iteration %d: %d errors, %d of %d won", r.Tag, it.Iteration, it.Errors, it.Successes, it.Episodes)
		}
	}
	return m, episodes, nil
}

// ParallelConfig configures the parallel-episodes measurement.
type ParallelConfig struct {
	Workers  []int         // default 1, 2, 4, 8, 16
	Episodes int           // per worker count (default 16)
	Length   int           // steps per episode (default 2)
	Latency  time.Duration // added to every model call (default 200 ms)
	Dim      int           // embedding dimension (default 1024)
	// ClientLimit, when positive, is the openai client's MaxConcurrent for
	// every worker count instead of max(W, 8): with the client's default (8)
	// 16 workers get only 8 calls in flight.
	ClientLimit int
	// PerWorker, when positive, plays PerWorker episodes per worker (W x
	// PerWorker episodes with W workers) instead of Episodes for every
	// worker count: the throughput of hundreds of workers is measured on
	// as many episodes, and compared with one worker's by Throughput.
	PerWorker int
}

// ParallelPoint is one worker count's run.
type ParallelPoint struct {
	Workers int
	// Wall is the wall-clock time of the episodes (the iteration's
	// IterationStats.Seconds); Total adds the start-up and the checkpoint
	// commit, whose fsyncs wait on a disk shared with other work.
	Wall, Total time.Duration
	Speedup     float64 // Wall with one worker / Wall with Workers
	// Episodes played and their Throughput (episodes per second of Wall).
	Episodes   int
	Throughput float64
	Limit      int   // the client's MaxConcurrent
	PeakCall   int64 // most model calls the server held at once
	Calls      int64 // chat and embedding calls made
}

// Parallel trains SAMem for one iteration of Episodes chain episodes (all
// texts distinct, so no cache hit favours one worker count) with each worker
// count against a server adding Latency to every call, and returns the
// wall-clock times. The first worker count is the baseline of the speedups.
//
// Profile (2026-11-22, 64 s of wall time): 0.6 s of CPU in all, mostly JSON
// decoding of the 1024-float embedding replies and syscalls: the run is
// latency-bound, and the server saw W calls in flight at W workers, so
// nothing serialises model calls. SAMem takes its memory lock only around
// clustering and the Q update, never across an Embed or Chat call (its
// EndIteration holds it across the forgetting checks, but the runner calls
// that between iterations, when no episode runs), and runner.playAll shares
// nothing between workers but the result list.
func Parallel(ctx context.Context, cfg ParallelConfig) ([]ParallelPoint, error) {
	if len(cfg.Workers) == 0 {
		cfg.Workers = []int{1, 2, 4, 8, 16}
	}
	if cfg.Episodes <= 0 {
		cfg.Episodes = 16
	}
	if cfg.Length <= 0 {
		cfg.Length = 2
	}
	if cfg.Latency == 0 {
		cfg.Latency = 200 * time.Millisecond
	}
	if cfg.Dim <= 0 {
		cfg.Dim = 1024
	}
	var out []ParallelPoint
	for _, w := range cfg.Workers {
		srv := fakeai.New(fakeai.Config{Latency: cfg.Latency, Dim: cfg.Dim, Reply: ChainReply})
		t0 := time.Now()
		episodes := cfg.Episodes
		if cfg.PerWorker > 0 {
			episodes = w * cfg.PerWorker
		}
		run := ChainRun{URL: srv.URL, Dim: cfg.Dim, Workers: w, Tasks: episodes, Length: cfg.Length,
			Iterations: 1, Tag: fmt.Sprintf("(run w%d)", w), Seed: 1, ClientLimit: cfg.ClientLimit}
		_, wall, err := run.train(ctx)
		total := time.Since(t0)
		chat, emb := srv.Calls()
		p := ParallelPoint{Workers: w, Wall: wall, Total: total, PeakCall: srv.PeakInFlight(), Calls: chat + emb,
			Limit: max(cfg.ClientLimit, 0), Episodes: episodes}
		if wall > 0 {
			p.Throughput = float64(episodes) / wall.Seconds()
		}
		if p.Limit == 0 {
			p.Limit = max(w, openai.DefaultMaxConcurrent)
		}
		srv.Close()
		if err != nil {
			return out, fmt.Errorf("%d workers: %w", w, err)
		}
		p.Speedup = 1
		if len(out) > 0 {
			p.Speedup = out[0].Wall.Seconds() / wall.Seconds()
		}
		out = append(out, p)
	}
	return out, nil
}
