package zmachine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/samem/trainer/envbridge"
)

// benchSuite is hunt.z8 from ../shared/games when present, else the tiny
// test game.
func benchSuite(b *testing.B) (*Suite, envbridge.Task) {
	needInterpreter(b)
	var game string
	if d := sharedDirOrEmpty(); d != "" {
		game = filepath.Join(d, "arigraph", "hunt.z8")
	} else {
		game = tinyGame(b)
	}
	s, err := NewSuite(ctxT(b), Config{MaxSteps: 1 << 30}, game)
	if err != nil {
		b.Fatal(err)
	}
	ts, _ := s.Tasks(envbridge.SplitTrain)
	b.Logf("game %s", game)
	return s, ts[0]
}

func sharedDirOrEmpty() string {
	root, err := moduleRoot()
	if err != nil {
		return ""
	}
	d := filepath.Join(root, "..", "shared", "games")
	if _, err := os.Stat(filepath.Join(d, "arigraph", "hunt.z8")); err != nil {
		return ""
	}
	return d
}

// BenchmarkInterpreterTurn is one raw round trip through dfrotz: a command
// written, its output read up to the prompt ("look", so the text is a full
// room description). turns/s = 1e9 / ns/op.
func BenchmarkInterpreterTurn(b *testing.B) {
	s, task := benchSuite(b)
	env, err := s.OpenEnv(ctxT(b))
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Reset(ctxT(b), task); err != nil {
		b.Fatal(err)
	}
	ctx := ctxT(b)
	for b.Loop() {
		if _, err := env.turn(ctx, "look"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}

// BenchmarkStep is one Env.Step: the action's turn, the score verb's turn,
// cleaning and parsing. Its excess over two interpreter turns is the
// driver's per-step overhead.
func BenchmarkStep(b *testing.B) {
	s, task := benchSuite(b)
	env, err := s.OpenEnv(ctxT(b))
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Reset(ctxT(b), task); err != nil {
		b.Fatal(err)
	}
	ctx := ctxT(b)
	for b.Loop() {
		if _, err := env.Step(ctx, "look"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
