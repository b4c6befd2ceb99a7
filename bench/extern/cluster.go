package extern

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// TableRow is one row of a table printed by a benchmark program
// (figure, value, target, same-run baseline), as text.
type TableRow struct {
	Figure, Value, Target, Baseline string
}

// Number returns the first number in s ("16.561 (2.9x)" -> 16.561); ok is
// false when s has none (for example "-").
func Number(s string) (v float64, ok bool) {
	m := number.FindString(s)
	if m == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(m, 64)
	return v, err == nil
}

var (
	number = regexp.MustCompile(`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`)
	// Columns of a text/tabwriter table are separated by two spaces or more;
	// cells themselves hold single spaces only.
	columns = regexp.MustCompile(`\s{2,}|\t+`)
)

// ParseTable reads a table whose header line starts with "figure" and whose
// columns are figure, value, target and baseline, separated by runs of two
// or more spaces (text/tabwriter's output). Lines before the header are
// ignored; a row with fewer than two cells ends the table.
func ParseTable(out []byte) ([]TableRow, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var rows []TableRow
	inTable := false
	for sc.Scan() {
		cells := columns.Split(strings.TrimSpace(sc.Text()), -1)
		if !inTable {
			inTable = len(cells) >= 2 && cells[0] == "figure"
			continue
		}
		if len(cells) < 2 {
			break
		}
		for len(cells) < 4 {
			cells = append(cells, "")
		}
		rows = append(rows, TableRow{Figure: cells[0], Value: cells[1], Target: cells[2], Baseline: strings.Join(cells[3:], " ")})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !inTable {
		return nil, fmt.Errorf("%w: no table header (a line starting with \"figure\")", ErrOutput)
	}
	return rows, nil
}

// FindRow returns the first row whose figure starts with prefix.
func FindRow(rows []TableRow, prefix string) (TableRow, bool) {
	for _, r := range rows {
		if strings.HasPrefix(r.Figure, prefix) {
			return r, true
		}
	}
	return TableRow{}, false
}

// RunCluster runs the cluster package's benchmark program
// (go run ./bench/cluster args...) in dir, the module root, and parses its
// table. Its log (stderr) is returned beside the rows.
func RunCluster(ctx context.Context, dir string, args ...string) (rows []TableRow, log string, err error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"run", "./bench/cluster"}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, stderr.String(), fmt.Errorf("go run ./bench/cluster: %w\n%s", err, tail(stderr.Bytes(), 2000))
	}
	rows, err = ParseTable(stdout.Bytes())
	if err != nil {
		return nil, stderr.String(), fmt.Errorf("go run ./bench/cluster: %w\n%s", err, tail(stdout.Bytes(), 2000))
	}
	return rows, stderr.String(), nil
}
