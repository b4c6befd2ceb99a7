package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/samem/trainer/report"
	"github.com/samem/trainer/samem"
)

// Where a threshold sweep lives in a run directory: one sub-run per value
// (<run>/sweep/<param>-<value>/, a complete run directory with its own
// config, checkpoints and evaluation) and the points in sweep.json.
const (
	SweepDir  = "sweep"
	SweepFile = "sweep.json"
)

// Swept parameters.
const (
	SweepThreshold        = "threshold"         // state clustering, seed 002 Fig. 7
	SweepThoughtThreshold = "thought-threshold" // thought clustering, Fig. 9
)

// SweepConfig is a similarity threshold sweep of SAMem.
type SweepConfig struct {
	// Base is the run's configuration: environment, backend, schedule and
	// split; Base.Run is the parent run directory.
	Base Config
	// Param is SweepThreshold (default) or SweepThoughtThreshold.
	Param  string
	Values []float64
}

// SweepRun is the sub-run directory of one value.
func SweepRun(run, param string, value float64) string {
	return filepath.Join(run, SweepDir, param+"-"+strconv.FormatFloat(value, 'f', 2, 64))
}

// Sweep trains and evaluates SAMem once per threshold value, everything
// else as in Base, records success and memory size per value in
// <run>/sweep/sweep.json (earlier points of other values are kept) and
// rewrites the run's report. A sub-run that exists is resumed, so an
// interrupted sweep continues where it stopped.
func Sweep(ctx context.Context, sc SweepConfig, io Streams) ([]report.SweepPoint, error) {
	if sc.Param == "" {
		sc.Param = SweepThreshold
	}
	if sc.Param != SweepThreshold && sc.Param != SweepThoughtThreshold {
		return nil, fmt.Errorf("%w: -param %q: want %s or %s", ErrConfig, sc.Param, SweepThreshold, SweepThoughtThreshold)
	}
	if len(sc.Values) == 0 {
		return nil, fmt.Errorf("%w: -thresholds: no value given", ErrConfig)
	}
	for _, v := range sc.Values {
		if v <= 0 || v > 1 {
			return nil, fmt.Errorf("%w: -thresholds: %v: want a cosine similarity in (0, 1]", ErrConfig, v)
		}
	}
	base := sc.Base
	base.Methods = []string{samem.Name}
	if err := base.Validate(); err != nil {
		return nil, err
	}
	path := filepath.Join(base.Run, SweepDir, SweepFile)
	var points []report.SweepPoint
	if err := readJSON(path, &points); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	var made []report.SweepPoint
	shard := base.Shard
	base.Shard = Shard{}
	for k, v := range sc.Values {
		if !shard.Takes(k) {
			continue
		}
		cfg := base
		cfg.Methods = []string{samem.Name}
		cfg.Run = SweepRun(base.Run, sc.Param, v)
		if sc.Param == SweepThreshold {
			cfg.SAMem.Threshold = float32(v)
		} else {
			cfg.SAMem.ThoughtThreshold = float32(v)
		}
		fmt.Fprintf(io.Err, "sweep %s = %.2f: %s\n", sc.Param, v, cfg.Run)
		if _, err := Train(ctx, cfg, io); err != nil {
			return made, fmt.Errorf("sweep %s %.2f: %w", sc.Param, v, err)
		}
		res, err := Eval(ctx, cfg, io)
		if err != nil {
			return made, fmt.Errorf("sweep %s %.2f: %w", sc.Param, v, err)
		}
		if len(res) != 1 {
			return made, fmt.Errorf("sweep %s %.2f: %d evaluation results, want 1", sc.Param, v, len(res))
		}
		r := res[0]
		p := report.SweepPoint{
			Param: sc.Param, Value: v, Tasks: r.Tasks, SuccessRate: r.SuccessRate, AvgScore: r.AvgScore,
			States: r.Memory["states"], Thoughts: r.Memory["thoughts"], Entries: r.Memory["entries"], Run: cfg.Run,
		}
		made = append(made, p)
		if shard.Active() {
			continue // the parts are put together by MergeSweeps
		}
		points = replacePoint(points, p)
		if err := writeJSON(path, points); err != nil {
			return made, fmt.Errorf("sweep: %w", err)
		}
	}
	if shard.Active() {
		return made, writeSweepPart(base.Run, SweepDir, shard, sweepPart{Param: sc.Param, Values: sc.Values, Points: made})
	}
	if _, err := WriteReport(base.Run, base.Resolved().Split); err != nil && !errors.Is(err, report.ErrNoData) {
		return made, err
	}
	return made, nil
}

// replacePoint puts p in points, replacing the point of the same parameter
// and value.
func replacePoint(points []report.SweepPoint, p report.SweepPoint) []report.SweepPoint {
	for i, q := range points {
		if q.Param == p.Param && strconv.FormatFloat(q.Value, 'f', 2, 64) == strconv.FormatFloat(p.Value, 'f', 2, 64) {
			points[i] = p
			return points
		}
	}
	return append(points, p)
}
