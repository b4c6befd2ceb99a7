package locale2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/internal/testenv"
	"github.com/samem/trainer/llm/local"
)

// children lists the live processes whose parent is this test process.
func children(t *testing.T) []string {
	t.Helper()
	me := strconv.Itoa(os.Getpid())
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 2 && f[1] == me && f[0] != "Z" {
			out = append(out, e.Name()+" "+s[:i+1])
		}
	}
	return out
}

func qtable(t *testing.T, run string) checkpoints.SAMemState {
	t.Helper()
	store, err := checkpoints.Open(filepath.Join(run, "samem"), 0)
	if err != nil {
		t.Fatal(err)
	}
	dir, _, err := store.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st, err := checkpoints.LoadSAMem(context.Background(), filepath.Join(dir, "samem"), 0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSAMemTrainsWithLocalModels: SAMem trains one iteration on two
// household tasks of one step with TinyLlama as summariser and thinker and
// USE as embedder (-llm local); it completes, its calls and tokens are
// counted, no model process outlives it, and replaying its response cache
// (-llm replay, no model process) trains the same memory.
func TestSAMemTrainsWithLocalModels(t *testing.T) {
	if testing.Short() {
		t.Skip("minutes of CPU model time")
	}
	testenv.Need(t, local.Tools() == nil, "node and npm (Debian: apt-get install nodejs npm)")
	dir, err := local.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []local.Role{local.Embed, local.Chat} {
		testenv.Need(t, local.Installed(dir, r), "the local "+string(r)+" model in "+dir+" (make local-models)")
	}
	if c := children(t); len(c) > 0 {
		t.Fatalf("child processes before the run: %v", c)
	}
	cfg := app.Defaults()
	cfg.Run = t.TempDir()
	cfg.Workers = 1 // replay reproduces a one-worker run exactly
	cfg.Iterations = 1
	cfg.PerType = 1
	cfg.Tasks = 2
	cfg.Env.MaxSteps = 1
	cfg.LLM.Backend = "local"
	cfg.LLM.EmbedDim = local.EmbedDim
	cfg.LLM.LocalMaxTokens = 24
	var log bytes.Buffer
	res, err := app.Train(context.Background(), cfg, app.Streams{Out: &log, Err: &log})
	t.Logf("training output:\n%s", log.String())
	if err != nil {
		t.Fatalf("train: %v", err)
	}
	if len(res) != 1 || len(res[0].History) != 1 || res[0].Checkpoint == "" {
		t.Fatalf("train results %+v: want one method, one iteration, a checkpoint", res)
	}
	h := res[0].History[0]
	if h.Episodes != 2 || h.Steps != 2 {
		t.Errorf("iteration: %d episodes, %d steps; want 2 episodes of 1 step", h.Episodes, h.Steps)
	}
	use := res[0].Usage
	for _, p := range []string{"summarize", "think"} {
		s := use.ByPurpose[p]
		if s.Calls < 2 || s.PromptTokens <= 0 || s.CompletionTokens <= 0 {
			t.Errorf("%s: %+v; want calls with prompt and completion tokens counted", p, s)
		}
	}
	// The reply account: every parsed reply is counted, with the
	// ones repaired and unusable and what was done then.
	if r := use.Total; r.Replies == 0 || r.Repaired+r.Unusable > r.Replies || r.Unusable != r.AskedAgain+r.FellBack+r.Skipped {
		t.Errorf("reply account %+v: want replies counted, each unusable one asked again, fallen back or skipped", r)
	}
	// A thinker call beyond one per step is a re-ask after a reply whose
	// action matched no admissible one (thought.Asker's repair).
	t.Logf("steps %d, errors %d; think calls %d (%d re-asks), summarize calls %d; tokens %d prompt, %d completion",
		h.Steps, h.Errors, use.ByPurpose["think"].Calls, use.ByPurpose["think"].Calls-int64(h.Steps),
		use.ByPurpose["summarize"].Calls, use.Total.PromptTokens, use.Total.CompletionTokens)
	if c := children(t); len(c) > 0 {
		t.Errorf("processes left after training: %v", c)
	}
	if !strings.Contains(log.String(), "  embed ") {
		t.Errorf("the run's usage report names no embedding calls:\n%s", log.String())
	}

	// Replay: the same run answered from the first run's cache, with no
	// model process.
	re := cfg
	re.Run = t.TempDir()
	re.LLM.Backend = "replay"
	re.LLM.ChatModel = local.ChatModel
	re.LLM.EmbedModel = local.EmbedModel
	re.LLM.Cache = cfg.CachePath()
	var log2 bytes.Buffer
	res2, err := app.Train(context.Background(), re, app.Streams{Out: &log2, Err: &log2})
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, log2.String())
	}
	if strings.Contains(log2.String(), "local chat model: starting") || strings.Contains(log2.String(), "local embed model: starting") {
		t.Errorf("the replay started a model server:\n%s", log2.String())
	}
	h2 := res2[0].History[0]
	h.Seconds, h2.Seconds = 0, 0
	// The replay's tokens are the cached chat replies' alone: the cache
	// keeps no token count of embeddings. The account is compared below.
	if h2.Tokens == 0 || h2.Tokens > h.Tokens {
		t.Errorf("replay iteration tokens %d, training's %d", h2.Tokens, h.Tokens)
	}
	h.Tokens, h2.Tokens = 0, 0
	if !reflect.DeepEqual(h, h2) {
		t.Errorf("replay iteration %+v, want %+v", h2, h)
	}
	u2 := res2[0].Usage.Total
	// Calls are the answers a server gave; a replay gets every one of them
	// from the cache and sends nothing.
	if u2.Requests != 0 || u2.CacheHits != use.Total.Calls || u2.Errors != 0 {
		t.Errorf("replay usage %+v: want every one of the %d calls a cache hit, no request, no errors", u2, use.Total.Calls)
	}
	if a, b := qtable(t, cfg.Run), qtable(t, re.Run); !reflect.DeepEqual(a.QTable, b.QTable) || !reflect.DeepEqual(a.States, b.States) || !reflect.DeepEqual(a.Thoughts, b.Thoughts) {
		t.Errorf("replayed memory differs: %d/%d Q entries, %d/%d states, %d/%d thoughts", len(a.QTable), len(b.QTable), len(a.States), len(b.States), len(a.Thoughts), len(b.Thoughts))
	}
	if c := children(t); len(c) > 0 {
		t.Errorf("processes left after the replay: %v", c)
	}
}
