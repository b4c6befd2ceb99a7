package zmachine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
)

// benchSuite is hunt.z8 from ../shared/games when present, else the tiny
// test game, through dfrotz (the baseline of the in-process figures).
func benchSuite(b *testing.B) (*Suite, envbridge.Task) {
	needInterpreter(b)
	var game string
	if d := sharedDirOrEmpty(); d != "" {
		game = filepath.Join(d, "arigraph", "hunt.z8")
	} else {
		game = tinyGame(b)
	}
	s, err := NewSuite(ctxT(b), Config{MaxSteps: 1 << 30, Interpreter: "dfrotz"}, game)
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

// inProcess opens a game of ../shared/games in-process and resets it.
func inProcess(b *testing.B, rel string, cfg Config) *Env {
	b.Helper()
	game := filepath.Join(gamesDir(b), rel)
	cfg.MaxSteps = 1 << 30
	s, err := NewSuite(ctxT(b), cfg, game)
	if err != nil {
		b.Fatal(err)
	}
	ts, _ := s.Tasks(envbridge.SplitTrain)
	env, err := s.OpenEnv(ctxT(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { env.Close() })
	if _, err := env.Reset(ctxT(b), ts[0]); err != nil {
		b.Fatal(err)
	}
	return env
}

// BenchmarkInProcessStep is one Env.Step in-process ("look": a full room
// description, the score read from the machine), on a TextWorld game and on
// zork1. steps/s = 1e9 / ns/op.
func BenchmarkInProcessStep(b *testing.B) {
	for _, g := range []string{"arigraph/hunt.z8", "jericho/zork1.z5"} {
		b.Run(strings.TrimSuffix(filepath.Base(g), filepath.Ext(g)), func(b *testing.B) {
			env := inProcess(b, g, Config{})
			ctx := ctxT(b)
			for b.Loop() {
				if _, err := env.Step(ctx, "look"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}

// BenchmarkSnapshotRestore is one in-memory snapshot and restore of the
// whole machine (zork1 at its opening), as valid actions use it.
func BenchmarkSnapshotRestore(b *testing.B) {
	env := inProcess(b, "jericho/zork1.z5", Config{})
	m := env.vm.m
	for b.Loop() {
		s := m.Snapshot()
		m.Restore(s)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "us/op")
}

// BenchmarkValidActions is Env.ValidActions in a typical room: zork1's West
// of House (a mailbox, four exits) and TextWorld's hunt Room A.
func BenchmarkValidActions(b *testing.B) {
	for _, g := range []string{"jericho/zork1.z5", "arigraph/hunt.z8"} {
		b.Run(strings.TrimSuffix(filepath.Base(g), filepath.Ext(g)), func(b *testing.B) {
			env := inProcess(b, g, Config{})
			var n int
			for b.Loop() {
				va, err := env.ValidActions()
				if err != nil {
					b.Fatal(err)
				}
				n = len(va)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
			b.ReportMetric(float64(n), "actions")
		})
	}
}
