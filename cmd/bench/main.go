// Command bench is the benchmark suite of the performance targets (`make
// bench`, docs/PERFORMANCE.md): clustering at
// 100,000 and 10,000 stored vectors, memory-stream retrieval at 100,000
// memories beside the scan of every memory, the trainer's overhead per step,
// parallel episodes against a model adding 200 ms per call, checkpoints of
// a 1,000,000-entry Q-table, the environments' step rates, and the local
// models' speeds (USE texts/s, TinyLlama tokens/s). It prints
// one table: each figure, its target, the baseline measured in the same run,
// their ratio and whether the target is met. About 4 minutes on 2 cores.
//
//	go run ./cmd/bench                          # the whole suite
//	go run ./cmd/bench -only step,checkpoint    # some groups
//	go run ./cmd/bench -record bench/results    # also write bench/results/<date>.md
//	go run ./cmd/bench -profile /tmp/prof       # CPU profiles per group
//	go run ./cmd/bench -quick                   # smoke run, small sizes
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/samem/trainer/bench/suite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	opts := suite.Options{Only: f.only, Quick: f.quick, ProfileDir: f.profile, Root: f.root, Log: stderr}
	if f.child != "" {
		return suite.InProcess(ctx, opts, f.child, stdout)
	}
	return record(ctx, opts, f.record, stdout)
}
