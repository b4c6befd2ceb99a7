package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/samem/trainer/samem"
	"github.com/samem/trainer/stats"
)

// GridDir is where a grid sweep keeps its sub-runs: one complete run
// directory per (world seed, run seed, training-set size),
// <run>/grid/w<world>-s<seed>-p<per-type>/.
const GridDir = "grid"

// GridConfig is a sweep of SAMem over world seeds x run seeds x
// training-set sizes (docs/results/2026-11-24-samem-sweep.md): every cell
// trains SAMem (and, with Ablations, its ablation variants) and evaluates it
// with the no-memory baseline, everything else as in Base.
type GridConfig struct {
	Base       Config
	WorldSeeds []int64
	Seeds      []int64
	PerTypes   []int // training tasks per task type; 0 is every training task
	// Ablations adds samem-no-decay and samem-no-forgetting (the ablations
	// whose effect seed 002 states for training: Table 2, Fig. 6).
	Ablations bool
}

// GridRun is the sub-run directory of one cell.
func GridRun(run string, world, seed int64, perType int) string {
	return filepath.Join(run, GridDir, fmt.Sprintf("w%d-s%d-p%d", world, seed, perType))
}

// GridPoint is the result of one (world seed, run seed, size) run.
type GridPoint struct {
	WorldSeed int64 `json:"world_seed"`
	Seed      int64 `json:"seed"`
	PerType   int   `json:"per_type"`
	// Success and Entries per method (samem, nomemory, ablations);
	// Entries is the memory size after training (Q-table entries), NonZero
	// the entries of those with a non-zero Q, and Pruned the thoughts the
	// forgetting step pruned over the whole training (set to Q = 0, seed 002
	// Sec. 3.2: a pruned entry stays counted in Entries unless its row or
	// column empties, so what forgetting removed shows in NonZero and
	// Pruned).
	Success map[string]float64 `json:"success"`
	Entries map[string]int     `json:"entries"`
	NonZero map[string]int     `json:"nonzero"`
	Pruned  map[string]int     `json:"pruned"`
	Run     string             `json:"run"`
}

// GridMethods are the methods a grid trains.
func (g GridConfig) GridMethods() []string {
	ms := []string{samem.Name}
	if g.Ablations {
		ms = append(ms, "samem-no-decay", "samem-no-forgetting")
	}
	return ms
}

// Grid trains and evaluates every cell in order (training sizes outermost,
// then world seeds, then run seeds) and returns the points made so far,
// also on error. A sub-run that exists is resumed by Train, so an
// interrupted grid continues where it stopped. each is called after every
// point (it may be nil).
func Grid(ctx context.Context, g GridConfig, streams Streams, each func(GridPoint)) ([]GridPoint, error) {
	if len(g.WorldSeeds) == 0 || len(g.Seeds) == 0 || len(g.PerTypes) == 0 {
		return nil, fmt.Errorf("%w: -world-seeds, -seeds and -per-types must each name at least one value", ErrConfig)
	}
	for _, p := range g.PerTypes {
		if p < 0 {
			return nil, fmt.Errorf("%w: -per-types: %d: want a count >= 0 (0: every training task)", ErrConfig, p)
		}
	}
	if g.Base.Env.Kind != "" && g.Base.Env.Kind != EnvHousehold {
		return nil, fmt.Errorf("%w: -env %s: a grid sweeps household world seeds", ErrConfig, g.Base.Env.Kind)
	}
	methods := g.GridMethods()
	shard := g.Base.Shard
	g.Base.Shard = Shard{}
	var out []GridPoint
	k := -1
	for _, p := range g.PerTypes {
		for _, w := range g.WorldSeeds {
			for _, s := range g.Seeds {
				k++
				if !shard.Takes(k) {
					continue
				}
				cfg := g.Base
				cfg.Env.Kind = EnvHousehold
				cfg.Env.WorldSeed, cfg.Seed, cfg.PerType = w, s, p
				cfg.Run = GridRun(g.Base.Run, w, s, p)
				cfg.Methods = methods
				if err := cfg.Validate(); err != nil {
					return out, err
				}
				quiet := Streams{Out: io.Discard, Err: io.Discard, Stop: streams.Stop}
				trained, err := Train(ctx, cfg, quiet)
				if err != nil {
					return out, fmt.Errorf("grid %s: %w", cfg.Run, err)
				}
				ecfg := cfg
				ecfg.Methods = append(slices.Clone(methods), "nomemory")
				res, err := Eval(ctx, ecfg, quiet)
				if err != nil {
					return out, fmt.Errorf("grid %s: %w", cfg.Run, err)
				}
				pt := GridPoint{WorldSeed: w, Seed: s, PerType: p, Success: map[string]float64{}, Entries: map[string]int{}, NonZero: map[string]int{}, Pruned: map[string]int{}, Run: cfg.Run}
				for _, r := range res {
					pt.Success[r.Method] = r.SuccessRate
					if r.Memory != nil {
						pt.Entries[r.Method] = r.Memory["entries"]
						pt.NonZero[r.Method] = r.Memory["nonzero"]
					}
				}
				for _, tr := range trained {
					if n := len(tr.History); n > 0 {
						pt.Pruned[tr.Method] = tr.History[n-1].Counters["prunes"]
					}
				}
				if _, ok := pt.Success[samem.Name]; !ok {
					return out, fmt.Errorf("grid %s: no samem result", cfg.Run)
				}
				if _, ok := pt.Success["nomemory"]; !ok {
					return out, fmt.Errorf("grid %s: no nomemory result", cfg.Run)
				}
				out = append(out, pt)
				if each != nil {
					each(pt)
				}
			}
		}
	}
	if shard.Active() {
		return out, writeSweepPart(g.Base.Run, GridDir, shard, sweepPart{Cells: k + 1, Grid: &g, GridPoints: out})
	}
	return out, nil
}

