package zmachine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

// BenchmarkStep is one Env.Step through dfrotz ("look"): the action's
// turn, the score verb's turn, cleaning and parsing; on hunt.z8 (the row of
// the dfrotz driver's target) and zork1 (the baseline of the in-process zork1 row). Besides
// steps/s it reports dfrotz's own CPU time per step (user+system of the
// child process, from /proc) and the steps per CPU-second of both
// processes together.
func BenchmarkStep(b *testing.B) {
	for _, g := range []string{"arigraph/hunt.z8", "jericho/zork1.z5"} {
		b.Run(benchName(g), func(b *testing.B) {
			needInterpreter(b)
			env := inProcess(b, g, Config{Interpreter: "dfrotz"})
			ctx := ctxT(b)
			child0, self0 := procCPU(env.pid()), cpuTime()
			for b.Loop() {
				if _, err := env.Step(ctx, "look"); err != nil {
					b.Fatal(err)
				}
			}
			child, self := procCPU(env.pid())-child0, cpuTime()-self0
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			if child > 0 {
				b.ReportMetric(float64(b.N)/(child+self).Seconds(), "steps/cpu-s")
				b.ReportMetric(float64(child.Microseconds())/float64(b.N), "dfrotz-cpu-us/step")
			}
		})
	}
}

func benchName(rel string) string {
	return strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
}

// cpuTime is this process's CPU time (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the CPU time (user + system) of a running process, read from
// /proc/PID/stat; 0 where there is none.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil || pid == 0 {
		return 0
	}
	// fields after the command name (which may hold spaces): state is 3rd,
	// utime the 14th and stime the 15th of the whole line
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	const clkTck = 100 // USER_HZ, 100 on Linux
	return time.Duration(ut+st) * time.Second / clkTck
}

// inProcess opens a game of ../shared/games (in-process unless cfg says
// dfrotz) and resets it.
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
// zork1: steps/s (wall clock), steps/cpu-s (this process's CPU time) and
// the Z-machine instructions a step executes.
func BenchmarkInProcessStep(b *testing.B) {
	for _, g := range []string{"arigraph/hunt.z8", "jericho/zork1.z5"} {
		b.Run(benchName(g), func(b *testing.B) {
			env := inProcess(b, g, Config{})
			ctx := ctxT(b)
			ex0, cpu0 := env.vm.m.Executed(), cpuTime()
			for b.Loop() {
				if _, err := env.Step(ctx, "look"); err != nil {
					b.Fatal(err)
				}
			}
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(float64(b.N)/cpu.Seconds(), "steps/cpu-s")
			b.ReportMetric(float64(env.vm.m.Executed()-ex0)/float64(b.N), "instr/step")
		})
	}
}

// BenchmarkSnapshotRestore is one in-memory snapshot and restore of the
// whole machine (zork1 at its opening), as valid actions use it.
func BenchmarkSnapshotRestore(b *testing.B) {
	env := inProcess(b, "jericho/zork1.z5", Config{})
	m := env.vm.m
	cpu0 := cpuTime()
	for b.Loop() {
		s := m.Snapshot()
		m.Restore(s)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1000/float64(b.N), "us/op")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1000/float64(b.N), "cpu-us/op")
}

// BenchmarkDfrotzSaveRestore is its baseline: the game saved and restored
// through dfrotz (Env.Save and Env.Restore: the save and restore commands,
// a Quetzal file in the Env's directory, and the score read again).
func BenchmarkDfrotzSaveRestore(b *testing.B) {
	needInterpreter(b)
	env := inProcess(b, "jericho/zork1.z5", Config{Interpreter: "dfrotz"})
	ctx := ctxT(b)
	for b.Loop() {
		if err := env.Save(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
		if err := env.Restore(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1000/float64(b.N), "us/op")
}

// BenchmarkValidActions is Env.ValidActions in a typical room: zork1's West
// of House (a mailbox, four exits) and TextWorld's hunt Room A, on one
// machine (1core: the sequential search) and on two at once (2core: the
// game's machine and a clone; GOMAXPROCS must be 2 or more for them to run
// in parallel). ms/op is wall-clock time, cpu-ms/op the CPU time of all
// machines together.
func BenchmarkValidActions(b *testing.B) {
	for _, g := range []string{"jericho/zork1.z5", "arigraph/hunt.z8"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/%dcore", benchName(g), workers), func(b *testing.B) {
				env := inProcess(b, g, Config{})
				if _, err := env.validActions(workers); err != nil { // the clones are made once per game
					b.Fatal(err)
				}
				var n int
				cpu0 := cpuTime()
				for b.Loop() {
					va, err := env.validActions(workers)
					if err != nil {
						b.Fatal(err)
					}
					n = len(va)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/op")
				// the CPU time of the search, all machines together: on a
				// machine shared with other work the wall-clock time above
				// includes waiting for a core
				b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(n), "actions")
				b.ReportMetric(float64(len(env.candidates())), "candidates")
			})
		}
	}
}

