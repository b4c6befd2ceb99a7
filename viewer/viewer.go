// Package viewer writes a run's static viewer: one folder of HTML, CSS,
// JavaScript and data (<run>/viewer) that opens from disk (file://) with no
// server and no network, for anyone to zip and share. It shows the
// comparison of methods by task type (with intervals where the results
// carry them), training curves, every recorded episode step by step with
// what memory read (agent.Recall), failed episodes beside the same task
// under another method, SAMem's Q-table across checkpoints, every method's
// memory (agent.Shower) and the run's provenance and usage.
//
// The data are JavaScript files that call a loader function (a browser
// loads a script from file:// where it refuses to fetch JSON): data/index.js
// is small and loaded first; each episode (data/ep/) and each checkpoint's
// memory (data/mem/) is loaded only when a view needs it.
package viewer

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
)

//go:embed assets
var assets embed.FS

// Dir is the viewer's folder in a run directory.
const Dir = "viewer"

// Options says what to write.
type Options struct {
	// Run is the run directory.
	Run string
	// Out is the folder written (replaced whole); default <Run>/viewer.
	Out string
	// Checkpoints bounds the kept checkpoints shown per method, the latest
	// ones (0: all).
	Checkpoints int
}

// Stats is what Write wrote.
type Stats struct {
	Evals, Episodes, TrainEpisodes, Methods, Checkpoints int
	// Bytes is the size of the folder, IndexBytes that of data/index.js
	// (what opening the viewer loads before any episode).
	Bytes, IndexBytes int64
}

// EpisodeRef is one episode in the index: enough to list, filter and
// link it; the steps are in its own file.
type EpisodeRef struct {
	ID         string  `json:"id"`
	Method     string  `json:"method"`
	Eval       string  `json:"eval,omitempty"` // the evaluation's directory name; "" for training
	Seed       int64   `json:"seed,omitempty"` // the run seed, when the records carry one
	Mode       string  `json:"mode"`
	Iteration  int     `json:"iteration,omitempty"`
	Task       string  `json:"task"`
	Type       string  `json:"type"`
	Goal       string  `json:"goal,omitempty"`
	Won        bool    `json:"won"`
	Steps      int     `json:"steps"`
	Score      float64 `json:"score"`
	MaxScore   float64 `json:"max_score,omitempty"`
	Trial      int     `json:"trial,omitempty"`
	Superseded bool    `json:"superseded,omitempty"`
	Err        string  `json:"error,omitempty"`
	Guided     int     `json:"guided,omitempty"` // steps guided by memory
}

// Eval is one evaluation directory: its summary.json as written (kept
// whole, so that fields added later, intervals among them, reach the
// viewer), and its usage.
type Eval struct {
	Name    string          `json:"name"`
	Summary json.RawMessage `json:"summary"`
	Usage   json.RawMessage `json:"usage,omitempty"`
	// Stats is the evaluation's statistics file when the results carry
	// one (stats.json), kept whole; the intervals and paired comparisons
	// of summary.json are read from Summary.
	Stats json.RawMessage `json:"stats,omitempty"`
	// Provenance is the evaluation's provenance.json when it has one.
	Provenance json.RawMessage `json:"provenance,omitempty"`
	// NeverGuided names the methods whose memory guided none of the
	// evaluated steps (app.EvalResult.NeverGuided), flagged in the
	// comparison.
	NeverGuided []string `json:"never_guided,omitempty"`
}

// Method is one trained method: its training history (the runner's
// IterationStats of its latest checkpoint), its per-iteration metrics
// when the run wrote them, and the checkpoints whose memory is shown.
type Method struct {
	Name        string            `json:"name"`
	History     json.RawMessage   `json:"history,omitempty"`
	Metrics     []json.RawMessage `json:"metrics,omitempty"`
	Checkpoints []string          `json:"checkpoints,omitempty"`
	// Tables names the memory tables of the latest checkpoint.
	Tables []string `json:"tables,omitempty"`
	// MemoryError says why the memory could not be shown.
	MemoryError string `json:"memory_error,omitempty"`
}

