// Package agenttest is the conformance suite every memory method runs
// against itself, as envbridge/envtest is for environment drivers: it holds
// each method to the contract of package agent, so that the runner, resume
// and evaluation can treat all methods alike.
//
// A method's test calls Run once:
//
//	func TestConformance(t *testing.T) {
//		agenttest.Run(t, agenttest.Options{
//			New: func(chat llm.Chatter) (agent.Method, error) {
//				return clin.New(clin.Config{}, clin.Deps{Chat: chat, Embed: emb, ...})
//			},
//			Script: script, // the method's model calls, answered by a rule
//			Errors: []error{clin.ErrFormat},
//		})
//	}
//
// New builds a fresh method each time it is called: with chat nil, on its
// offline roles; otherwise on chat, the scripted model. Every clause runs on
// the offline roles, and again on the scripted model when Options.Script is
// set. A method trains on the first task of each type of a small household
// world (Options.Suite replaces it) for two iterations and is evaluated on
// held-out tasks.
//
// The clauses share one training (one worker, the seed of Options) of a
// fresh method, saved after training and after each of two evaluations
// (one worker, then several). Each clause is a subtest of Run:
//
//   - determinism: a second fresh method trained and evaluated the same way
//     makes the same decisions, reaches the same outcomes and saves the same
//     bytes; no episode ends in an error.
//   - eval-frozen (Saver): the evaluations leave the saved bytes and the
//     reported size (agent.Sizer) as they were after training.
//   - round-trip (Saver): Save leaves no temporary file; Load into a fresh
//     method and Save again gives the same bytes and size, and the loaded
//     method evaluates with the same decisions as the one that saved.
//   - bad-checkpoint (Saver): every saved file truncated, replaced by bytes
//     that are not Parquet, replaced by a Parquet file of a foreign schema,
//     or removed, and an empty directory, make Load fail with an error that
//     wraps a known kind (checkpoints.ErrMissing, ErrNotParquet, ErrCorrupt,
//     ErrSchema, ErrFormatVersion, ErrIncompatible, fs.ErrNotExist or one of
//     Options.Errors) whose message names the file, and leave the memory as
//     it was (Save gives the same bytes, derived files aside). A derived file (checkpoints.IsDerived: an
//     index the method rebuilds from the others) may instead be rebuilt:
//     Load then succeeds and the memory is the same.
//   - parallel: the evaluation with several workers makes the same decisions
//     as with one, and training with several workers ends without an error
//     (under -race both also catch memory shared without a lock).
//
// Clauses that need a Saver are skipped, with a note, for a method that is
// not one (the baselines without memory).
package agenttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/runner"
)

// Options fit the suite to a method. New is required.
type Options struct {
	// New builds a fresh method: on its offline roles when chat is nil, on
	// chat otherwise. Every call must build the same method.
	New func(chat llm.Chatter) (agent.Method, error)
	// Script, when set, answers the method's model calls: it must be a pure
	// function of the request (safe for concurrent use). The clauses then
	// run a second time with the method on this model.
	Script func(req llm.Request) string
	// Errors are the method's own error kinds that a bad checkpoint may
	// wrap (its ErrFormat), beside those of package checkpoints.
	Errors []error
	// Suite is the environment played; default a small household world.
	Suite envbridge.Suite
	// Train and Eval are the tasks trained on and evaluated on; default
	// the first task of each type of the suite's train split, and the
	// first four of valid_unseen.
	Train, Eval []envbridge.Task
	// Iterations of training; default 2.
	Iterations int
	// Workers of the parallel clause; default 4.
	Workers int
	// Seed of every run; default 1.
	Seed int64
	// OnlineKeeps says that an online evaluation (agent.Online) of the
	// trained memory on Eval leaves the saved memory as it was: the
	// method's memory is the episode's own (it has nothing to learn
	// across episodes online) or, by its spec, learns only from episodes
	// these tasks cannot give. Otherwise the online clause requires the
	// evaluation to change it.
	OnlineKeeps bool
	// OnlineFromWins says that the method learns only from won episodes
	// (AWM induces workflows from successes): the online clause then
	// requires a change exactly when an online episode was won.
	OnlineFromWins bool
}

// defaultSuite is the world the suite plays when Options.Suite is nil: a
// small household world whose episodes end after 15 steps.
func defaultSuite() (envbridge.Suite, error) {
	return household.New(household.Config{Seed: 5, Train: 12, ValidSeen: 6, ValidUnseen: 12, MaxSteps: 15})
}

