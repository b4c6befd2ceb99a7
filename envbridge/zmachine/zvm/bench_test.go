package zvm

import (
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// benchSteps measures steps: one Input and the Run to the next prompt. It
// replays the walkthrough from a snapshot of the first prompt, over and
// over, so every step is a real move of the game; b.N counts steps and the
// steps/s metric is reported.
func benchSteps(b *testing.B, story []byte, seed int64, lines []string, noCache bool) {
	m, err := Load(story, Options{Seed: seed})
	if err != nil {
		b.Fatal(err)
	}
	m.noCache = noCache
	w, err := m.Run()
	if err != nil || w != WaitLine {
		b.Fatalf("first Run: %v %v", w, err)
	}
	m.Output()
	start := m.Snapshot()
	i := 0
	b.ReportAllocs()
	ex0 := m.executed
	cpu0 := cpuTime()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if i == len(lines) {
			b.StopTimer()
			m.Restore(start)
			i = 0
			b.StartTimer()
		}
		var err error
		if w == WaitKey {
			err = m.Key(13)
		} else {
			err = m.Input(lines[i])
			i++
		}
		if err != nil {
			b.Fatal(err)
		}
		w, err = m.Run()
		if err != nil {
			b.Fatal(err)
		}
		m.Output()
		if w == Halted {
			b.StopTimer()
			m.Restore(start)
			w, i = WaitLine, 0
			b.StartTimer()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
	// On a loaded machine wall-clock time overstates the cost; the process's
	// CPU time per step (user+system, GC included) is reported beside it.
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "steps/cpu-s")
	// The Z-machine instructions a step executes, and the CPU time of one
	// (the interpreter's own speed, whatever the game's turns cost).
	ins := float64(m.executed - ex0)
	b.ReportMetric(ins/float64(b.N), "instr/step")
	b.ReportMetric(float64(cpu.Nanoseconds())/ins, "cpu-ns/instr")
}

// cpuTime is the CPU time this process has used (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkStepZork1(b *testing.B) {
	dir, games := jerichoGames(b)
	g := games["zork1.z5"]
	benchSteps(b, readStory(b, filepath.Join(dir, "zork1.z5")), g.Seed, g.Walkthrough, false)
}

func BenchmarkStepCook(b *testing.B) {
	dir := filepath.Join(sharedDir(b, "games"), "arigraph")
	cmds, _ := cookingWalkthrough(b, filepath.Join(dir, "cook.json"))
	benchSteps(b, readStory(b, filepath.Join(dir, "cook.z8")), 0, cmds, false)
}

// BenchmarkStepCookNoCache is BenchmarkStepCook without the instruction
// cache (every instruction decoded by step): the cache's gain, measured in
// the same run.
func BenchmarkStepCookNoCache(b *testing.B) {
	dir := filepath.Join(sharedDir(b, "games"), "arigraph")
	cmds, _ := cookingWalkthrough(b, filepath.Join(dir, "cook.json"))
	benchSteps(b, readStory(b, filepath.Join(dir, "cook.z8")), 0, cmds, true)
}

