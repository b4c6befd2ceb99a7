package cdmem

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/samem/trainer/checkpoints"
)

// Files written by Save, readable by any Parquet tool.
const (
	RecordsFile     = "cdmem_records.parquet"     // the expert records, one per training episode
	TranscriptsFile = "cdmem_transcripts.parquet" // the successful episodes' transcripts (exemplars)
	ScenesFile      = "cdmem_scenes.parquet"      // scene memory: container functions, episode references
	GuidanceFile    = "cdmem_guidance.parquet"    // task memory: guidance by task type and outcome
	TasksFile       = "cdmem_tasks.parquet"       // local memory: per training task, solved, trials, reflections
)

const formatVersion = 1

// ErrFormat is returned (wrapped) by Load for a checkpoint with an unknown
// version or rows that do not fit together.
var ErrFormat = errors.New("cdmem: bad checkpoint")

// RecordRow is one expert record.
type RecordRow struct {
	Version    int32  `parquet:"version"`
	Index      int32  `parquet:"index"`
	Trial      int32  `parquet:"trial"`
	Task       string `parquet:"task,dict"`
	Type       string `parquet:"type,dict"`
	Scene      string `parquet:"scene,dict"`
	Goal       string `parquet:"goal"`
	Locations  string `parquet:"locations"`
	Functions  string `parquet:"functions"`
	Actions    string `parquet:"actions"`
	Reflection string `parquet:"reflection"`
	Success    bool   `parquet:"success"`
}

// TranscriptRow is one step of a successful episode's transcript.
type TranscriptRow struct {
	Record  int32  `parquet:"record"`
	Index   int32  `parquet:"index"`
	Thought string `parquet:"thought"`
	Action  string `parquet:"action"`
	Text    string `parquet:"text"`
}

// SceneRow is one scene of the scene memory.
type SceneRow struct {
	Version int32   `parquet:"version"`
	Scene   string  `parquet:"scene"`
	Known   string  `parquet:"known"`
	Summed  bool    `parquet:"summed"`
	Pending []int32 `parquet:"pending,list"`
	All     []int32 `parquet:"all,list"`
}

// GuidanceRow is one (task type, outcome) bucket of the task memory.
type GuidanceRow struct {
	Version  int32    `parquet:"version"`
	Type     string   `parquet:"type"`
	Outcome  string   `parquet:"outcome"`
	Summed   bool     `parquet:"summed"`
	Guidance []string `parquet:"guidance,list"`
	Pending  []int32  `parquet:"pending,list"`
	All      []int32  `parquet:"all,list"`
}

// TaskRow is the local memory of one training task.
type TaskRow struct {
	Version     int32    `parquet:"version"`
	Task        string   `parquet:"task"`
	Solved      bool     `parquet:"solved"`
	Trials      int32    `parquet:"trials"`
	Reflections []string `parquet:"reflections,list"`
}

func ints32(s []int) []int32 {
	out := make([]int32, len(s))
	for i, v := range s {
		out[i] = int32(v)
	}
	return out
}

// Save implements agent.Saver.
func (m *Method) Save(ctx context.Context, dir string) error {
	m.mu.Lock()
	var recs []RecordRow
	var trans []TranscriptRow
	for i, r := range m.records {
		recs = append(recs, RecordRow{Version: formatVersion, Index: int32(i), Trial: int32(r.Trial), Task: r.Task, Type: r.Type, Scene: r.Scene, Goal: r.Goal,
			Locations: r.Expert.Locations, Functions: r.Expert.Functions, Actions: r.Expert.Actions, Reflection: r.Reflection, Success: r.Success})
		for j, s := range r.Transcript {
			trans = append(trans, TranscriptRow{Record: int32(i), Index: int32(j), Thought: s.Thought, Action: s.Action, Text: s.Text})
		}
	}
	var scenes []SceneRow
	for _, k := range sortedKeys(m.scenes) {
		s := m.scenes[k]
		scenes = append(scenes, SceneRow{Version: formatVersion, Scene: k, Known: s.known, Summed: s.summed, Pending: ints32(s.pending), All: ints32(s.all)})
	}
	var guides []GuidanceRow
	for _, k := range m.bucketKeys() {
		b := m.buckets[k]
		guides = append(guides, GuidanceRow{Version: formatVersion, Type: k.typ, Outcome: k.outcome, Summed: b.summed, Guidance: slices.Clone(b.guidance), Pending: ints32(b.pending), All: ints32(b.all)})
	}
	var tasks []TaskRow
	for _, id := range sortedKeys(m.locals) {
		l := m.locals[id]
		tasks = append(tasks, TaskRow{Version: formatVersion, Task: id, Solved: l.solved, Trials: int32(l.trials), Reflections: slices.Clone(l.reflections)})
	}
	m.mu.Unlock()
	write := func(name string, f func(path string) error) error {
		if err := f(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%s: save %s: %w", Name, name, err)
		}
		return nil
	}
	opts := checkpoints.WriteOptions{}
	return errors.Join(
		write(RecordsFile, func(p string) error { return checkpoints.WriteFile(ctx, p, recs, opts) }),
		write(TranscriptsFile, func(p string) error { return checkpoints.WriteFile(ctx, p, trans, opts) }),
		write(ScenesFile, func(p string) error { return checkpoints.WriteFile(ctx, p, scenes, opts) }),
		write(GuidanceFile, func(p string) error { return checkpoints.WriteFile(ctx, p, guides, opts) }),
		write(TasksFile, func(p string) error { return checkpoints.WriteFile(ctx, p, tasks, opts) }),
	)
}

