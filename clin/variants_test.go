package clin

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/llm/openai"
	"github.com/samem/trainer/runner"
)

// householdSplits returns the household world (seed 1), perType training
// tasks of each type and evalPerType valid_unseen tasks of each type.
func householdSplits(t *testing.T, perType, evalPerType int) (envbridge.Suite, []envbridge.Task, []envbridge.Task) {
	t.Helper()
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	unseen, err := suite.Tasks(envbridge.SplitValidUnseen)
	if err != nil {
		t.Fatal(err)
	}
	return suite, runner.PerType(all, perType), runner.PerType(unseen, evalPerType)
}

func trainOffline(t *testing.T, cfg Config, suite envbridge.Suite, tasks []envbridge.Task) *Method {
	t.Helper()
	m, err := New(cfg, Deps{Embed: offline.New(256)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Train(context.Background(), runner.TrainConfig{Method: m, Suite: suite, Tasks: tasks, Iterations: 2, Workers: 1, Seed: 1, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	return m
}

func successes(eps []runner.Episode) (n int) {
	for _, e := range eps {
		if e.Outcome.Won && e.Outcome.Err == "" {
			n++
		}
	}
	return n
}

// TestGAHousehold: G+A (seed 004 Sec. 5B, Table 2) on the household world.
// Each held-out task is played until it is won, at most Config.Trials
// times; its first trial is exactly plain CLIN's GEN-ENV trial (same
// meta-memory, same random stream); the retries, with the memory adapted
// after each failed trial, solve more tasks than the first trials did; and
// the trained memory is left as it was.
func TestGAHousehold(t *testing.T) {
	if testing.Short() {
		t.Skip("household run")
	}
	suite, train, unseen := householdSplits(t, 1, 4)
	ctx := context.Background()
	plain := trainOffline(t, Config{}, suite, train)
	ga := trainOffline(t, Config{GA: true, Name: "clin-ga"}, suite, train)
	if ga.EvalTrials() != DefaultTrials || plain.EvalTrials() != 1 {
		t.Fatalf("EvalTrials: G+A %d, plain %d; want %d and 1", ga.EvalTrials(), plain.EvalTrials(), DefaultTrials)
	}
	sizeBefore := ga.Size()
	base, err := runner.Evaluate(ctx, runner.EvalConfig{Method: plain, Suite: suite, Tasks: unseen, Workers: 2, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: ga, Suite: suite, Tasks: unseen, Workers: 2, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Trials of each task: 0, 1, ... in order; only the last may be won;
	// a task stops early only when won.
	byTask := map[string][]runner.Episode{}
	for _, e := range eps {
		byTask[e.Task.ID] = append(byTask[e.Task.ID], e)
	}
	if len(byTask) != len(unseen) {
		t.Fatalf("%d tasks played, want %d", len(byTask), len(unseen))
	}
	retried := 0
	for id, tr := range byTask {
		for k, e := range tr {
			if e.Trial != k {
				t.Fatalf("%s: trial %d recorded as %d", id, k, e.Trial)
			}
			if e.Outcome.Err != "" {
				t.Fatalf("%s trial %d errored: %s", id, k, e.Outcome.Err)
			}
			if e.Outcome.Won && k != len(tr)-1 {
				t.Errorf("%s: retried after winning trial %d", id, k)
			}
		}
		if len(tr) > DefaultTrials {
			t.Errorf("%s: %d trials, at most %d", id, len(tr), DefaultTrials)
		}
		if last := tr[len(tr)-1]; len(tr) < DefaultTrials && !last.Outcome.Won {
			t.Errorf("%s: stopped after %d trials without a win", id, len(tr))
		}
		if len(tr) > 1 {
			retried++
		}
	}
	first, final := runner.First(eps), runner.Final(eps)
	if len(first) != len(base) || len(final) != len(base) {
		t.Fatalf("%d first trials, %d results, want %d", len(first), len(final), len(base))
	}
	for i := range base {
		if first[i].Task.ID != base[i].Task.ID || first[i].Outcome != base[i].Outcome {
			t.Errorf("%s: G+A first trial %+v, plain CLIN (GEN-ENV) %+v: want the same", base[i].Task.ID, first[i].Outcome, base[i].Outcome)
		}
	}
	f, g := successes(first), successes(final)
	t.Logf("%d held-out tasks: GEN-ENV (first trial) %d won, G+A %d won, %d tasks retried, %d trials in all", len(unseen), f, g, retried, len(eps))
	if retried == 0 {
		t.Fatal("no task was retried: nothing measured")
	}
	if g <= f {
		t.Errorf("G+A solved %d tasks, its first trials %d: want more after adaptation", g, f)
	}
	if got := ga.Size(); got["abstractions"] != sizeBefore["abstractions"] || got["tasks"] != sizeBefore["tasks"] {
		t.Errorf("trained memory changed by the evaluation: %v, was %v", got, sizeBefore)
	}
	ga.mu.Lock()
	adapted := 0
	for _, tm := range ga.adapting {
		adapted += len(tm.Trials)
	}
	ga.mu.Unlock()
	if want := len(eps) - len(unseen); adapted != want {
		t.Errorf("%d memories adapted during the evaluation, want %d (one before each retry)", adapted, want)
	}
}

// metaRecorder records the meta-memory requests of a method's generator.
type metaRecorder struct {
	Generator
	mu  sync.Mutex
	got []MetaInput
}

func (r *metaRecorder) Meta(ctx context.Context, in MetaInput) ([]Abstraction, error) {
	r.mu.Lock()
	r.got = append(r.got, in)
	r.mu.Unlock()
	return r.Generator.Meta(ctx, in)
}

// TestGenTaskHeldOutType: GEN-TASK (seed 004 Sec. 5C, Fig. 9) on the
// household world, trained on every type but one and evaluated on the
// held-out type. Each held-out task's meta-memory is asked for with the
// GEN-TASK prompt from an archive of the other types only, and its first
// trial is guided by it; plain CLIN (GEN-ENV) has no memory of the type
// and plays unguided.
func TestGenTaskHeldOutType(t *testing.T) {
	if testing.Short() {
		t.Skip("household run")
	}
	suite, train, unseen := householdSplits(t, 1, 6)
	const held = "pick_heat_then_place_in_recep"
	train = slices.DeleteFunc(train, func(t envbridge.Task) bool { return t.Type == held })
	unseen = slices.DeleteFunc(unseen, func(t envbridge.Task) bool { return t.Type != held })
	if len(train) == 0 || len(unseen) == 0 {
		t.Fatalf("%d training tasks, %d held-out tasks of %s", len(train), len(unseen), held)
	}
	ctx := context.Background()
	gt := trainOffline(t, Config{GenTask: true, GA: true, Name: "clin-gen-task"}, suite, train)
	rec := &metaRecorder{Generator: gt.gen}
	gt.gen = rec
	eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: gt, Suite: suite, Tasks: unseen, Workers: 2, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.got) != len(unseen) {
		t.Fatalf("%d meta-memory requests, want one per held-out task (%d)", len(rec.got), len(unseen))
	}
	for _, in := range rec.got {
		if !in.GenTask || in.Task.Type != held || len(in.Archive) == 0 {
			t.Errorf("meta request for %s: GenTask %v, type %s, %d archived; want GEN-TASK from a non-empty archive", in.Task.ID, in.GenTask, in.Task.Type, len(in.Archive))
		}
		for _, a := range in.Archive {
			if a.Task.Type == held {
				t.Errorf("archive for %s holds %s of the held-out type", in.Task.ID, a.Task.ID)
			}
		}
	}
	msgs, err := MetaMessages(rec.got[0])
	if err != nil {
		t.Fatal(err)
	}
	if p := msgs[1].Content; !strings.Contains(p, "useful to the NEW TASK in the SAME ENVIRONMENT CONFIGURATION") {
		t.Errorf("GEN-TASK request rendered without Fig. 9's prompt:\n%s", p)
	}
	guided := func(eps []runner.Episode) (n int) {
		for _, e := range eps {
			for _, tr := range e.Transitions {
				if tr.Decision.Guided {
					n++
				}
			}
		}
		return n
	}
	plain := trainOffline(t, Config{}, suite, train)
	base, err := runner.Evaluate(ctx, runner.EvalConfig{Method: plain, Suite: suite, Tasks: unseen, Workers: 2, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	first := runner.First(eps)
	t.Logf("held-out %s, %d tasks: GEN-TASK first trials %d won (%d guided steps), GEN-TASK+A %d won; GEN-ENV without memory of the type %d won (%d guided steps)",
		held, len(unseen), successes(first), guided(first), successes(runner.Final(eps)), successes(base), guided(base))
	if guided(first) == 0 {
		t.Error("no first-trial step of a held-out task was guided by the transferred memory")
	}
	if guided(base) != 0 {
		t.Errorf("GEN-ENV guided %d steps on a type it never trained on", guided(base))
	}
}

// TestGenTaskPromptGolden pins the GEN-TASK prompt (seed 004 Fig. 9), with
// memories of other types and with none ("improvise").
func TestGenTaskPromptGolden(t *testing.T) {
	m, err := MetaMessages(MetaInput{Task: heatEgg, Style: envbridge.StyleHousehold, GenTask: true, Archive: []Archived{
		{Task: cleanPlate, Reward: 1, Items: goldenMemory}, {Task: lookBook, Reward: 0},
	}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "gentask", m)
	empty, err := MetaMessages(MetaInput{Task: heatEgg, Style: envbridge.StyleHousehold, GenTask: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "gentask_empty", empty)
	adv, err := MetaMessages(MetaInput{Task: heatEgg, Style: envbridge.StyleHousehold, GenTask: true, Advice: true, Archive: []Archived{{Task: cleanPlate, Reward: 1, Items: ParseAdvice(fig13Reply)}}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "gentask_advice", adv)
}

var _ agent.EvalTrialer = (*Method)(nil)

// TestGenTaskArchiveBalanced: GEN-TASK's archive takes the best memory of
// every other type before a second one of any type, and never the task's
// own type.
func TestGenTaskArchiveBalanced(t *testing.T) {
	m := newOffline(t)
	item := []Abstraction{{Kind: Necessary, X: "a", Y: "b"}}
	for i, typ := range []string{"cool", "cool", "cool", "clean", "clean", "look", "heat"} {
		id := string(rune('a'+i)) + "-" + typ
		m.tasks[id] = &taskMemory{Task: envbridge.Task{ID: id, Type: typ}, Trials: []Memory{{Reward: 1 - float64(i)/10, Items: item}}}
	}
	m.cfg.Archive = 4
	m.mu.Lock()
	got := m.archive("heat", "x", true)
	m.mu.Unlock()
	var ids []string
	for _, a := range got {
		ids = append(ids, a.Task.ID)
	}
	if want := []string{"a-cool", "d-clean", "f-look", "b-cool"}; !slices.Equal(ids, want) {
		t.Errorf("GEN-TASK archive %v, want %v", ids, want)
	}
}

// TestGenTaskImprovises: with a model and no trained memory of another
// type, GEN-TASK still asks (Fig. 9: "If PREVIOUS LEARNINGS says 'No
// learnings available', improvise learnings for the NEW TASK") and the
// held-out task starts from what the model wrote, counted under its own
// purpose.
func TestGenTaskImprovises(t *testing.T) {
	srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		if c.Chat == nil {
			return llmtest.Reply{}
		}
		if strings.Contains(c.Chat.Prompt(), "No learnings available") && strings.Contains(c.Chat.Prompt(), "SAME ENVIRONMENT CONFIGURATION") {
			return llmtest.Reply{Text: metaReply}
		}
		return llmtest.Reply{Text: "unexpected prompt"}
	})
	client, err := openai.New(openai.Config{
		ChatModel: "test-chat", ChatBaseURLs: []string{srv.URL},
		EmbedModel: "test-embed", EmbedDim: llmtest.DefaultEmbedDim, Timeout: 10 * time.Second, Retries: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{GenTask: true}, Deps{Chat: client, Embed: client})
	if err != nil {
		t.Fatal(err)
	}
	meter := llm.NewMeter(nil)
	ep, err := m.Start(llm.WithMeter(context.Background(), meter), agent.Start{Task: heatEgg, Mode: agent.Eval, Style: envbridge.StyleHousehold})
	if err != nil {
		t.Fatal(err)
	}
	if got := ep.(*episode).memory; len(got) != 2 || got[0].Trial != -1 {
		t.Errorf("held-out memory %+v, want the 2 improvised items", got)
	}
	if s := meter.Report().ByPurpose[PurposeMetaTask]; s.Replies != 1 {
		t.Errorf("%s account %+v, want 1 reply", PurposeMetaTask, s)
	}
}