// GridCell aggregates the run seeds of one (size, world seed).
type GridCell struct {
	PerType   int
	WorldSeed int64
	Runs      int
	// SAMem mean and lowest success, no-memory mean, and the margin: SAMem's
	// mean minus no-memory's mean.
	Mean, Min, NoMemory, Margin float64
	// Entries, NonZero and Pruned are SAMem's means (GridPoint); Ablation
	// holds each ablation's mean success, non-zero entries and prunes.
	Entries, NonZero, Pruned float64
	Ablation                 map[string][3]float64
	// CI is SAMem's mean success with its 95 % interval over the run seeds
	// (Student's t, clipped to [0, 1]; no bounds with one run).
	CI stats.Interval
}

// Cells aggregates points by (size, world seed), in the order met.
func Cells(points []GridPoint) []GridCell {
	type key struct {
		p int
		w int64
	}
	var order []key
	groups := map[key][]GridPoint{}
	for _, pt := range points {
		k := key{pt.PerType, pt.WorldSeed}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], pt)
	}
	var cells []GridCell
	for _, k := range order {
		pts := groups[k]
		c := GridCell{PerType: k.p, WorldSeed: k.w, Runs: len(pts), Min: math.Inf(1), Ablation: map[string][3]float64{}}
		for _, pt := range pts {
			s := pt.Success[samem.Name]
			c.Mean += s / float64(len(pts))
			c.Min = min(c.Min, s)
			c.NoMemory += pt.Success["nomemory"] / float64(len(pts))
			n := float64(len(pts))
			c.Entries += float64(pt.Entries[samem.Name]) / n
			c.NonZero += float64(pt.NonZero[samem.Name]) / n
			c.Pruned += float64(pt.Pruned[samem.Name]) / n
			for m, v := range pt.Success {
				if m == samem.Name || m == "nomemory" {
					continue
				}
				a := c.Ablation[m]
				a[0] += v / n
				a[1] += float64(pt.NonZero[m]) / n
				a[2] += float64(pt.Pruned[m]) / n
				c.Ablation[m] = a
			}
		}
		c.Margin = c.Mean - c.NoMemory
		rates := make([]float64, len(pts))
		for i, pt := range pts {
			rates[i] = pt.Success[samem.Name]
		}
		c.CI = stats.MeanT(rates).Clip(0, 1)
		c.CI.Over = "seeds"
		cells = append(cells, c)
	}
	return cells
}

// Goal reports whether the cell meets the goal set for SAMem with the
// offline backend: at least 0.85 on every run seed and at least no-memory +
// 0.25.
func (c GridCell) Goal() bool { return c.Min >= 0.85 && c.Margin >= 0.25 }

