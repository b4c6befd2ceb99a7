package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samem/trainer/report"
)

// sweepPart is what one part of a sharded sweep or grid made: its points,
// in <run>/sweep/shards/<i>-of-<n>.json or <run>/grid/shards/<i>-of-<n>.json.
type sweepPart struct {
	Shard Shard `json:"shard"`
	// A threshold sweep: the parameter, every value of the sweep, and the
	// points of this part's values.
	Param  string              `json:"param,omitempty"`
	Values []float64           `json:"values,omitempty"`
	Points []report.SweepPoint `json:"points,omitempty"`
	// A grid: the number of cells, the grid, and this part's points.
	Cells      int         `json:"cells,omitempty"`
	Grid       *GridConfig `json:"grid,omitempty"`
	GridPoints []GridPoint `json:"grid_points,omitempty"`
}

// GridFile holds a merged grid's points: <run>/grid/grid.json.
const GridFile = "grid.json"

func writeSweepPart(run, sub string, shard Shard, p sweepPart) error {
	p.Shard = shard
	dir := filepath.Join(run, sub, "shards")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("shard directory: %w", err)
	}
	return writeJSON(filepath.Join(dir, shard.Dir()+".json"), p)
}

// readSweepParts reads every part in <run>/<sub>/shards/ of the largest
// n and checks that all n are there.
func readSweepParts(run, sub string) ([]sweepPart, error) {
	paths, _ := filepath.Glob(filepath.Join(run, sub, "shards", "*-of-*.json"))
	if len(paths) == 0 {
		return nil, ErrNoParts
	}
	var parts []sweepPart
	n := 0
	for _, p := range paths {
		var sp sweepPart
		if err := readJSON(p, &sp); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrParts, err)
		}
		parts = append(parts, sp)
		n = max(n, sp.Shard.N)
	}
	byIndex := map[int]sweepPart{}
	for _, p := range parts {
		if p.Shard.N == n {
			byIndex[p.Shard.Index] = p
		}
	}
	var out []sweepPart
	var missing []string
	for i := range n {
		p, ok := byIndex[i]
		if !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
			continue
		}
		out = append(out, p)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s: part %s missing", ErrParts, filepath.Join(run, sub), strings.Join(missing, ", "))
	}
	return out, nil
}

// sameRuns checks that the sub-runs were made alike: their training
// records differ in nothing but the flags swept (ignore) and, for a grid,
// the world its world seed generates.
func sameRuns(runs []string, ignore []string, grid bool) error {
	var first *Provenance
	var firstRun string
	for _, r := range runs {
		p, err := ReadProvenance(filepath.Join(r, ProvenanceFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue // trained by a version that wrote none
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrParts, err)
		}
		if first == nil {
			first, firstRun = &p, r
			continue
		}
		var refuse []string
		for _, d := range first.Differences(p, compareOpts{settings: true, ignore: ignore, sameEnvNotNeeded: grid}) {
			if !strings.HasPrefix(d, "system fingerprints") {
				refuse = append(refuse, d)
			}
		}
		if len(refuse) > 0 {
			return fmt.Errorf("%w: %s was made otherwise than %s:\n  %s", ErrParts, r, firstRun, strings.Join(refuse, "\n  "))
		}
	}
	return nil
}

// MergeSweeps puts together the parts of a sharded threshold sweep
// (sweep/shards/) into sweep/sweep.json and the report, and of a sharded
// grid (grid/shards/) into grid/grid.json and its table on out. It
// returns the number of sets merged; ErrNoParts when there was none.
func MergeSweeps(ctx context.Context, run string, out, log io.Writer) (int, error) {
	merged := 0
	parts, err := readSweepParts(run, SweepDir)
	switch {
	case err == nil:
		first := parts[0]
		var points []report.SweepPoint
		var runs []string
		for _, p := range parts {
			if p.Param != first.Param || !slices.Equal(p.Values, first.Values) {
				return merged, fmt.Errorf("%w: sweep part %s sweeps -%s over %v, part %s -%s over %v", ErrParts, p.Shard.String(), p.Param, p.Values, first.Shard.String(), first.Param, first.Values)
			}
			for _, pt := range p.Points {
				points = append(points, pt)
				runs = append(runs, pt.Run)
			}
		}
		if len(points) != len(first.Values) {
			return merged, fmt.Errorf("%w: the sweep's parts hold %d points of %d values", ErrParts, len(points), len(first.Values))
		}
		if err := sameRuns(runs, []string{first.Param}, false); err != nil {
			return merged, err
		}
		path := filepath.Join(run, SweepDir, SweepFile)
		var all []report.SweepPoint
		if err := readJSON(path, &all); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return merged, fmt.Errorf("sweep: %w", err)
		}
		for _, v := range first.Values { // in the order of the sweep
			for _, pt := range points {
				if pt.Value == v {
					all = replacePoint(all, pt)
				}
			}
		}
		if err := writeJSON(path, all); err != nil {
			return merged, err
		}
		cfg, _ := LoadConfig(run)
		if _, err := WriteReport(run, cfg.Resolved().Split); err != nil && !errors.Is(err, report.ErrNoData) {
			return merged, err
		}
		fmt.Fprintf(log, "merged %d sweep parts: %s\n", len(parts), path)
		fmt.Fprintln(out, path)
		merged++
	case !errors.Is(err, ErrNoParts):
		return merged, err
	}
	parts, err = readSweepParts(run, GridDir)
	switch {
	case err == nil:
		first := parts[0]
		var pts []GridPoint
		var runs []string
		for _, p := range parts {
			if p.Cells != first.Cells || p.Grid == nil || first.Grid == nil ||
				!slices.Equal(p.Grid.Seeds, first.Grid.Seeds) || !slices.Equal(p.Grid.WorldSeeds, first.Grid.WorldSeeds) || !slices.Equal(p.Grid.PerTypes, first.Grid.PerTypes) {
				return merged, fmt.Errorf("%w: grid part %s is of another grid than part %s", ErrParts, p.Shard.String(), first.Shard.String())
			}
			pts = append(pts, p.GridPoints...)
			for _, pt := range p.GridPoints {
				runs = append(runs, pt.Run)
			}
		}
		if len(pts) != first.Cells {
			return merged, fmt.Errorf("%w: the grid's parts hold %d of %d cells", ErrParts, len(pts), first.Cells)
		}
		if err := sameRuns(runs, []string{"world-seed", "seed", "per-type"}, true); err != nil {
			return merged, err
		}
		// The order of the unsharded grid: sizes, then world seeds, then seeds.
		g := first.Grid
		slices.SortStableFunc(pts, func(a, b GridPoint) int {
			return cmp.Or(cmp.Compare(slices.Index(g.PerTypes, a.PerType), slices.Index(g.PerTypes, b.PerType)),
				cmp.Compare(slices.Index(g.WorldSeeds, a.WorldSeed), slices.Index(g.WorldSeeds, b.WorldSeed)),
				cmp.Compare(slices.Index(g.Seeds, a.Seed), slices.Index(g.Seeds, b.Seed)))
		})
		path := filepath.Join(run, GridDir, GridFile)
		if err := writeJSON(path, pts); err != nil {
			return merged, err
		}
		var abl []string
		if g.Ablations {
			abl = g.GridMethods()[1:]
		}
		WriteGridTable(out, pts, abl)
		fmt.Fprintf(log, "merged %d grid parts: %s\n", len(parts), path)
		merged++
	case !errors.Is(err, ErrNoParts):
		return merged, err
	}
	if merged == 0 {
		return 0, ErrNoParts
	}
	return merged, nil
}
