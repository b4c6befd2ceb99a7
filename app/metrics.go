package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/samem/trainer/runner"
)

// MetricsFile is written to <run>/ by train: one JSON line per method and
// training iteration, appended as each iteration's checkpoint is committed
// (docs/RESULTS.md).
const MetricsFile = "metrics.jsonl"

// MetricsLine is one line of metrics.jsonl.
type MetricsLine struct {
	Time   string `json:"time"` // RFC 3339, when the line was written
	Method string `json:"method"`
	Seed   int64  `json:"seed"`
	// Iteration counts from 1.
	Iteration   int     `json:"iteration"`
	Episodes    int     `json:"episodes"`
	Successes   int     `json:"successes"`
	SuccessRate float64 `json:"success_rate"`
	Errored     int     `json:"errored"`
	Steps       int     `json:"steps"`
	// Epsilon is the exploration rate of the iteration's first episode
	// (0 for methods without one).
	Epsilon float64 `json:"epsilon"`
	// Memory is the memory's size by kind after the iteration; MemorySize
	// its main count (memorySize).
	Memory     map[string]int `json:"memory,omitempty"`
	MemorySize int            `json:"memory_size"`
	// Tokens and CostUSD are the iteration's; TokensTotal and CostTotal
	// the method's training so far.
	Tokens      int64   `json:"tokens"`
	TokensTotal int64   `json:"tokens_total"`
	CostUSD     float64 `json:"cost_usd"`
	CostTotal   float64 `json:"cost_total_usd"`
	Seconds     float64 `json:"seconds"`
}

// memorySize is the main count of a memory's size: SAMem's Q-table
// entries, CLIN's abstractions, kgplan's triplets, AriGraph's map triplets,
// the memory stream's memories, Reflexion's reflections (the first
// present), else the sum of its counts.
func memorySize(m map[string]int) int {
	for _, k := range []string{"entries", "abstractions", "triplets", "map_triplets", "memories", "reflections"} {
		if v, ok := m[k]; ok {
			return v
		}
	}
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// appendMetrics appends the last iteration of history to <run>/metrics.jsonl.
func appendMetrics(run, method string, seed int64, history []runner.IterationStats) error {
	if len(history) == 0 {
		return nil
	}
	it := history[len(history)-1]
	l := MetricsLine{
		Time: time.Now().UTC().Format(time.RFC3339), Method: method, Seed: seed, Iteration: it.Iteration + 1,
		Episodes: it.Episodes, Successes: it.Successes, SuccessRate: it.SuccessRate, Errored: it.Errors, Steps: it.Steps,
		Epsilon: it.Epsilon, Memory: it.Size, MemorySize: memorySize(it.Size), Tokens: it.Tokens, CostUSD: it.CostUSD, Seconds: it.Seconds,
	}
	for _, h := range history {
		l.TokensTotal += h.Tokens
		l.CostTotal += h.CostUSD
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	path := filepath.Join(run, MetricsFile)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("metrics: write %s: %w", path, err)
	}
	return f.Close()
}