// BenchmarkDfrotzValidActions is the valid-action search through dfrotz,
// the baseline (as Jericho-style tools without in-memory snapshots do it):
// the same candidates, each tried after restoring a saved game
// (Env.Restore, then Env.Step of the candidate). Only the time is
// measured; the worlds are not compared.
func BenchmarkDfrotzValidActions(b *testing.B) {
	needInterpreter(b)
	for _, g := range []string{"jericho/zork1.z5", "arigraph/hunt.z8"} {
		b.Run(benchName(g), func(b *testing.B) {
			cands := inProcess(b, g, Config{}).candidates()
			env := inProcess(b, g, Config{Interpreter: "dfrotz"})
			ctx := ctxT(b)
			if err := env.Save(ctx, "va"); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				for _, c := range cands {
					if err := env.Restore(ctx, "va"); err != nil {
						b.Fatal(err)
					}
					if _, err := env.Step(ctx, c); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/op")
			b.ReportMetric(float64(len(cands)), "candidates")
		})
	}
}

// BenchmarkValidActionsSuite replays the walkthrough of every game of
// ../shared/games/jericho/suite.json and makes the valid actions, on one
// machine, before every validEvery-th step (a sample: the whole suite at
// every step takes minutes): the search's time per step (median and
// slowest, wall clock and the thread's CPU time) and the recall on the
// steps whose command changes the object tree (listed: the command itself
// is in the list; matched: or an action with the same effect). One
// iteration is the whole suite.
func BenchmarkValidActionsSuite(b *testing.B) {
	const validEvery = 25
	dir := filepath.Join(gamesDir(b), "jericho")
	games, ok, err := ReadJericho(filepath.Join(dir, JerichoFile))
	if err != nil || !ok {
		b.Skipf("no %s in %s: %v", JerichoFile, dir, err)
	}
	s, err := NewSuite(ctxT(b), Config{}, dir)
	if err != nil {
		b.Fatal(err)
	}
	tasks, _ := s.Tasks(envbridge.SplitTrain)
	var all Recall
	for b.Loop() {
		all = Recall{}
		for _, task := range tasks {
			jg, ok := games[filepath.Base(s.byID[task.ID].file)]
			if !ok {
				continue
			}
			env, err := s.OpenEnv(ctxT(b))
			if err != nil {
				b.Fatal(err)
			}
			res, err := Replay(context.Background(), env, task, jg.Walkthrough, ReplayOptions{Valid: true, ValidEvery: validEvery})
			env.Close()
			if err != nil {
				b.Fatalf("%s: %v", task.Type, err)
			}
			all.Add(res.Recall)
		}
	}
	q := func(ds []time.Duration, p float64) float64 {
		if len(ds) == 0 {
			return 0
		}
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[int(p*float64(len(s)-1))]) / 1e6
	}
	b.ReportMetric(float64(all.Steps), "steps")
	b.ReportMetric(q(all.Times, 0.5), "median-ms")
	b.ReportMetric(q(all.Times, 1), "max-ms")
	b.ReportMetric(q(all.CPUTimes, 0.5), "median-cpu-ms")
	b.ReportMetric(q(all.CPUTimes, 1), "max-cpu-ms")
	b.ReportMetric(100*float64(all.TreeListed)/float64(max(all.TreeSteps, 1)), "listed-%")
	b.ReportMetric(100*float64(all.TreeMatched)/float64(max(all.TreeSteps, 1)), "matched-%")
	b.ReportMetric(float64(all.EmptyActs), "empty")
	ins := slices.Clone(all.Instructions)
	slices.Sort(ins)
	if len(ins) > 0 {
		b.ReportMetric(float64(ins[len(ins)/2]), "median-instr")
		b.ReportMetric(float64(ins[len(ins)-1]), "max-instr")
	}
}