type clause struct {
	name  string
	saver bool // needs an agent.Saver
	run   func(ctx context.Context, c *config) error
}

var clauses = []clause{
	{"determinism", false, checkDeterminism},
	{"eval-frozen", true, checkEvalFrozen},
	{"round-trip", true, checkRoundTrip},
	{"bad-checkpoint", true, checkBadCheckpoint},
	{"online", true, checkOnline},
	{"parallel", false, checkParallel},
	{"show", false, checkShow},
}

// config is Options resolved for one model (offline or scripted).
type config struct {
	Options
	chat  llm.Chatter // nil: offline roles
	model string
	tmp   func() (string, error)

	once sync.Once
	fix  *fixture
	err  error
}

// fixture is the training and evaluation the clauses share: a method
// trained with one worker, saved, evaluated with one worker, saved again,
// evaluated with several workers and saved again.
type fixture struct {
	*run
	dir         string              // the first save
	saves       []map[string][]byte // after training, after each evaluation
	sizes       []map[string]int    // likewise
	evalMany    []runner.Episode    // the evaluation with several workers
	saver, size bool
}

// fixture trains and evaluates once for every clause of this model.
func (c *config) fixture(ctx context.Context) (*fixture, error) {
	c.once.Do(func() { c.fix, c.err = c.build(ctx) })
	return c.fix, c.err
}

func (c *config) build(ctx context.Context) (*fixture, error) {
	r, err := c.train(ctx, 1)
	if err != nil {
		return nil, err
	}
	f := &fixture{run: r}
	_, f.saver = r.m.(agent.Saver)
	_, f.size = r.m.(agent.Sizer)
	snap := func() error {
		if f.size {
			f.sizes = append(f.sizes, size(r.m))
		}
		if !f.saver {
			return nil
		}
		dir, files, err := c.save(ctx, r.m)
		if err != nil {
			return err
		}
		if f.dir == "" {
			f.dir = dir
		}
		f.saves = append(f.saves, files)
		return nil
	}
	if err := snap(); err != nil {
		return nil, err
	}
	if r.eval, err = c.evaluate(ctx, r.m, 1); err != nil {
		return nil, err
	}
	if err := snap(); err != nil {
		return nil, err
	}
	if f.evalMany, err = c.evaluate(ctx, r.m, c.Workers); err != nil {
		return nil, err
	}
	if err := snap(); err != nil {
		return nil, err
	}
	return f, nil
}

