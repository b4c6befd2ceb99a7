package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/samem/trainer/bench/report"
	"github.com/samem/trainer/bench/suite"
)

// findings is the heading of the hand-written part of a results file, which
// a rerun on the same day keeps.
const findings = "## Findings"

// record runs the suite, prints the table, and with dir writes the dated
// results file.
func record(ctx context.Context, opts suite.Options, dir string, stdout io.Writer) error {
	began := time.Now()
	loadBefore := loadavg()
	rows, err := suite.Run(ctx, opts)
	if err != nil {
		return err
	}
	elapsed := time.Since(began)
	if err := report.Text(stdout, rows); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%d figures, %d miss their target, %.0f s\n", len(rows), len(report.Misses(rows)), elapsed.Seconds())
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, began.Format("2006-01-02")+".md")
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Benchmark results, %s\n\n", began.Format("2006-01-02"))
	fmt.Fprintf(&b, "`go run ./cmd/bench%s` on %s: %s, %d CPUs, %s %s/%s; %.0f s in all.\n\n",
		flagsText(opts), began.Format(time.RFC3339), cpuModel(), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH, elapsed.Seconds())
	// The machine is shared: its load average tells how much other work
	// competed with the timed figures.
	fmt.Fprintf(&b, "Load average (1, 5, 15 min) before: %s; after: %s.\n\n", loadBefore, loadavg())
	if err := report.Markdown(&b, rows); err != nil {
		return err
	}
	if old, err := os.ReadFile(path); err == nil {
		if i := bytes.Index(old, []byte(findings)); i >= 0 {
			b.WriteString("\n")
			b.Write(old[i:])
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	fmt.Fprintf(stdout, "recorded in %s\n", path)
	return nil
}

func flagsText(o suite.Options) string {
	s := ""
	if len(o.Only) > 0 {
		s += " -only " + strings.Join(o.Only, ",")
	}
	if o.Quick {
		s += " -quick"
	}
	return s
}

// cpuModel is the "model name" of /proc/cpuinfo, or "unknown CPU".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// loadavg is the first three fields of /proc/loadavg, or "unknown".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
