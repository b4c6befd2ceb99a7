package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/runner"
)

// TrainTrajectoriesFile is the record of a method's training episodes in
// its directory of the run (-record-train): one JSON line per episode, in
// the format of an evaluation's trajectories.jsonl, with the episode's
// iteration and task index. A run resumed from a checkpoint replays the
// episodes after it and appends them again: for one (iteration, index) the
// last line is the episode the memory learned from.
const TrainTrajectoriesFile = "train-trajectories.jsonl"

// DefaultRecordTrain is -record-train's default: training schedules of at
// most this many episodes are recorded (make run's is 270).
const DefaultRecordTrain = 2000

// recordsTraining reports whether a schedule of episodes episodes is
// recorded under -record-train n.
func recordsTraining(n, episodes int) bool {
	return n < 0 || (n > 0 && episodes <= n)
}

// trajectoryLine is one line of a trajectories file: the method, the
// episode and its steps, without the admissible lists (most of a
// trajectory's bytes, and regenerated from the task).
func trajectoryLine(method string, seed int64, superseded bool, e runner.Episode) ([]byte, error) {
	trs := make([]agent.Transition, len(e.Transitions))
	for j, tr := range e.Transitions {
		tr.Result.Admissible = nil
		trs[j] = tr
	}
	e.Transitions = trs
	return json.Marshal(trajectory{method, seed, superseded, e})
}

// recorder is a runner.Progress that also appends every finished episode
// to a trajectories file. runner.Train calls Done from one goroutine at a
// time. The first write error is kept (Err) and stops the recording; the
// training goes on.
type recorder struct {
	runner.Progress
	method string
	seed   int64
	path   string
	f      *os.File
	w      *bufio.Writer
	err    error
}

func newRecorder(p runner.Progress, dir, method string, seed int64) (*recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("record training: %w", err)
	}
	path := filepath.Join(dir, TrainTrajectoriesFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("record training: %w", err)
	}
	return &recorder{Progress: p, method: method, seed: seed, path: path, f: f, w: bufio.NewWriter(f)}, nil
}

// Done implements runner.Progress.
func (r *recorder) Done(ep runner.Episode) {
	r.Progress.Done(ep)
	if r.err != nil {
		return
	}
	b, err := trajectoryLine(r.method, r.seed, false, ep)
	if err == nil {
		_, err = r.w.Write(append(b, '\n'))
	}
	if err != nil {
		r.err = fmt.Errorf("record training in %s: %w", r.path, err)
	}
}

// End implements runner.Progress: the lines of a batch reach the file
// when it ends.
func (r *recorder) End(summary string) {
	r.Progress.End(summary)
	if r.err == nil {
		if err := r.w.Flush(); err != nil {
			r.err = fmt.Errorf("record training in %s: %w", r.path, err)
		}
	}
}

// Close flushes and closes the file; it returns the first error.
func (r *recorder) Close() error {
	err := r.err
	if err == nil {
		err = r.w.Flush()
	}
	return errors.Join(err, r.f.Close())
}