// WriteGridTable prints the cells, then one line per training-set size
// (over all its cells) with the change of the mean from the previous size,
// then how many cells meet the goal. Memory columns are SAMem's mean
// Q-table entries, non-zero entries and thoughts pruned by forgetting; an
// ablation shows its mean success, non-zero entries and prunes.
func WriteGridTable(w io.Writer, points []GridPoint, ablations []string) {
	cells := Cells(points)
	fmt.Fprintf(w, "%-8s  %-6s  %-4s  %-10s  %-16s  %-9s  %-13s  %-6s  %-7s  %-7s  %-6s", "per-type", "world", "runs", "samem mean", "95% CI (seeds)", "samem min", "nomemory mean", "margin", "entries", "nonzero", "pruned")
	for _, a := range ablations {
		fmt.Fprintf(w, "  %s (success, nonzero, pruned)", a)
	}
	fmt.Fprintf(w, "  goal\n")
	type agg struct {
		sum, low         float64
		n                int
		met              int
		abl              map[string][3]float64
		ent, nonz, prune float64
	}
	var sizes []int
	bySize := map[int]*agg{}
	for _, c := range cells {
		ci := "-"
		if c.CI.Defined() {
			ci = fmt.Sprintf("[%.3f, %.3f]", c.CI.Low, c.CI.High)
		}
		fmt.Fprintf(w, "%-8s  %-6d  %-4d  %-10.3f  %-16s  %-9.3f  %-13.3f  %-6.3f  %-7.1f  %-7.1f  %-6.1f", sizeName(c.PerType), c.WorldSeed, c.Runs, c.Mean, ci, c.Min, c.NoMemory, c.Margin, c.Entries, c.NonZero, c.Pruned)
		for _, a := range ablations {
			v := c.Ablation[a]
			fmt.Fprintf(w, "  %-*s", len(a)+28, fmt.Sprintf("%.3f, %.1f, %.1f", v[0], v[1], v[2]))
		}
		fmt.Fprintf(w, "  %s\n", yesNo(c.Goal()))
		g := bySize[c.PerType]
		if g == nil {
			g = &agg{low: math.Inf(1), abl: map[string][3]float64{}}
			bySize[c.PerType] = g
			sizes = append(sizes, c.PerType)
		}
		r := float64(c.Runs)
		g.sum += c.Mean * r
		g.ent += c.Entries * r
		g.nonz += c.NonZero * r
		g.prune += c.Pruned * r
		g.n += c.Runs
		g.low = min(g.low, c.Min)
		if c.Goal() {
			g.met++
		}
		for _, a := range ablations {
			v, x := c.Ablation[a], g.abl[a]
			g.abl[a] = [3]float64{x[0] + v[0]*r, x[1] + v[1]*r, x[2] + v[2]*r}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-8s  %-5s  %-10s  %-9s  %-18s  %-7s  %-7s  %-6s", "per-type", "runs", "samem mean", "samem min", "change of the mean", "entries", "nonzero", "pruned")
	for _, a := range ablations {
		fmt.Fprintf(w, "  %s (success, nonzero, pruned)", a)
	}
	fmt.Fprintf(w, "  cells meeting the goal\n")
	prev := math.NaN()
	nCells := map[int]int{}
	for _, c := range cells {
		nCells[c.PerType]++
	}
	for _, p := range sizes {
		g := bySize[p]
		n := float64(g.n)
		mean := g.sum / n
		change := "-"
		if !math.IsNaN(prev) {
			change = fmt.Sprintf("%+.3f", mean-prev)
		}
		prev = mean
		fmt.Fprintf(w, "%-8s  %-5d  %-10.3f  %-9.3f  %-18s  %-7.1f  %-7.1f  %-6.1f", sizeName(p), g.n, mean, g.low, change, g.ent/n, g.nonz/n, g.prune/n)
		for _, a := range ablations {
			v := g.abl[a]
			fmt.Fprintf(w, "  %-*s", len(a)+28, fmt.Sprintf("%.3f, %.1f, %.1f", v[0]/n, v[1]/n, v[2]/n))
		}
		fmt.Fprintf(w, "  %d of %d\n", g.met, nCells[p])
	}
}

func sizeName(p int) string {
	if p == 0 {
		return "all"
	}
	return strconv.Itoa(p)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

// ParseSeedList reads "1-10", "1,5,20,0", "-5,13,1234" or a mix: single
// integers (negative allowed) and ascending ranges a-b.
func ParseSeedList(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if v, err := strconv.ParseInt(f, 10, 64); err == nil {
			out = append(out, v)
			continue
		}
		i := strings.Index(f[1:], "-")
		if i < 0 {
			return nil, fmt.Errorf("%q is not an integer or a range a-b", f)
		}
		a, err1 := strconv.ParseInt(f[:i+1], 10, 64)
		b, err2 := strconv.ParseInt(f[i+2:], 10, 64)
		if err := errors.Join(err1, err2); err != nil || b < a {
			return nil, fmt.Errorf("%q is not an integer or an ascending range a-b", f)
		}
		if b-a >= 10000 {
			return nil, fmt.Errorf("%q: a range of more than 10000 values", f)
		}
		for v := a; v <= b; v++ {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no value given")
	}
	return out, nil
}