// Run runs every clause as a subtest of t, once with the method's offline
// roles (t.Run "offline/...") and, with Options.Script, once on the
// scripted model ("scripted/..."), except under -short.
func Run(t *testing.T, opts Options) {
	t.Helper()
	cfgs, err := resolve(opts, func() (string, error) { return t.TempDir(), nil })
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() && len(cfgs) > 1 {
		t.Logf("-short: the clauses run on the offline roles only, not on the scripted model")
		cfgs = cfgs[:1]
	}
	for _, c := range cfgs {
		t.Run(c.model, func(t *testing.T) {
			// The models share nothing; their runs wait on disk more
			// than on the processor.
			t.Parallel()
			m, err := c.New(c.chat)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			_, saver := m.(agent.Saver)
			for _, cl := range clauses {
				t.Run(cl.name, func(t *testing.T) {
					if cl.saver && !saver {
						t.Skipf("%s is not an agent.Saver: it keeps no memory between episodes", m.Name())
					}
					if err := cl.run(t.Context(), c); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}

func resolve(o Options, tmp func() (string, error)) ([]*config, error) {
	if o.New == nil {
		return nil, errors.New("agenttest: Options.New is required")
	}
	if o.Suite == nil {
		s, err := defaultSuite()
		if err != nil {
			return nil, err
		}
		o.Suite = s
	}
	if o.Train == nil {
		ts, err := o.Suite.Tasks(envbridge.SplitTrain)
		if err != nil {
			return nil, err
		}
		o.Train = runner.PerType(ts, 1)
	}
	if o.Eval == nil {
		ts, err := o.Suite.Tasks(envbridge.SplitValidUnseen)
		if err != nil {
			return nil, err
		}
		o.Eval = ts[:min(4, len(ts))]
	}
	if o.Iterations <= 0 {
		o.Iterations = 2
	}
	if o.Workers <= 1 {
		o.Workers = 4
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	out := []*config{{Options: o, model: "offline", tmp: tmp}}
	if o.Script != nil {
		out = append(out, &config{Options: o, chat: Scripted(o.Script), model: "scripted", tmp: tmp})
	}
	return out, nil
}

// Scripted is a chat model that answers every request with f(request).
func Scripted(f func(req llm.Request) string) llm.Chatter { return scripted(f) }

type scripted func(req llm.Request) string

func (f scripted) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	return llm.Response{Text: f(req), Model: "agenttest-scripted"}, nil
}

// run is what one training and evaluation of a fresh method did.
type run struct {
	m     agent.Method
	train []runner.Episode // in the order played
	eval  []runner.Episode // in task order
	saved map[string][]byte
}

// collect records the episodes runner.Train reports.
type collect struct {
	mu  sync.Mutex
	eps []runner.Episode
}

func (c *collect) Begin(string, int) {}
func (c *collect) End(string)        {}
func (c *collect) Done(ep runner.Episode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eps = append(c.eps, ep)
}

// train builds a fresh method and trains it with the given workers.
func (c *config) train(ctx context.Context, workers int) (*run, error) {
	m, err := c.New(c.chat)
	if err != nil {
		return nil, fmt.Errorf("new method: %w", err)
	}
	dir, err := c.tmp()
	if err != nil {
		return nil, err
	}
	var prog collect
	if _, err := runner.Train(ctx, runner.TrainConfig{Method: m, Suite: c.Suite, Tasks: c.Train, Iterations: c.Iterations,
		Workers: workers, Seed: c.Seed, Dir: dir, Progress: &prog}); err != nil {
		return nil, fmt.Errorf("train %s: %w", m.Name(), err)
	}
	if err := noErrors("training", prog.eps); err != nil {
		return nil, err
	}
	return &run{m: m, train: prog.eps}, nil
}

// evaluate plays the evaluation tasks with frozen memory.
func (c *config) evaluate(ctx context.Context, m agent.Method, workers int) ([]runner.Episode, error) {
	eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: c.Suite, Tasks: c.Eval, Workers: workers, Seed: c.Seed})
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", m.Name(), err)
	}
	return eps, noErrors("evaluation", eps)
}

func noErrors(what string, eps []runner.Episode) error {
	for _, ep := range eps {
		if ep.Outcome.Err != "" {
			return fmt.Errorf("%s episode of %s ended in an error: %s", what, ep.Task.ID, ep.Outcome.Err)
		}
	}
	if len(eps) == 0 {
		return fmt.Errorf("%s played no episode", what)
	}
	return nil
}

// save saves m (a Saver) into a fresh directory and reads every file back.
func (c *config) save(ctx context.Context, m agent.Method) (string, map[string][]byte, error) {
	dir, err := c.tmp()
	if err != nil {
		return "", nil, err
	}
	dir = filepath.Join(dir, "save")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", nil, err
	}
	if err := m.(agent.Saver).Save(ctx, dir); err != nil {
		return "", nil, fmt.Errorf("save %s: %w", m.Name(), err)
	}
	files, err := readDir(dir)
	return dir, files, err
}

func readDir(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = b
		return nil
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("save wrote nothing in %s", dir)
	}
	return out, err
}

// sameFiles says how two saves differ ("" when byte for byte equal).
func sameFiles(a, b map[string][]byte) string {
	var names []string
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		x, okx := a[n]
		y, oky := b[n]
		switch {
		case !okx:
			return fmt.Sprintf("%s appeared", n)
		case !oky:
			return fmt.Sprintf("%s disappeared", n)
		case !bytes.Equal(x, y):
			return fmt.Sprintf("%s changed (%d bytes, then %d)", n, len(x), len(y))
		}
	}
	return ""
}

// sameDecisions says where two lists of episodes first differ ("" when they
// made the same decisions and reached the same outcomes).
// showDecision prints a decision with what its Recall points to.
func showDecision(d agent.Decision) string {
	if d.Recall == nil {
		return fmt.Sprintf("%+v", d)
	}
	r := d.Recall
	d.Recall = nil
	return fmt.Sprintf("%+v recall %+v", d, *r)
}

