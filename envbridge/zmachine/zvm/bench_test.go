package zvm

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
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
