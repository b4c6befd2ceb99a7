// Package extern runs the benchmarks that other packages own and reads
// their figures: `go test -bench` of a package (envbridge/household,
// envbridge/zmachine) and the cluster package's own program
// (go run ./bench/cluster), whose table it parses. The suite reuses them
// rather than copying their code, so a figure means the same in both places.
package extern

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// ErrOutput is wrapped by the parsers when output does not have the
// expected shape.
var ErrOutput = errors.New("unexpected benchmark output")

// GoBench is one result line of `go test -bench`.
type GoBench struct {
	Name  string // without the "Benchmark" prefix and the -procs suffix
	Procs int    // GOMAXPROCS suffix; 1 when absent
	N     int    // iterations
	// Metrics maps a unit ("ns/op", "steps/s", "B/op", ...) to its value.
	Metrics map[string]float64
}

// GoTest is what one `go test -bench` run printed.
type GoTest struct {
	Benchmarks []GoBench
	// Skipped maps a skipped benchmark's name to the reason it logged.
	Skipped map[string]string
}

// Find returns the benchmark called name (without the prefix), if present.
func (g GoTest) Find(name string) (GoBench, bool) {
	for _, b := range g.Benchmarks {
		if b.Name == name {
			return b, true
		}
	}
	return GoBench{}, false
}

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-(\d+))?\s+(\d+)\s+(.*)$`)

// ParseGoTest reads the output of `go test -v -bench` (the standard text
// format, not -json): result lines "BenchmarkX-2  123  456 ns/op  7 unit",
// and skips: with -v a benchmark's log lines (indented) follow its bare name
// and precede "--- SKIP: BenchmarkX"; the last one is taken as the reason.
func ParseGoTest(out []byte) (GoTest, error) {
	g := GoTest{Skipped: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	lastLog := ""
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			lastLog = trimmed
			continue
		}
		if name, ok := strings.CutPrefix(trimmed, "--- SKIP: Benchmark"); ok {
			name, _, _ = strings.Cut(name, " ")
			reason := lastLog
			if reason == "" {
				reason = "skipped"
			}
			g.Skipped[trimProcs(name)] = reason
			lastLog = ""
			continue
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			lastLog = "" // a bare name: the logs that follow are this benchmark's
			continue
		}
		b := GoBench{Name: m[1], Procs: 1, Metrics: map[string]float64{}}
		if m[2] != "" {
			b.Procs, _ = strconv.Atoi(m[2])
		}
		n, err := strconv.Atoi(m[3])
		if err != nil {
			return g, fmt.Errorf("%w: %q: %v", ErrOutput, line, err)
		}
		b.N = n
		f := strings.Fields(m[4])
		if len(f)%2 != 0 {
			return g, fmt.Errorf("%w: %q: values and units do not pair up", ErrOutput, line)
		}
		for i := 0; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return g, fmt.Errorf("%w: %q: value %q", ErrOutput, line, f[i])
			}
			b.Metrics[f[i+1]] = v
		}
		g.Benchmarks = append(g.Benchmarks, b)
	}
	return g, sc.Err()
}

func trimProcs(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}

// RunGoTest runs `go test -v -run ^$ -bench pattern -benchtime benchtime
// -count 1 pkg` in dir (the module root) and parses its output. A failing
// run returns its output in the error.
func RunGoTest(ctx context.Context, dir, pkg, pattern, benchtime string) (GoTest, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-v", "-run", "^$", "-bench", pattern, "-benchtime", benchtime, "-count", "1", pkg)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return GoTest{}, fmt.Errorf("go test -bench %s %s: %w\n%s", pattern, pkg, err, tail(out, 2000))
	}
	g, err := ParseGoTest(out)
	if err != nil {
		return g, fmt.Errorf("go test -bench %s %s: %w", pattern, pkg, err)
	}
	return g, nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
