package runner

import "github.com/samem/trainer/envbridge"

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
