// Package suite is the benchmark suite behind `make bench`: it runs
// every group of figures (clustering, memory-stream retrieval, trainer
// overhead per step, parallel
// episodes, checkpoints, environments, local models), each with its target
// and a baseline measured in the same run, and returns one table of rows.
//
// Groups that measure memory or would disturb each other run in child
// processes of the benchmark program itself (Options.Exe with -child), so
// that each peak-memory figure is that group's alone. Figures owned by other
// packages come from their own benchmark code: go run ./bench/cluster and
// go test -bench in envbridge/household and envbridge/zmachine.
package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/samem/trainer/bench/report"
)

// Groups lists the groups in the order they run.
var Groups = []string{"cluster", "memstream", "step", "parallel", "checkpoint", "household", "zmachine", "local"}

// ErrGroup is returned for an unknown group name.
var ErrGroup = errors.New("unknown benchmark group")

// Options configure a run.
type Options struct {
	// Only restricts the run to these groups (default all of Groups).
	Only []string
	// Quick shrinks every size for a smoke run of the program (about a
	// minute); its figures do not answer the targets.
	Quick bool
	// ProfileDir, when not "", receives a CPU profile per group
	// (<group>.pprof) for `go tool pprof`.
	ProfileDir string
	// Root is the module root, where go run and go test are started
	// (default ".").
	Root string
	// Exe is the benchmark program, re-executed with -child for the groups
	// that run in a process of their own (default os.Executable()).
	Exe string
	// Log receives progress lines (default io.Discard).
	Log io.Writer
}

func (o Options) withDefaults() (Options, error) {
	if len(o.Only) == 0 {
		o.Only = Groups
	}
	for _, g := range o.Only {
		if !slices.Contains(Groups, g) {
			return o, fmt.Errorf("%w: %q (groups: %s)", ErrGroup, g, strings.Join(Groups, ", "))
		}
	}
	if o.Root == "" {
		o.Root = "."
	}
	if o.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return o, err
		}
		o.Exe = exe
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.ProfileDir != "" {
		abs, err := filepath.Abs(o.ProfileDir)
		if err != nil {
			return o, err
		}
		o.ProfileDir = abs
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return o, err
		}
	}
	return o, nil
}

// childGroups run in a child process (InProcess).
var childGroups = map[string]bool{"memstream": true, "step": true, "parallel": true, "checkpoint": true}

// Run runs the selected groups in order and returns their rows. A group
// that fails contributes a row saying so; the run goes on.
func Run(ctx context.Context, opts Options) ([]report.Row, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	var rows []report.Row
	for _, g := range Groups {
		if !slices.Contains(opts.Only, g) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		t0 := time.Now()
		fmt.Fprintf(opts.Log, "bench: %s ...\n", g)
		var got []report.Row
		if childGroups[g] {
			got, err = child(ctx, opts, g)
		} else {
			got, err = external(ctx, opts, g)
		}
		if err != nil {
			fmt.Fprintf(opts.Log, "bench: %s failed: %v\n", g, err)
			got = append(got, report.Row{Group: g, Figure: g + " group", Value: report.None, Baseline: report.None, Ratio: report.None, Note: "failed: " + firstLine(err.Error())})
		}
		fmt.Fprintf(opts.Log, "bench: %s done in %.0f s\n", g, time.Since(t0).Seconds())
		for i := range got {
			got[i].Group = g
		}
		rows = append(rows, got...)
	}
	return rows, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// child runs group g in a fresh process of opts.Exe and decodes the rows it
// prints as JSON on stdout; its stderr goes to the log.
func child(ctx context.Context, opts Options, g string) ([]report.Row, error) {
	args := []string{"-child", g}
	if opts.Quick {
		args = append(args, "-quick")
	}
	if opts.ProfileDir != "" {
		args = append(args, "-profile", opts.ProfileDir)
	}
	cmd := exec.CommandContext(ctx, opts.Exe, args...)
	cmd.Dir = opts.Root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, opts.Log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("child %s: %w", g, err)
	}
	var rows []report.Row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		return nil, fmt.Errorf("child %s: rows: %w", g, err)
	}
	return rows, nil
}

// InProcess runs one child group in this process and writes its rows as
// JSON to w: the -child side of child.
func InProcess(ctx context.Context, opts Options, g string, w io.Writer) error {
	opts, err := opts.withDefaults()
	if err != nil {
		return err
	}
	var rows []report.Row
	switch g {
	case "memstream":
		rows, err = memstreamRows(ctx, opts)
	case "step":
		rows, err = stepRows(ctx, opts)
	case "parallel":
		rows, err = parallelRows(ctx, opts)
	case "checkpoint":
		rows, err = checkpointRows(ctx, opts)
	default:
		return fmt.Errorf("%w: %q does not run in a child", ErrGroup, g)
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(rows)
}

func external(ctx context.Context, opts Options, g string) ([]report.Row, error) {
	switch g {
	case "cluster":
		return clusterRows(ctx, opts)
	case "household":
		return householdRows(ctx, opts)
	case "zmachine":
		return zmachineRows(ctx, opts)
	case "local":
		return localRows(ctx, opts)
	}
	return nil, fmt.Errorf("%w: %q", ErrGroup, g)
}
