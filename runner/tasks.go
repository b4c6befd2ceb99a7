package runner

import (
	"math/rand/v2"

	"github.com/samem/trainer/envbridge"
)

// PerType picks the first n tasks of each task type, keeping the suite's
// order (seed 002 Sec. 4.1: "five tasks from each task type in the training
// set"). n <= 0 keeps every task.
func PerType(tasks []envbridge.Task, n int) []envbridge.Task {
	if n <= 0 {
		return tasks
	}
	count := map[string]int{}
	var out []envbridge.Task
	for _, t := range tasks {
		if count[t.Type] < n {
			count[t.Type]++
			out = append(out, t)
		}
	}
	return out
}

// SamplePerType picks n tasks of each task type at random (seed 002
// Appendix B.1 for ScienceWorld: "we randomly select three tasks per task
// type"), the same ones for the same seed, keeping the suite's order.
// n <= 0 keeps every task.
func SamplePerType(tasks []envbridge.Task, n int, seed int64) []envbridge.Task {
	if n <= 0 {
		return tasks
	}
	byType := map[string][]int{}
	var order []string
	for i, t := range tasks {
		if _, ok := byType[t.Type]; !ok {
			order = append(order, t.Type)
		}
		byType[t.Type] = append(byType[t.Type], i)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x5a3e))
	keep := make([]bool, len(tasks))
	for _, typ := range order {
		idx := byType[typ]
		r.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		for _, i := range idx[:min(n, len(idx))] {
			keep[i] = true
		}
	}
	var out []envbridge.Task
	for i, t := range tasks {
		if keep[i] {
			out = append(out, t)
		}
	}
	return out
}