// Index is data/index.js's object.
type Index struct {
	Run string `json:"run"`
	// OfflineNote is report.OfflineNote for a run of the offline backend
	// (its numbers measure the methods' rules, not a model), shown above
	// its results; "" otherwise.
	OfflineNote string            `json:"offline_note,omitempty"`
	Config      json.RawMessage   `json:"config,omitempty"`
	Provenance  json.RawMessage   `json:"provenance,omitempty"`
	TrainUsage  json.RawMessage   `json:"train_usage,omitempty"`
	Evals       []Eval            `json:"evals"`
	Methods     []Method          `json:"methods"`
	Episodes    []EpisodeRef      `json:"episodes"`
	Notes       []string          `json:"notes,omitempty"`
	Files       map[string]string `json:"files,omitempty"`
}

// ErrNoRun is returned by Write for a directory that holds neither a
// trained method nor an evaluation.
var ErrNoRun = errors.New("nothing to view: no trained method and no evaluation here")

// Write writes the viewer of opts.Run into opts.Out (default
// <run>/viewer), replacing it whole: the new folder is written beside it
// and renamed into place.
func Write(ctx context.Context, opts Options) (Stats, error) {
	var st Stats
	out := opts.Out
	if out == "" {
		out = filepath.Join(opts.Run, Dir)
	}
	if _, err := os.Stat(opts.Run); err != nil {
		return st, fmt.Errorf("run %s: %w", opts.Run, err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return st, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+"-*")
	if err != nil {
		return st, err
	}
	defer os.RemoveAll(tmp)
	w := &writer{ctx: ctx, run: opts.Run, dir: tmp, ix: Index{Run: filepath.Base(filepath.Clean(opts.Run))}, keep: opts.Checkpoints}
	if err := w.all(); err != nil {
		return st, err
	}
	if len(w.ix.Evals) == 0 && len(w.ix.Methods) == 0 {
		return st, fmt.Errorf("%s: %w", opts.Run, ErrNoRun)
	}
	st = w.st
	st.Evals, st.Methods = len(w.ix.Evals), len(w.ix.Methods)
	b, err := json.Marshal(w.ix)
	if err != nil {
		return st, err
	}
	if err := w.js(filepath.Join("data", "index.js"), "viewerIndex(", b, ");\n"); err != nil {
		return st, err
	}
	if err := fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, strings.TrimPrefix(p, "assets/")), b, 0o644)
	}); err != nil {
		return st, err
	}
	if err := filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				st.Bytes += fi.Size()
				if strings.HasSuffix(p, filepath.Join("data", "index.js")) {
					st.IndexBytes = fi.Size()
				}
			}
		}
		return err
	}); err != nil {
		return st, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return st, err
	}
	old := out + ".old"
	os.RemoveAll(old)
	if _, err := os.Stat(out); err == nil {
		if err := os.Rename(out, old); err != nil {
			return st, err
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Rename(old, out)
		return st, err
	}
	os.RemoveAll(old)
	return st, nil
}

type writer struct {
	ctx  context.Context
	run  string
	dir  string
	ix   Index
	st   Stats
	keep int
	n    int // episodes written
	// online lists, by method, the memories online evaluations left
	// (<eval>/memory/<method>), in the order of the evaluations.
	online map[string][]onlineMemory
}

// onlineMemory is the memory an online evaluation left of one method.
type onlineMemory struct{ eval, dir string }

// OnlinePrefix names, before the evaluation's name, the memory an online
// evaluation left among a method's checkpoints ("online-valid_seen"),
// listed after the training's.
const OnlinePrefix = "online-"