func sameDecisions(a, b []runner.Episode) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d episodes, then %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Task.ID != y.Task.ID || x.Trial != y.Trial {
			return fmt.Sprintf("episode %d: task %s trial %d, then task %s trial %d", i, x.Task.ID, x.Trial, y.Task.ID, y.Trial)
		}
		for j := range min(len(x.Transitions), len(y.Transitions)) {
			// Recall is a pointer: decisions are the same when what it
			// points to is.
			if dx, dy := x.Transitions[j].Decision, y.Transitions[j].Decision; !reflect.DeepEqual(dx, dy) {
				return fmt.Sprintf("episode %d (%s) step %d: %s, then %s", i, x.Task.ID, j, showDecision(dx), showDecision(dy))
			}
		}
		if !reflect.DeepEqual(x.Outcome, y.Outcome) {
			return fmt.Sprintf("episode %d (%s): outcome %+v, then %+v", i, x.Task.ID, x.Outcome, y.Outcome)
		}
	}
	return ""
}

func size(m agent.Method) map[string]int {
	if s, ok := m.(agent.Sizer); ok {
		return s.Size()
	}
	return nil
}

func checkDeterminism(ctx context.Context, c *config) error {
	a, err := c.fixture(ctx)
	if err != nil {
		return err
	}
	b, err := c.train(ctx, 1)
	if err != nil {
		return err
	}
	if a.saver {
		if _, b.saved, err = c.save(ctx, b.m); err != nil {
			return err
		}
	}
	if b.eval, err = c.evaluate(ctx, b.m, 1); err != nil {
		return err
	}
	if d := sameDecisions(a.train, b.train); d != "" {
		return fmt.Errorf("two trainings with seed %d differ: %s", c.Seed, d)
	}
	if d := sameDecisions(a.eval, b.eval); d != "" {
		return fmt.Errorf("two evaluations with seed %d differ: %s", c.Seed, d)
	}
	if a.saver {
		if d := sameFiles(a.saves[0], b.saved); d != "" {
			return fmt.Errorf("two trainings with seed %d saved different memories: %s", c.Seed, d)
		}
	}
	return nil
}

func checkEvalFrozen(ctx context.Context, c *config) error {
	f, err := c.fixture(ctx)
	if err != nil {
		return err
	}
	for i, workers := range []int{1, c.Workers} {
		if d := sameFiles(f.saves[0], f.saves[i+1]); d != "" {
			return fmt.Errorf("evaluation with %d workers changed the saved memory: %s", workers, d)
		}
		if f.size && !reflect.DeepEqual(f.sizes[0], f.sizes[i+1]) {
			return fmt.Errorf("evaluation with %d workers changed the memory's size: %v, then %v", workers, f.sizes[0], f.sizes[i+1])
		}
	}
	return nil
}

// checkOnline evaluates the trained memory, loaded into a fresh method,
// with memory that keeps learning (agent.Online): no step explores, and
// the saved memory changes unless Options.OnlineKeeps says the method has
// nothing to learn there.
func checkOnline(ctx context.Context, c *config) error {
	f, err := c.fixture(ctx)
	if err != nil {
		return err
	}
	m, err := c.New(c.chat)
	if err != nil {
		return fmt.Errorf("new method: %w", err)
	}
	if err := m.(agent.Saver).Load(ctx, f.dir); err != nil {
		return fmt.Errorf("load %s: %w", m.Name(), err)
	}
	eps, err := runner.Evaluate(ctx, runner.EvalConfig{Method: m, Suite: c.Suite, Tasks: c.Eval, Workers: 1, Seed: c.Seed, Online: true})
	if err != nil {
		return fmt.Errorf("online evaluation of %s: %w", m.Name(), err)
	}
	if err := noErrors("online evaluation", eps); err != nil {
		return err
	}
	// A method whose frozen evaluation never explores (epsilon-greedy
	// methods) explores no more online; a planner's exploration of
	// unknown places is part of how it acts in either.
	explores := slices.ContainsFunc(f.run.eval, explored)
	for _, ep := range eps {
		if ep.Mode != agent.Online.String() {
			return fmt.Errorf("online evaluation of %s played %s in mode %q", m.Name(), ep.Task.ID, ep.Mode)
		}
		if !explores && explored(ep) {
			return fmt.Errorf("online evaluation of %s explored in %s, which its frozen evaluation never does", m.Name(), ep.Task.ID)
		}
	}
	_, files, err := c.save(ctx, m)
	if err != nil {
		return err
	}
	keeps := c.OnlineKeeps
	if c.OnlineFromWins {
		keeps = !slices.ContainsFunc(eps, func(ep runner.Episode) bool { return ep.Outcome.Won })
	}
	d := sameFiles(f.saves[0], files)
	switch {
	case keeps && d != "":
		return fmt.Errorf("online evaluation changed the saved memory of %s, which should keep it (OnlineKeeps %v, OnlineFromWins %v): %s", m.Name(), c.OnlineKeeps, c.OnlineFromWins, d)
	case !keeps && d == "":
		return fmt.Errorf("online evaluation left the saved memory of %s as training left it: it learned nothing online", m.Name())
	}
	return nil
}

