package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/testenv"
	"github.com/samem/trainer/runner"
)

type styledSuite struct {
	envbridge.Suite
	style envbridge.Style
}

func (s styledSuite) Name() string           { return "fakegame" }
func (s styledSuite) Style() envbridge.Style { return s.style }

// TestFitMethods: kgplan named on its own on a fiction
// environment is refused naming the method and the environment; -method
// all leaves it out and keeps the rest.
func TestFitMethods(t *testing.T) {
	fiction := styledSuite{style: envbridge.StyleFiction}
	cfg := Config{Methods: []string{"samem", "kgplan"}}
	err := fitMethods(&cfg, fiction, new(bytes.Buffer))
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "kgplan cannot run on environment fakegame") {
		t.Errorf("kgplan on fiction: err = %v, want ErrConfig naming kgplan and fakegame", err)
	}
	var note bytes.Buffer
	cfg = Config{Methods: MainMethods(false), FitOnly: true}
	if err := fitMethods(&cfg, fiction, &note); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Methods) != len(MainMethods(false))-1 || strings.Contains(strings.Join(cfg.Methods, ","), "kgplan") {
		t.Errorf("-method all on fiction kept %v", cfg.Methods)
	}
	if !strings.Contains(note.String(), "kgplan cannot run on environment fakegame") {
		t.Errorf("no note of the method left out: %q", note.String())
	}
	cfg = Config{Methods: []string{"kgplan"}}
	if err := fitMethods(&cfg, styledSuite{style: envbridge.StyleHousehold}, new(bytes.Buffer)); err != nil || len(cfg.Methods) != 1 {
		t.Errorf("kgplan on household: %v, %v", err, cfg.Methods)
	}
}

// TestKgplanOnZmachineRefusedBeforeWriting: through Train, with a real game
// file: exit-2 error, and no run directory made.
func TestKgplanOnZmachineRefusedBeforeWriting(t *testing.T) {
	game := filepath.Join("..", "..", "shared", "games", "arigraph", "hunt.z8")
	_, err := os.Stat(game)
	testenv.Need(t, err == nil, "the shared game "+game)
	cfg := Defaults()
	cfg.Run = filepath.Join(t.TempDir(), "run")
	cfg.Env = EnvConfig{Kind: "zmachine", Game: game}
	cfg.Methods = []string{"kgplan"}
	_, err = Train(context.Background(), cfg, Streams{Out: new(bytes.Buffer), Err: new(bytes.Buffer)})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "kgplan cannot run on environment") {
		t.Fatalf("err = %v, want ErrConfig naming kgplan", err)
	}
	if _, err := os.Stat(cfg.Run); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused run made its directory: %v", err)
	}
}

// TestResumeMessages: "resumed from" comes before the
// iteration lines, and a finished method names its checkpoint.
func TestResumeMessages(t *testing.T) {
	cfg := Defaults()
	cfg.Run = t.TempDir()
	cfg.Iterations, cfg.Workers, cfg.PerType = 1, 1, 1
	cfg.Env.MaxSteps = 5
	stop := make(chan struct{})
	close(stop) // stops before any episode: a checkpoint of nothing done
	var out bytes.Buffer
	if _, err := Train(context.Background(), cfg, Streams{Out: &out, Err: &out, Stop: stop}); !IsInterrupted(err) {
		t.Fatalf("err = %v, want interrupted\n%s", err, out.String())
	}
	out.Reset()
	if _, err := Train(context.Background(), cfg, Streams{Out: &out, Err: &out}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	r, it := strings.Index(s, "samem resumed from "), strings.Index(s, "samem iteration 1/1")
	if r < 0 || it < 0 || r > it {
		t.Errorf("want \"resumed from\" before the iteration lines:\n%s", s)
	}
	out.Reset()
	if _, err := Train(context.Background(), cfg, Streams{Out: &out, Err: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "samem: checkpoint "+filepath.Join(cfg.Run, "samem", "checkpoints")) {
		t.Errorf("resuming a finished method does not name its checkpoint:\n%s", out.String())
	}
}

// stopAfter closes stop once n episodes are done: a graceful stop in the
// middle of an iteration.
type stopAfter struct {
	n    int
	stop chan struct{}
}

func (s *stopAfter) Begin(string, int) {}
func (s *stopAfter) End(string)        {}
func (s *stopAfter) Done(runner.Episode) {
	if s.n--; s.n == 0 {
		close(s.stop)
	}
}

// TestEvalWarnsMidIteration: a memory checkpointed in
// the middle of a training iteration is evaluated with a warning saying so.
func TestEvalWarnsMidIteration(t *testing.T) {
	ctx := context.Background()
	cfg := Defaults()
	cfg.Run = t.TempDir()
	cfg.Iterations, cfg.Workers, cfg.PerType = 2, 1, 1
	cfg.Env.MaxSteps = 5
	suite, err := NewSuite(ctx, cfg.Env, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := suite.Tasks(envbridge.SplitTrain)
	backend, err := NewBackend(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMethod("samem", cfg, backend)
	if err != nil {
		t.Fatal(err)
	}
	stop := &stopAfter{n: 2, stop: make(chan struct{})}
	_, err = runner.Train(ctx, runner.TrainConfig{Method: m, Suite: suite, Tasks: runner.PerType(tasks, 1), Iterations: 2, Workers: 1,
		Seed: cfg.Seed, Dir: filepath.Join(cfg.Run, "samem"), Stop: stop.stop, Progress: stop,
		Meta: checkpoints.Meta{EmbedderModel: backend.Embedder.Model(), EmbedDim: int32(backend.Embedder.Dim())}})
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("train: %v, want interrupted", err)
	}
	cfg.Methods, cfg.Tasks = []string{"samem"}, 2
	var out bytes.Buffer
	if _, err := Eval(ctx, cfg, Streams{Out: &out, Err: &out}); err != nil {
		t.Fatalf("Eval: %v\n%s", err, out.String())
	}
	// The stop is closed as the second episode finishes, and the one worker
	// checks it before it starts the next: exactly 2 of the iteration's 6
	// episodes are done, however the goroutines are scheduled.
	if !regexp.MustCompile(`warning: samem is evaluated from checkpoint \S+, saved in the middle of training iteration 1 \(2 episodes of it done\)`).MatchString(out.String()) {
		t.Errorf("no mid-iteration warning:\n%s", out.String())
	}
}