// Load implements agent.Saver. The memory is replaced only when every file
// reads and the rows fit together.
func (m *Method) Load(ctx context.Context, dir string) error {
	recs, err := checkpoints.ReadFile[RecordRow](ctx, filepath.Join(dir, RecordsFile))
	if err != nil {
		return fmt.Errorf("%s: load: %w", Name, err)
	}
	trans, err := checkpoints.ReadFile[TranscriptRow](ctx, filepath.Join(dir, TranscriptsFile))
	if err != nil {
		return fmt.Errorf("%s: load: %w", Name, err)
	}
	scenes, err := checkpoints.ReadFile[SceneRow](ctx, filepath.Join(dir, ScenesFile))
	if err != nil {
		return fmt.Errorf("%s: load: %w", Name, err)
	}
	guides, err := checkpoints.ReadFile[GuidanceRow](ctx, filepath.Join(dir, GuidanceFile))
	if err != nil {
		return fmt.Errorf("%s: load: %w", Name, err)
	}
	tasks, err := checkpoints.ReadFile[TaskRow](ctx, filepath.Join(dir, TasksFile))
	if err != nil {
		return fmt.Errorf("%s: load: %w", Name, err)
	}
	bad := func(file, format string, args ...any) error {
		return fmt.Errorf("%s: load %s: %w: %s", Name, filepath.Join(dir, file), ErrFormat, fmt.Sprintf(format, args...))
	}
	records := make([]Record, len(recs))
	for i, r := range recs {
		if r.Version != formatVersion {
			return bad(RecordsFile, "row %d: version %d, want %d", i, r.Version, formatVersion)
		}
		if int(r.Index) != i || r.Task == "" || r.Trial < 0 {
			return bad(RecordsFile, "row %d: index %d, task %q, trial %d: want indices 0, 1, ..., a task and a trial", i, r.Index, r.Task, r.Trial)
		}
		records[i] = Record{Trial: int(r.Trial), Task: r.Task, Type: r.Type, Scene: r.Scene, Goal: r.Goal,
			Expert: Expert{Locations: r.Locations, Functions: r.Functions, Actions: r.Actions}, Reflection: r.Reflection, Success: r.Success}
	}
	for i, t := range trans {
		if t.Record < 0 || int(t.Record) >= len(records) || !records[t.Record].Success || int(t.Index) != len(records[t.Record].Transcript) {
			return bad(TranscriptsFile, "row %d: record %d step %d: no such successful record, or out of order", i, t.Record, t.Index)
		}
		r := &records[t.Record]
		r.Transcript = append(r.Transcript, Step{Thought: t.Thought, Action: t.Action, Text: t.Text})
	}
	for i, r := range records {
		if r.Success && len(r.Transcript) == 0 {
			return bad(TranscriptsFile, "record %d succeeded but has no transcript", i)
		}
	}
	refs := func(file string, row int, pending, all []int32, fits func(Record) bool) ([]int, []int, error) {
		var p, a []int
		for _, x := range all {
			if x < 0 || int(x) >= len(records) || !fits(records[x]) || slices.Contains(a, int(x)) {
				return nil, nil, bad(file, "row %d: reference %d: no such record of this key, or repeated", row, x)
			}
			a = append(a, int(x))
		}
		for _, x := range pending {
			if !slices.Contains(a, int(x)) || slices.Contains(p, int(x)) {
				return nil, nil, bad(file, "row %d: pending reference %d not among its episodes, or repeated", row, x)
			}
			p = append(p, int(x))
		}
		return p, a, nil
	}
	sc := map[string]*scene{}
	for i, r := range scenes {
		if r.Version != formatVersion || sc[r.Scene] != nil {
			return bad(ScenesFile, "row %d: version %d (want %d) or scene %q repeated", i, r.Version, formatVersion, r.Scene)
		}
		p, a, err := refs(ScenesFile, i, r.Pending, r.All, func(x Record) bool { return x.Scene == r.Scene })
		if err != nil {
			return err
		}
		sc[r.Scene] = &scene{known: r.Known, summed: r.Summed, pending: p, all: a}
	}
	bk := map[bucketKey]*bucket{}
	for i, r := range guides {
		k := bucketKey{r.Type, r.Outcome}
		if r.Version != formatVersion || (r.Outcome != Success && r.Outcome != Fail) || bk[k] != nil {
			return bad(GuidanceFile, "row %d: version %d (want %d), outcome %q (want %s or %s) or bucket repeated", i, r.Version, formatVersion, r.Outcome, Success, Fail)
		}
		p, a, err := refs(GuidanceFile, i, r.Pending, r.All, func(x Record) bool { return x.Type == r.Type && x.Success == (r.Outcome == Success) })
		if err != nil {
			return err
		}
		for _, g := range r.Guidance {
			if g == "" {
				return bad(GuidanceFile, "row %d: an empty guidance item", i)
			}
		}
		bk[k] = &bucket{guidance: slices.Clone(r.Guidance), summed: r.Summed, pending: p, all: a}
	}
	locals := map[string]*local{}
	for i, r := range tasks {
		if r.Version != formatVersion || r.Task == "" || locals[r.Task] != nil || r.Trials < 0 {
			return bad(TasksFile, "row %d: version %d (want %d), task %q empty or repeated, or %d trials", i, r.Version, formatVersion, r.Task, r.Trials)
		}
		for _, x := range r.Reflections {
			if x == "" {
				return bad(TasksFile, "row %d: an empty reflection", i)
			}
		}
		locals[r.Task] = &local{solved: r.Solved, trials: int(r.Trials), reflections: slices.Clone(r.Reflections)}
	}
	if len(records) == 0 {
		records = nil
	}
	m.mu.Lock()
	m.records, m.scenes, m.buckets, m.locals = records, sc, bk, locals
	m.mu.Unlock()
	return nil
}