// js writes data as a script: head, the JSON, tail.
func (w *writer) js(rel, head string, data []byte, tail string) error {
	p := filepath.Join(w.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	b.Grow(len(head) + len(data) + len(tail))
	b.WriteString(head)
	b.Write(data)
	b.WriteString(tail)
	return os.WriteFile(p, b.Bytes(), 0o644)
}

func readRaw(path string) json.RawMessage {
	b, err := os.ReadFile(path)
	if err != nil || !json.Valid(b) {
		return nil
	}
	return json.RawMessage(bytes.TrimSpace(b))
}

func (w *writer) all() error {
	w.ix.Config = readRaw(filepath.Join(w.run, app.ConfigFile))
	if cfg, err := app.LoadConfig(w.run); err == nil {
		w.ix.OfflineNote = app.ResultsNote(cfg)
	}
	w.ix.Provenance = readRaw(filepath.Join(w.run, app.ProvenanceFile))
	w.ix.TrainUsage = readRaw(filepath.Join(w.run, app.TrainUsageFile))
	if err := w.evals(); err != nil {
		return err
	}
	return w.methods()
}

// evals reads every complete evaluation under <run>/eval.
func (w *writer) evals() error {
	ents, err := os.ReadDir(filepath.Join(w.run, "eval"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || strings.HasSuffix(name, app.PartialSuffix) ||
			strings.HasSuffix(name, ".old") || strings.Contains(name, ".earlier-") || strings.HasSuffix(name, ".shards") {
			continue
		}
		dir := filepath.Join(w.run, "eval", name)
		sum := readRaw(filepath.Join(dir, app.SummaryFile))
		if sum == nil {
			w.ix.Notes = append(w.ix.Notes, fmt.Sprintf("evaluation %s: no readable %s, left out", name, app.SummaryFile))
			continue
		}
		ev := Eval{Name: name, Summary: sum,
			Usage: readRaw(filepath.Join(dir, app.EvalUsageFile)), Stats: readRaw(filepath.Join(dir, "stats.json")),
			Provenance: readRaw(filepath.Join(dir, app.ProvenanceFile))}
		var results []app.EvalResult
		if json.Unmarshal(sum, &results) == nil {
			for _, r := range results {
				if r.NeverGuided() {
					ev.NeverGuided = append(ev.NeverGuided, r.Method)
				}
				if r.Online != nil && r.Online.Memory != "" && filepath.IsLocal(r.Online.Memory) {
					if w.online == nil {
						w.online = map[string][]onlineMemory{}
					}
					w.online[r.Method] = append(w.online[r.Method], onlineMemory{eval: name, dir: filepath.Join(dir, filepath.FromSlash(r.Online.Memory))})
				}
			}
		}
		w.ix.Evals = append(w.ix.Evals, ev)
		if err := w.trajectories(filepath.Join(dir, app.TrajectoriesFile), name, false); err != nil {
			return err
		}
	}
	return nil
}

// line is what the index needs of a trajectories line.
type line struct {
	Method     string `json:"method"`
	Seed       int64  `json:"seed"`
	Superseded bool   `json:"superseded"`
	Task       struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Goal string `json:"goal"`
	} `json:"task"`
	Outcome struct {
		Won      bool    `json:"won"`
		Steps    int     `json:"steps"`
		Score    float64 `json:"score"`
		MaxScore float64 `json:"max_score"`
		Err      string  `json:"error"`
	} `json:"outcome"`
	Transitions []struct {
		Decision struct {
			Guided bool `json:"guided"`
		} `json:"decision"`
	} `json:"transitions"`
	Trial     int    `json:"trial"`
	Mode      string `json:"mode"`
	Iteration int    `json:"iteration"`
	Index     int    `json:"index"`
}

// trajectories writes one file per episode of a trajectories file and
// lists each in the index. For training records (train), the last line
// of an (iteration, task index) wins: a resumed run appends the episodes
// it replayed.
func (w *writer) trajectories(path, eval string, train bool) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	type rec struct {
		l   line
		raw []byte
	}
	var recs []rec
	last := map[[3]int64]int{}
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		b, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var l line
			if jerr := json.Unmarshal(b, &l); jerr != nil {
				w.ix.Notes = append(w.ix.Notes, fmt.Sprintf("%s line %d: %v, left out", path, n, jerr))
			} else {
				k := [3]int64{l.Seed, int64(l.Iteration), int64(l.Index)}
				if i, ok := last[k]; ok && train {
					recs[i] = rec{l, bytes.TrimSpace(b)}
				} else {
					last[k] = len(recs)
					recs = append(recs, rec{l, bytes.TrimSpace(b)})
				}
			}
		}
		if err != nil {
			break
		}
	}
	for _, x := range recs {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		l := x.l
		id := fmt.Sprintf("e%d", w.n)
		w.n++
		guided := 0
		for _, t := range l.Transitions {
			if t.Decision.Guided {
				guided++
			}
		}
		mode := l.Mode
		if mode == "" {
			mode = "eval"
			if train {
				mode = "train"
			}
		}
		w.ix.Episodes = append(w.ix.Episodes, EpisodeRef{
			ID: id, Method: l.Method, Eval: eval, Seed: l.Seed, Mode: mode, Iteration: l.Iteration, Task: l.Task.ID, Type: l.Task.Type,
			Goal: l.Task.Goal, Won: l.Outcome.Won && l.Outcome.Err == "", Steps: l.Outcome.Steps, Score: l.Outcome.Score,
			MaxScore: l.Outcome.MaxScore, Trial: l.Trial, Superseded: l.Superseded, Err: l.Outcome.Err, Guided: guided,
		})
		if err := w.js(filepath.Join("data", "ep", id+".js"), "viewerEpisode("+quote(id)+",", x.raw, ");\n"); err != nil {
			return err
		}
		if train {
			w.st.TrainEpisodes++
		} else {
			w.st.Episodes++
		}
	}
	return nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// methods reads every method directory of the run that holds checkpoints:
// its training history and records, and each kept checkpoint's memory.
func (w *writer) methods() error {
	ents, err := os.ReadDir(w.run)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		mdir := filepath.Join(w.run, e.Name())
		if _, err := os.Stat(filepath.Join(mdir, checkpoints.Folder)); err != nil {
			continue
		}
		m := Method{Name: e.Name()}
		for _, mp := range []string{filepath.Join(mdir, app.MetricsFile), filepath.Join(w.run, app.MetricsFile)} {
			m.Metrics = append(m.Metrics, readLines(mp, e.Name())...)
		}
		if err := w.trajectories(filepath.Join(mdir, app.TrainTrajectoriesFile), "", true); err != nil {
			return err
		}
		store, err := checkpoints.Open(mdir, 0)
		if err != nil {
			m.MemoryError = err.Error()
			w.ix.Methods = append(w.ix.Methods, m)
			continue
		}
		dirs, err := store.Committed()
		store.Close()
		if err != nil {
			m.MemoryError = err.Error()
			w.ix.Methods = append(w.ix.Methods, m)
			continue
		}
		if len(dirs) > 0 {
			m.History = historyOf(filepath.Join(dirs[len(dirs)-1], "runner.json"))
		}
		if w.keep > 0 && len(dirs) > w.keep {
			dirs = dirs[len(dirs)-w.keep:]
		}
		type shown struct{ ck, dir string }
		var cks []shown
		for _, d := range dirs {
			cks = append(cks, shown{filepath.Base(d), d})
		}
		for _, o := range w.online[m.Name] {
			cks = append(cks, shown{OnlinePrefix + o.eval, o.dir})
		}
		for _, c := range cks {
			ck, d := c.ck, c.dir
			sh, _, err := app.OpenMemory(w.ctx, w.run, m.Name, d)
			if err != nil {
				if errors.Is(err, app.ErrNotShown) {
					break
				}
				m.MemoryError = fmt.Sprintf("%s: %v", ck, err)
				continue
			}
			tables := sh.MemoryTables()
			b, err := json.Marshal(tables)
			if err != nil {
				return err
			}
			if err := w.js(filepath.Join("data", "mem", m.Name, ck+".js"), "viewerMemory("+quote(m.Name)+","+quote(ck)+",", b, ");\n"); err != nil {
				return err
			}
			m.Checkpoints = append(m.Checkpoints, ck)
			m.Tables = m.Tables[:0]
			for _, t := range tables {
				m.Tables = append(m.Tables, t.Name)
			}
			w.st.Checkpoints++
		}
		w.ix.Methods = append(w.ix.Methods, m)
	}
	sort.Slice(w.ix.Methods, func(i, j int) bool { return w.ix.Methods[i].Name < w.ix.Methods[j].Name })
	return nil
}

// historyOf is the "history" of a checkpoint's runner.json.
func historyOf(path string) json.RawMessage {
	var st struct {
		History json.RawMessage `json:"history"`
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &st) != nil {
		return nil
	}
	return st.History
}

// readLines reads a JSON-lines file, keeping the objects of method (those
// with no "method" field too).
func readLines(path, method string) []json.RawMessage {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []json.RawMessage
	for _, l := range bytes.Split(b, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 || !json.Valid(l) {
			continue
		}
		var head struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(l, &head) == nil && (head.Method == "" || head.Method == method) {
			out = append(out, slices.Clone(l))
		}
	}
	return out
}