// BenchmarkSnapshotRestore measures one Snapshot plus one Restore on zork1
// in mid-game (target: at most 50 µs).
func BenchmarkSnapshotRestore(b *testing.B) {
	dir, games := jerichoGames(b)
	g := games["zork1.z5"]
	m, err := Load(readStory(b, filepath.Join(dir, "zork1.z5")), Options{Seed: g.Seed})
	if err != nil {
		b.Fatal(err)
	}
	play(b, m, g.Walkthrough[:40])
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		s := m.Snapshot()
		m.Restore(s)
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkWorldHash measures WorldHash on zork1 (the driver's valid-action
// search calls it once per candidate).
func BenchmarkWorldHash(b *testing.B) {
	dir, games := jerichoGames(b)
	g := games["zork1.z5"]
	m, err := Load(readStory(b, filepath.Join(dir, "zork1.z5")), Options{Seed: g.Seed})
	if err != nil {
		b.Fatal(err)
	}
	play(b, m, g.Walkthrough[:10])
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		m.WorldHash()
	}
}

// exploreScript is the script played on the TextWorld games that come
// without a walkthrough (hunt, clean_3x3_default): looking, the inventory,
// the four moves and back, examining, taking all.
var exploreScript = []string{"look", "inventory", "north", "south", "south", "north", "east", "west",
	"west", "east", "examine room", "take all", "inventory", "look"}

// engineGames are the games BenchmarkEngines plays: every TextWorld game of
// ../shared/games/arigraph (its walkthrough, or exploreScript) and zork1
// (its walkthrough at its seed).
func engineGames(b *testing.B) []engineGame {
	tw := filepath.Join(sharedDir(b, "games"), "arigraph")
	var gs []engineGame
	for _, name := range []string{"hunt", "clean_3x3_default", "cook", "cook_1_1_cut", "cook_1_9"} {
		cmds, _ := cookingWalkthrough(b, filepath.Join(tw, name+".json"))
		if len(cmds) == 0 {
			cmds = exploreScript
		}
		gs = append(gs, engineGame{name, filepath.Join(tw, name+".z8"), 0, cmds})
	}
	dir, jg := jerichoGames(b)
	gs = append(gs, engineGame{"zork1", filepath.Join(dir, "zork1.z5"), jg["zork1.z5"].Seed, jg["zork1.z5"].Walkthrough})
	return gs
}

type engineGame struct {
	name, path string
	seed       int64
	script     []string
}

// BenchmarkEngines compares the two interpreters' engines on the same
// scripts, per CPU second (the machine may be shared: wall-clock rates
// would measure the load). One iteration plays the whole script on zvm
// (from a snapshot of the opening; the CPU time of this thread) and through
// one dfrotz process (dfrotz -m -p -q, the script piped in; the child's CPU
// time, less that of a dfrotz run of the opening alone, measured in the
// same iteration). Metrics: zvm steps/cpu-s, instructions per step and
// CPU ns per instruction; dfrotz steps/cpu-s; their ratio.
func BenchmarkEngines(b *testing.B) {
	dfrotz := dfrotzPath(b)
	for _, g := range engineGames(b) {
		b.Run(g.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			m, err := Load(readStory(b, g.path), Options{Seed: g.seed})
			if err != nil {
				b.Fatal(err)
			}
			if w, err := m.Run(); err != nil || w == Halted {
				b.Fatalf("opening: %v %v", w, err)
			}
			m.Output()
			start := m.Snapshot()
			playSteps(b, m, g.script) // once unmeasured: the decoded instructions are warm, as in any run past the first turns
			script := strings.Join(g.script, "\n") + "\n"
			var zvmCPU, dfCPU time.Duration
			var ins uint64
			steps := 0
			for b.Loop() {
				m.Restore(start)
				ex, c0 := m.executed, threadCPU()
				steps += playSteps(b, m, g.script)
				zvmCPU += threadCPU() - c0
				ins += m.executed - ex
				full := dfrotzCPU(b, dfrotz, g, script)
				open := dfrotzCPU(b, dfrotz, g, "")
				dfCPU += max(full-open, 0)
			}
			zs := float64(steps) / zvmCPU.Seconds()
			b.ReportMetric(zs, "zvm-steps/cpu-s")
			b.ReportMetric(float64(ins)/float64(steps), "instr/step")
			b.ReportMetric(float64(zvmCPU.Nanoseconds())/float64(ins), "zvm-cpu-ns/instr")
			b.ReportMetric(float64(ins)/zvmCPU.Seconds(), "zvm-instr/cpu-s")
			if dfCPU > 0 {
				ds := float64(steps) / dfCPU.Seconds()
				b.ReportMetric(ds, "dfrotz-steps/cpu-s")
				b.ReportMetric(zs/ds, "zvm/dfrotz")
			}
		})
	}
}

// playSteps plays script on m as play does and returns the steps played
// (lines consumed).
func playSteps(b *testing.B, m *Machine, script []string) int {
	n := 0
	for _, line := range script {
		w, err := m.Run()
		m.Output()
		if err != nil {
			b.Fatal(err)
		}
		if w == Halted {
			break
		}
		if w == WaitKey {
			k := uint16(13)
			if line != "" {
				k = uint16(line[0])
			}
			err = m.Key(k)
		} else {
			err = m.Input(line)
		}
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
	if _, err := m.Run(); err != nil {
		b.Fatal(err)
	}
	m.Output()
	return n
}

// dfrotzCPU runs dfrotz on g with input piped in and returns its CPU time
// (user + system).
func dfrotzCPU(b *testing.B, dfrotz string, g engineGame, input string) time.Duration {
	cmd := exec.Command(dfrotz, "-m", "-p", "-q", "-s", fmt.Sprint(g.seed), g.path)
	cmd.Stdin = strings.NewReader(input)
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		b.Fatalf("dfrotz %s: %v", g.path, err)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// threadCPU is the CPU time of the calling OS thread (the benchmark locks
// its goroutine to it).
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