// explored reports whether a decision of ep explored (Recall.Explored).
func explored(ep runner.Episode) bool {
	return slices.ContainsFunc(ep.Transitions, func(tr agent.Transition) bool {
		return tr.Decision.Recall != nil && tr.Decision.Recall.Explored
	})
}

func checkRoundTrip(ctx context.Context, c *config) error {
	f, err := c.fixture(ctx)
	if err != nil {
		return err
	}
	for n := range f.saves[0] {
		if strings.Contains(filepath.Base(n), ".tmp") {
			return fmt.Errorf("save left a temporary file behind: %s", n)
		}
	}
	back, err := c.New(c.chat)
	if err != nil {
		return err
	}
	if err := back.(agent.Saver).Load(ctx, f.dir); err != nil {
		return fmt.Errorf("load what %s saved: %w", back.Name(), err)
	}
	_, again, err := c.save(ctx, back)
	if err != nil {
		return err
	}
	if d := sameFiles(f.saves[0], again); d != "" {
		return fmt.Errorf("save, load, save: %s", d)
	}
	if f.size {
		if got := size(back); !reflect.DeepEqual(f.sizes[0], got) {
			return fmt.Errorf("loaded memory's size %v, saved %v", got, f.sizes[0])
		}
	}
	got, err := c.evaluate(ctx, back, 1)
	if err != nil {
		return err
	}
	if d := sameDecisions(f.eval, got); d != "" {
		return fmt.Errorf("the loaded memory evaluates differently: %s", d)
	}
	return nil
}

// foreign is the row of a Parquet file no method writes.
type foreign struct {
	Planet string  `parquet:"planet"`
	Mass   float64 `parquet:"mass"`
}

// damage is one way of spoiling a saved file.
type damage struct {
	name string
	do   func(ctx context.Context, path string, b []byte) error
}

var damages = []damage{
	{"truncated", func(_ context.Context, path string, b []byte) error { return os.WriteFile(path, b[:len(b)/2], 0o644) }},
	{"not parquet", func(_ context.Context, path string, _ []byte) error {
		return os.WriteFile(path, []byte("this is not the file that was saved\n"), 0o644)
	}},
	{"foreign schema", func(ctx context.Context, path string, _ []byte) error {
		if err := os.Remove(path); err != nil {
			return err
		}
		return checkpoints.WriteFile(ctx, path, []foreign{{"mars", 0.107}}, checkpoints.WriteOptions{})
	}},
	{"removed", func(_ context.Context, path string, _ []byte) error { return os.Remove(path) }},
}

