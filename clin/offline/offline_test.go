package offline

import (
	"context"
	"flag"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/clin/internal/fakeworld"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	llmoffline "github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
)

// expertTrace plays plan on the fake world and records it as CLIN sees it.
func expertTrace(t *testing.T, task envbridge.Task, plan []string) ([]clin.Step, bool) {
	t.Helper()
	w := &fakeworld.World{}
	if _, err := w.Reset(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	var trace []clin.Step
	won := false
	for _, a := range plan {
		res, err := w.Step(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		trace = append(trace, clin.Step{Action: a, Observation: res.Text, Reward: res.Reward})
		won = res.Won
	}
	return trace, won
}

// train plays trials of each task with one shared method.
func train(t *testing.T, m *clin.Method, tasks []envbridge.Task, trials int) {
	for k := range trials {
		for _, task := range tasks {
			play(t, m, task, agent.Train, k, 99)
		}
	}
}

func newOffline(t testing.TB) *clin.Method {
	t.Helper()
	m, err := clin.New(clin.Config{}, clin.Deps{Embed: llmoffline.New(256), Controller: Controller{}, Generator: Generator{}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// play runs one trial of task on a fake world and returns whether it was won.
func play(t testing.TB, m *clin.Method, task envbridge.Task, mode agent.Mode, trial int, seed uint64) runner.Episode {
	t.Helper()
	ep, err := runner.Run(context.Background(), &fakeworld.World{}, m, agent.Start{
		Task: task, Mode: mode, Style: envbridge.StyleHousehold, Trial: trial,
		Rand: rand.New(rand.NewPCG(seed, uint64(trial))),
	})
	if err != nil {
		t.Fatalf("run %s trial %d: %v", task.ID, trial, err)
	}
	return ep
}

// adaptationCurve trains a fresh method on each task for trials trials, over
// seeds seeds, and returns the success rate at each trial index.
func adaptationCurve(t testing.TB, tasks []envbridge.Task, trials, seeds int) []float64 {
	curve := make([]float64, trials)
	for s := range seeds {
		for _, task := range tasks {
			m := newOffline(t) // per-task memory only: pure adaptation (Eq. 2)
			for k := range trials {
				if play(t, m, task, agent.Train, k, uint64(1000*s+7)).Outcome.Won {
					curve[k] += 1 / float64(seeds*len(tasks))
				}
			}
		}
	}
	return curve
}

// TestAdaptation: success over repeated trials of the same tasks rises
// (seed 004 Sec. 5A).
func TestAdaptation(t *testing.T) {
	tasks := []envbridge.Task{fakeworld.HeatApple, fakeworld.HeatMug, fakeworld.HeatEgg, fakeworld.CleanPlate, fakeworld.LookBook, fakeworld.TwoCD}
	curve := adaptationCurve(t, tasks, 6, 5)
	t.Logf("success by trial: %.2f", curve)
	first := curve[0]
	last := (curve[3] + curve[4] + curve[5]) / 3
	if last < first+0.3 {
		t.Errorf("success of trials 3-5 = %.2f, trial 0 = %.2f: want a rise of at least 0.3", last, first)
	}
}

var (
	householdFull  = flag.Bool("household", false, "measure offline CLIN on the household world's valid_unseen split (slow)")
	householdIters = flag.Int("household.iters", 4, "training iterations for -household")
)

// measureHousehold trains offline CLIN on perType training tasks of each type
// for iters iterations and evaluates it, and CLIN-BASE (no memory), on the
// first evalN tasks of valid_unseen (all when 0).
func measureHousehold(t *testing.T, perType, iters, evalN int) (curve []float64, trained, base runner.Summary) {
	t.Helper()
	ctx := context.Background()
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	train := runner.PerType(all, perType)
	unseen, err := suite.Tasks(envbridge.SplitValidUnseen)
	if err != nil {
		t.Fatal(err)
	}
	if evalN > 0 && evalN < len(unseen) {
		unseen = unseen[:evalN]
	}
	m := newOffline(t)
	res, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: train, Iterations: iters, Workers: 1, Seed: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.History {
		curve = append(curve, h.SuccessRate)
	}
	eval := func(m *clin.Method) runner.Summary {
		eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: suite, Tasks: unseen, Workers: 2, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		types, groups := runner.ByType(eps)
		for _, typ := range types {
			s := runner.Summarize(groups[typ], nil)
			t.Logf("  %-32s %3d tasks, success %.2f", typ, s.Tasks, s.SuccessRate)
		}
		return runner.Summarize(eps, household.PaperOracleSteps())
	}
	return curve, eval(m), eval(newOffline(t))
}

// TestHouseholdSmall: on the real household world, training on one task per
// type for three iterations raises success over the iterations and the
// trained memory beats CLIN-BASE on held-out tasks.
func TestHouseholdSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("household run")
	}
	curve, trained, base := measureHousehold(t, 2, 3, 24)
	t.Logf("train success by iteration %.2f; valid_unseen[:24] success %.2f (CLIN-BASE %.2f)", curve, trained.SuccessRate, base.SuccessRate)
	if curve[len(curve)-1] <= curve[0] {
		t.Errorf("training success did not rise: %.2f", curve)
	}
	if trained.SuccessRate <= base.SuccessRate {
		t.Errorf("valid_unseen success %.2f with memory, %.2f without: want higher with", trained.SuccessRate, base.SuccessRate)
	}
}

// TestHouseholdValidUnseen is the measurement of CLIN on the household
// world's valid_unseen split: run with
//
//	go test ./clin/offline -run TestHouseholdValidUnseen -household -household.iters 4 -v
func TestHouseholdValidUnseen(t *testing.T) {
	if !*householdFull {
		t.Skip("run with -household")
	}
	curve, trained, base := measureHousehold(t, 5, *householdIters, 0)
	t.Logf("5 tasks per type, %d iterations: train success by iteration %.3f", *householdIters, curve)
	t.Logf("valid_unseen (%d tasks): CLIN success %.3f, SPL %v, avg steps %.1f; CLIN-BASE success %.3f",
		trained.Tasks, trained.SuccessRate, deref(trained.SPL), trained.AvgSteps, base.SuccessRate)
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

func TestExtractSuccess(t *testing.T) {
	trace, won := expertTrace(t, fakeworld.HeatApple, fakeworld.HeatApplePlan)
	if !won {
		t.Fatal("expert plan did not win")
	}
	got, reached := extract(fakeworld.HeatApple.Goal, trace, won)
	want := []string{
		"opening a closed receptacle is NECESSARY to finding the target object.",
		"going to the microwave is NECESSARY to heating the target object with the microwave.",
		"taking the target object is NECESSARY to heating the target object with the microwave.",
		"heating the target object with the microwave is NECESSARY to putting the target object in the target receptacle.",
		"putting the target object in the target receptacle is NECESSARY to completing the task.",
		"going to the target receptacle is NECESSARY to putting the target object in the target receptacle.",
	}
	var texts []string
	for _, a := range got {
		texts = append(texts, a.String())
	}
	for _, w := range want {
		if !slices.Contains(texts, w) {
			t.Errorf("extract misses %q; got\n%v", w, texts)
		}
	}
	wantReached := []string{"taking the target object", "heating the target object with the microwave", "putting the target object in the target receptacle"}
	if !reflect.DeepEqual(reached, wantReached) {
		t.Errorf("reached = %v, want %v", reached, wantReached)
	}
	for _, a := range got {
		if a.Kind == clin.NotContribute {
			t.Errorf("a won trial gave %q", a)
		}
	}
}

func TestExtractFailure(t *testing.T) {
	plan := []string{"inventory", "inventory", "look", "go to shelf 1", "take vase 1 from shelf 1", "inventory"}
	trace, won := expertTrace(t, fakeworld.HeatApple, plan)
	got, _ := extract(fakeworld.HeatApple.Goal, trace, won)
	want := []clin.Abstraction{{Kind: clin.NotContribute, X: "checking the inventory", Y: "completing the task"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("extract = %v, want %v", got, want)
	}
}

func TestMergeAdaptModifiers(t *testing.T) {
	a := clin.Abstraction{Kind: clin.Necessary, X: "taking the target object", Y: "completing the task"}
	old := clin.Abstraction{Kind: clin.NotContribute, X: "looking around", Y: "completing the task", Modifier: clin.ModMay, Trial: 0}
	prev := []clin.Memory{{Trial: 0, Items: []clin.Abstraction{old, {Kind: clin.Necessary, Modifier: clin.ModMay, X: a.X, Y: a.Y}}}}
	got := mergeAdapt([]clin.Abstraction{a}, prev, 1, 0, nil)
	if len(got) != 2 || got[0].Modifier != clin.ModShould || got[0].Trial != 1 || got[1] != old {
		t.Errorf("merge at trial 1 = %+v", got)
	}
	// Not re-confirmed for three trials: the DOES NOT CONTRIBUTE item goes.
	if got := mergeAdapt(nil, prev, 3, 0, nil); len(got) != 1 || got[0].Kind != clin.Necessary {
		t.Errorf("merge at trial 3 = %+v, want only the NECESSARY item", got)
	}
}

// TestGeneralization: memory built on other tasks of a type helps a new task
// of that type at its first, frozen trial (Eq. 3, GEN-ENV).
func TestGeneralization(t *testing.T) {
	trained := newOffline(t)
	train(t, trained, []envbridge.Task{fakeworld.HeatApple, fakeworld.HeatMug}, 5)
	base := newOffline(t)
	var withMeta, without int
	const runs = 40
	for s := range runs {
		if play(t, trained, fakeworld.HeatEgg, agent.Eval, 0, uint64(s)).Outcome.Won {
			withMeta++
		}
		if play(t, base, fakeworld.HeatEgg, agent.Eval, 0, uint64(s)).Outcome.Won {
			without++
		}
	}
	t.Logf("heat-egg success: %d/%d with meta-memory, %d/%d without", withMeta, runs, without, runs)
	if withMeta < without+runs/5 {
		t.Errorf("meta-memory success %d/%d not clearly above base %d/%d", withMeta, runs, without, runs)
	}
	if trained.Memory(fakeworld.HeatEgg.ID) != nil {
		t.Errorf("an Eval episode stored memory")
	}
}

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

func trainOffline(t *testing.T, cfg clin.Config, suite envbridge.Suite, tasks []envbridge.Task, gen clin.Generator) *clin.Method {
	t.Helper()
	m, err := clin.New(cfg, clin.Deps{Embed: llmoffline.New(256), Controller: Controller{}, Generator: gen})
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
	plain := trainOffline(t, clin.Config{}, suite, train, Generator{})
	rec := &recorder{Generator: Generator{}}
	ga := trainOffline(t, clin.Config{GA: true, Name: "clin-ga"}, suite, train, rec)
	rec.reset()
	if ga.EvalTrials() != clin.DefaultTrials || plain.EvalTrials() != 1 {
		t.Fatalf("EvalTrials: G+A %d, plain %d; want %d and 1", ga.EvalTrials(), plain.EvalTrials(), clin.DefaultTrials)
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
		if len(tr) > clin.DefaultTrials {
			t.Errorf("%s: %d trials, at most %d", id, len(tr), clin.DefaultTrials)
		}
		if last := tr[len(tr)-1]; len(tr) < clin.DefaultTrials && !last.Outcome.Won {
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
	if want := len(eps) - len(unseen); rec.adapts != want {
		t.Errorf("%d memories adapted during the evaluation, want %d (one before each retry)", rec.adapts, want)
	}
}

// recorder records the calls of a generator.
type recorder struct {
	clin.Generator
	mu     sync.Mutex
	metas  []clin.MetaInput     // the meta-memory requests
	meta   [][]clin.Abstraction // and what each gave
	adapts int                  // memories adapted (Eq. 2)
}

func (r *recorder) Meta(ctx context.Context, in clin.MetaInput) ([]clin.Abstraction, error) {
	items, err := r.Generator.Meta(ctx, in)
	r.mu.Lock()
	r.metas, r.meta = append(r.metas, in), append(r.meta, items)
	r.mu.Unlock()
	return items, err
}

func (r *recorder) Adapt(ctx context.Context, in clin.AdaptInput) ([]clin.Abstraction, error) {
	r.mu.Lock()
	r.adapts++
	r.mu.Unlock()
	return r.Generator.Adapt(ctx, in)
}

// reset forgets the calls so far (those of training).
func (r *recorder) reset() {
	r.mu.Lock()
	r.metas, r.meta, r.adapts = nil, nil, 0
	r.mu.Unlock()
}

// TestGenTaskHeldOutType: GEN-TASK (seed 004 Sec. 5C, Fig. 9) with the
// other-types archive (GenTaskOtherTypes; on household worlds the default
// archive is the task's own type, as the paper's ALFWorld runs) on the
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
	rec := &recorder{Generator: Generator{}}
	gt := trainOffline(t, clin.Config{GenTask: true, GenTaskOtherTypes: true, GA: true, Name: "clin-gen-task"}, suite, train, rec)
	rec.reset()
	eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: gt, Suite: suite, Tasks: unseen, Workers: 2, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.metas) != len(unseen) {
		t.Fatalf("%d meta-memory requests, want one per held-out task (%d)", len(rec.metas), len(unseen))
	}
	for _, in := range rec.metas {
		if !in.GenTask || in.Task.Type != held || len(in.Archive) == 0 {
			t.Errorf("meta request for %s: GenTask %v, type %s, %d archived; want GEN-TASK from a non-empty archive", in.Task.ID, in.GenTask, in.Task.Type, len(in.Archive))
		}
		for _, a := range in.Archive {
			if a.Task.Type == held {
				t.Errorf("archive for %s holds %s of the held-out type", in.Task.ID, a.Task.ID)
			}
		}
	}
	msgs, err := clin.MetaMessages(rec.metas[0])
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
	plain := trainOffline(t, clin.Config{}, suite, train, Generator{})
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

// TestAdviceMemoryOffline: with Config.Advice the offline generator's
// memory is advice, never a causal abstraction ("X may be necessary to
// Y"), on the household world, and the meta-memory of a held-out task is
// advice too (agenttest saves and loads it).
func TestAdviceMemoryOffline(t *testing.T) {
	suite, train, unseen := householdSplits(t, 1, 12)
	emb := llmoffline.New(256)
	rec := &recorder{Generator: Generator{}}
	m, err := clin.New(clin.Config{Advice: true}, clin.Deps{Embed: emb, Controller: Controller{}, Generator: rec})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: train, Iterations: 2, Workers: 1, Seed: 1, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range train {
		for _, a := range m.Memory(task.ID) {
			n++
			if a.Kind != clin.Advice {
				t.Errorf("%s: memory item %q is %s, want advice", task.ID, a, a.Kind)
			}
			if b, ok := clin.ParseAbstraction(a.String()); ok {
				t.Errorf("%s: advice %q reads as a causal abstraction %+v", task.ID, a, b)
			}
		}
	}
	if n == 0 {
		t.Fatal("no advice in memory after training")
	}
	rec.reset()
	if _, err := m.Start(ctx, agent.Start{Task: unseen[0], Mode: agent.Eval, Style: suite.Style(), Rand: rand.New(rand.NewPCG(1, 1))}); err != nil {
		t.Fatal(err)
	}
	if len(rec.meta) != 1 {
		t.Fatalf("%d meta-memories made for one held-out task", len(rec.meta))
	}
	meta := rec.meta[0]
	if len(meta) == 0 {
		t.Fatalf("held-out %s (%s) starts with no advice", unseen[0].ID, unseen[0].Type)
	}
	for _, a := range meta {
		if a.Kind != clin.Advice || a.Modifier != clin.ModNone {
			t.Errorf("meta-memory item %+v, want advice without modifier", a)
		}
	}
	t.Logf("%d advice items after training; held-out %s starts from %d, e.g. %q", n, unseen[0].ID, len(meta), meta[0])
}