// knownKind reports whether err wraps one of the typed errors a bad
// checkpoint may give.
func (c *config) knownKind(err error) bool {
	kinds := append([]error{checkpoints.ErrMissing, checkpoints.ErrNotParquet, checkpoints.ErrCorrupt,
		checkpoints.ErrSchema, checkpoints.ErrFormatVersion, checkpoints.ErrIncompatible, fs.ErrNotExist}, c.Errors...)
	for _, k := range kinds {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

func checkBadCheckpoint(ctx context.Context, c *config) error {
	r, err := c.fixture(ctx)
	if err != nil {
		return err
	}
	good := r.saves[0]
	// try loads dir into the trained method and checks the outcome; a
	// failure must name the damaged file (name, unless "").
	try := func(what, dir, name string, derived bool) error {
		err := r.m.(agent.Saver).Load(ctx, dir)
		switch {
		case err == nil && !derived:
			return fmt.Errorf("%s: Load succeeded", what)
		case err != nil && !c.knownKind(err):
			return fmt.Errorf("%s: Load failed with an error of no known kind: %w", what, err)
		case err != nil && name != "" && !strings.Contains(err.Error(), filepath.Base(name)):
			return fmt.Errorf("%s: Load's error does not name the file: %w", what, err)
		}
		_, now, serr := c.save(ctx, r.m)
		if serr != nil {
			return fmt.Errorf("%s: %w", what, serr)
		}
		// A rebuilt index may be laid out otherwise than the one saved;
		// the memory it indexes is what must be the same.
		if d := sameFiles(primary(good), primary(now)); d != "" {
			if err != nil {
				return fmt.Errorf("%s: the failed Load (%v) changed the memory: %s", what, err, d)
			}
			return fmt.Errorf("%s: rebuilding a derived file changed the memory: %s", what, d)
		}
		return nil
	}
	empty, err := c.tmp()
	if err != nil {
		return err
	}
	if err := try("an empty directory", empty, "", false); err != nil {
		return err
	}
	names := make([]string, 0, len(good))
	for n := range good {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, dm := range damages {
			dir, err := c.tmp()
			if err != nil {
				return err
			}
			for n, b := range good {
				p := filepath.Join(dir, n)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					return err
				}
			}
			if err := dm.do(ctx, filepath.Join(dir, name), good[name]); err != nil {
				return err
			}
			if err := try(name+" "+dm.name, dir, name, checkpoints.IsDerived(name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// primary drops the derived files of a save.
func primary(files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for n, b := range files {
		if !checkpoints.IsDerived(n) {
			out[n] = b
		}
	}
	return out
}

func checkParallel(ctx context.Context, c *config) error {
	f, err := c.fixture(ctx)
	if err != nil {
		return err
	}
	if d := sameDecisions(f.eval, f.evalMany); d != "" {
		return fmt.Errorf("evaluation with %d workers decided differently from one worker: %s", c.Workers, d)
	}
	// Training with several workers interleaves memory updates in an order
	// of its own: it must end without an error (and, under -race, without
	// a data race), not with the memory of one worker.
	_, err = c.train(ctx, c.Workers)
	return err
}

// Pick chooses one of replies by a hash of the request's messages, so that
// a script answers the same request the same way and different requests
// differently (a pure function of the request, as Options.Script must be).
func Pick(req llm.Request, replies ...string) string {
	h := fnv.New64a()
	for _, m := range req.Messages {
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content))
		h.Write([]byte{0})
	}
	return replies[h.Sum64()%uint64(len(replies))]
}

// checkShow holds a method that is an agent.Shower to its tables being
// well formed (a name, columns, every row as long as the columns), to
// evaluation leaving them as they were, and, for a Saver, to a loaded
// memory showing the same tables as the one that was saved. Every
// decision's Recall is well formed too: each offered item has text.
func checkShow(ctx context.Context, c *config) error {
	f, err := c.fixture(ctx)
	if err != nil {
		return err
	}
	for _, eps := range [][]runner.Episode{f.train, f.eval} {
		for _, e := range eps {
			for _, tr := range e.Transitions {
				if r := tr.Decision.Recall; r != nil {
					for k, it := range r.Items {
						if it.Text == "" {
							return fmt.Errorf("%s step %d: recall item %d (%s %q) has no text", e.Task.ID, tr.Step, k, it.Kind, it.ID)
						}
					}
				}
			}
		}
	}
	sh, ok := f.m.(agent.Shower)
	if !ok {
		return nil
	}
	tables := sh.MemoryTables()
	if len(tables) == 0 {
		return fmt.Errorf("%s shows no table", f.m.Name())
	}
	for _, t := range tables {
		if t.Name == "" || len(t.Columns) == 0 {
			return fmt.Errorf("table %q: no name or no columns (%v)", t.Name, t.Columns)
		}
		for i, r := range t.Rows {
			if len(r) != len(t.Columns) {
				return fmt.Errorf("table %s row %d: %d cells for %d columns", t.Name, i, len(r), len(t.Columns))
			}
		}
	}
	if !f.saver {
		return nil
	}
	back, err := c.New(c.chat)
	if err != nil {
		return err
	}
	if err := back.(agent.Saver).Load(ctx, f.dir); err != nil {
		return fmt.Errorf("load what %s saved: %w", back.Name(), err)
	}
	again := back.(agent.Shower).MemoryTables()
	if !reflect.DeepEqual(tables, again) {
		return fmt.Errorf("the loaded memory shows other tables than the memory that was saved")
	}
	return nil
}
