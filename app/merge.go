package app

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/runner"
)

// ShardsSuffix names the directory beside an evaluation's, where the parts
// of a sharded evaluation are kept: eval/<name>.shards/<i>-of-<n>/.
const ShardsSuffix = ".shards"

// PartFile describes one part of a sharded evaluation.
const PartFile = "part.json"

// shardPart is what one process of a sharded evaluation did (part.json);
// its episodes are in the part's trajectories.jsonl.
type shardPart struct {
	Format int   `json:"format"`
	Shard  Shard `json:"shard"`
	// Work is the SHA-256 of the whole work list, (seed, method, split,
	// task) in order: parts of one evaluation have the same.
	Work  string `json:"work"`
	Items int    `json:"items"` // in the whole work
	// Seeds are the run seeds (Multi: from -seeds, each in its sub-run);
	// Tasks the number of tasks of each seed's list.
	Seeds   []int64      `json:"seeds"`
	Multi   bool         `json:"multi"`
	Tasks   []int        `json:"tasks"`
	Methods []string     `json:"methods"`
	Groups  []shardGroup `json:"groups"`
	Config  Config       `json:"config"`
	// MaxErrors is -max-errors (Config does not save it).
	MaxErrors int `json:"max_errors"`
}

// shardGroup is one (seed, method) of a part: the task indices it played
// and what its method was.
type shardGroup struct {
	Seed       int64          `json:"seed"`
	Method     string         `json:"method"`
	Indices    []int          `json:"indices"`
	Usage      llm.Report     `json:"usage"`
	Checkpoint string         `json:"checkpoint,omitempty"`
	Memory     map[string]int `json:"memory,omitempty"`
	Trials     int            `json:"trials,omitempty"`
}

// shardSeeds are the seeds of cfg's work and whether they are -seeds.
func shardSeeds(cfg Config) ([]int64, bool) {
	if len(cfg.Seeds) > 0 {
		return cfg.Seeds, true
	}
	return []int64{cfg.Seed}, false
}

// evalShard plays this process's part of the evaluation of cfg: the items
// k of the work list, (seed, method, split, task) in order, with k mod n =
// i, each task with its own index in its list (so that it plays as in an
// unsharded evaluation), and writes the part to
// eval/<name>.shards/<i>-of-<n>/ (part.json, trajectories.jsonl,
// provenance.json). Merge puts the parts together.
func evalShard(ctx context.Context, cfg Config, io Streams) error {
	seeds, multi := shardSeeds(cfg)
	evalDir, _, err := EvalDir(cfg)
	if err != nil {
		return err
	}
	backend, err := NewBackend(ctx, cfg, io.Err)
	if err != nil {
		return err
	}
	defer backend.Close()
	part := shardPart{Format: 1, Shard: cfg.Shard, Seeds: seeds, Multi: multi, Config: cfg, MaxErrors: cfg.MaxErrors}
	work := sha256.New()
	var lines bytes.Buffer
	enc := json.NewEncoder(&lines)
	var prov *Provenance
	k, mine := 0, 0
	for _, s := range seeds {
		c := cfg
		if multi {
			c = seedConfig(cfg, s)
		}
		c.Shard = Shard{}
		set, err := setUpEval(ctx, &c, io.Err)
		if err != nil {
			return err
		}
		part.Tasks = append(part.Tasks, len(set.tasks))
		if part.Methods == nil {
			part.Methods = c.Methods // those that fit the environment
		}
		if prov == nil {
			p := NewProvenance(ctx, "eval", c, set.suite, backend.Embedder, nil)
			prov = &p
		}
		for _, name := range c.Methods {
			g := shardGroup{Seed: s, Method: name}
			var tasks []envbridge.Task
			for i, t := range set.tasks {
				fmt.Fprintf(work, "%d\x00%s\x00%s\x00%s\n", s, name, c.Split, t.ID)
				if cfg.Shard.Takes(k) {
					g.Indices = append(g.Indices, i)
					tasks = append(tasks, t)
				}
				k++
			}
			if len(tasks) > 0 {
				mine += len(tasks)
				meter := llm.NewMeter(mustPrices(cfg))
				m, ckpt, err := loadMethod(ctx, c, name, backend, meter, io.Err)
				if err != nil {
					return err
				}
				prog := NewProgress(io.Err, io.TTY)
				prog.Meter, prog.Every = meter, cfg.ProgressEvery
				eps, err := runner.Evaluate(llm.WithMeter(ctx, meter), runner.EvalConfig{Method: m, Suite: set.suite, Tasks: tasks, Indices: g.Indices, Workers: cfg.Workers, Seed: c.Seed, Stop: io.Stop, Progress: prog})
				if err != nil {
					return fmt.Errorf("eval %s (seed %d), part %s: %w; the part was not written: run it again", name, s, cfg.Shard.String(), err)
				}
				g.Usage, g.Checkpoint, g.Trials = meter.Report(), ckpt, 1
				if tr, ok := m.(agent.EvalTrialer); ok {
					g.Trials = max(1, tr.EvalTrials())
				}
				if sz, ok := m.(agent.Sizer); ok {
					g.Memory = sz.Size()
				}
				for _, e := range eps {
					strip(&e)
					if err := enc.Encode(trajectory{Method: name, Seed: s, Episode: e}); err != nil {
						return err
					}
				}
			}
			part.Groups = append(part.Groups, g)
		}
	}
	part.Work, part.Items = hex.EncodeToString(work.Sum(nil)), k
	prov.Models.Served = backend.Meter.Report().Served
	dir := filepath.Join(evalDir+ShardsSuffix, cfg.Shard.Dir())
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("shard directory: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+cfg.Shard.Dir()+"-*")
	if err != nil {
		return fmt.Errorf("shard directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := writeJSON(filepath.Join(tmp, PartFile), part); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(tmp, ProvenanceFile), prov); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, TrajectoriesFile), lines.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", TrajectoriesFile, err)
	}
	if err := swapDir(tmp, dir); err != nil {
		return err
	}
	fmt.Fprintf(io.Err, "part %s: %d of %d (seed, method, task) items: %s\nwhen every part is done: go run ./cmd/merge -run %s\n", cfg.Shard.String(), mine, k, dir, cfg.Run)
	return nil
}

// strip drops what trajectories.jsonl leaves out of an episode: the
// admissible lists, most of its bytes, which the task regenerates.
func strip(e *runner.Episode) {
	trs := make([]agent.Transition, len(e.Transitions))
	for j, tr := range e.Transitions {
		tr.Result.Admissible = nil
		trs[j] = tr
	}
	e.Transitions = trs
}

// ErrParts is wrapped by Merge's errors about parts that do not belong
// together or are missing; ErrNoParts says there is nothing to merge.
var (
	ErrParts   = errors.New("the parts of a sharded run do not make a whole")
	ErrNoParts = errors.New("nothing to merge")
)

// Merge puts together every complete set of parts of a sharded evaluation
// under run (eval/<name>.shards/<i>-of-<n>/): it checks that the parts
// belong together (one work list, every part present, every item played
// once, the same provenance but for the servers' system fingerprints)
// and writes each seed's evaluation, then with -seeds their combination,
// exactly as one process evaluating everything would have. It returns the
// evaluation directories written.
func Merge(ctx context.Context, run string, io Streams) ([]string, error) {
	sets, err := filepath.Glob(filepath.Join(run, "eval", "*"+ShardsSuffix))
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("%w: no sharded evaluation under %s (eval -shard i/n writes eval/<name>%s/)", ErrNoParts, run, ShardsSuffix)
	}
	var done []string
	for _, set := range sets {
		dirs, err := mergeSet(ctx, run, set, io)
		done = append(done, dirs...)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// mergeSet merges the parts in one eval/<name>.shards/ directory of run.
func mergeSet(ctx context.Context, run, set string, io Streams) ([]string, error) {
	entries, err := os.ReadDir(set)
	if err != nil {
		return nil, err
	}
	var parts []shardPart
	var provs []Provenance
	var trajs [][]byte
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(set, e.Name())
		var p shardPart
		if err := readJSON(filepath.Join(dir, PartFile), &p); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrParts, err)
		}
		pv, err := ReadProvenance(filepath.Join(dir, ProvenanceFile))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrParts, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, TrajectoriesFile))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrParts, err)
		}
		parts, provs, trajs = append(parts, p), append(provs, pv), append(trajs, b)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: %s holds no part", ErrParts, set)
	}
	// The parts of the largest n are the evaluation; others (an earlier
	// split of the same work) are named and left aside.
	n := 0
	for _, p := range parts {
		n = max(n, p.Shard.N)
	}
	byIndex := map[int]int{}
	for i, p := range parts {
		if p.Shard.N != n {
			fmt.Fprintf(io.Err, "merge: %s: part %s is of another split (n = %d) and is left out\n", set, p.Shard.String(), p.Shard.N)
			continue
		}
		byIndex[p.Shard.Index] = i
	}
	// At most len(parts) indices can be present, so the list of missing
	// ones is cut short rather than spelt out for a corrupt n.
	var missing []string
	for i := 0; i < n && len(missing) < 10; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s: part %s missing (run eval -shard %s with the same flags)", ErrParts, set, strings.Join(missing, ", "), missing[0])
	}
	first := parts[byIndex[0]]
	if len(first.Tasks) != len(first.Seeds) {
		return nil, fmt.Errorf("%w: %s: part %s lists %d task counts for %d seeds", ErrParts, set, first.Shard.String(), len(first.Tasks), len(first.Seeds))
	}
	var warnings []string
	for i := 1; i < n; i++ {
		p := parts[byIndex[i]]
		if p.Work != first.Work || p.Items != first.Items || !slices.Equal(p.Seeds, first.Seeds) || !slices.Equal(p.Methods, first.Methods) || !slices.Equal(p.Tasks, first.Tasks) {
			return nil, fmt.Errorf("%w: %s: part %s evaluates another list of (seed, method, task) than part %s (other seeds, methods, tasks or split)", ErrParts, set, p.Shard.String(), first.Shard.String())
		}
		var refuse []string
		for _, d := range provs[byIndex[0]].Differences(provs[byIndex[i]], compareOpts{settings: true}) {
			if strings.HasPrefix(d, "system fingerprints") {
				warnings = append(warnings, fmt.Sprintf("part %s differs from part %s in %s", p.Shard.String(), first.Shard.String(), d))
				continue
			}
			refuse = append(refuse, d)
		}
		if len(refuse) > 0 {
			return nil, fmt.Errorf("%w: %s: part %s was made otherwise than part %s:\n  %s", ErrParts, set, p.Shard.String(), first.Shard.String(), strings.Join(refuse, "\n  "))
		}
	}
	type key struct {
		seed   int64
		method string
	}
	eps := map[key][]runner.Episode{}
	groups := map[key][]shardGroup{}
	served := []llm.Served(nil)
	for i := range n {
		pi := byIndex[i]
		served = llm.MergeServed(served, provs[pi].Models.Served)
		for _, g := range parts[pi].Groups {
			k := key{g.Seed, g.Method}
			groups[k] = append(groups[k], g)
		}
		sc := bufio.NewScanner(bytes.NewReader(trajs[pi]))
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			var t trajectory
			if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
				return nil, fmt.Errorf("%w: part %s: %s: %v", ErrParts, parts[pi].Shard.String(), TrajectoriesFile, err)
			}
			k := key{t.Seed, t.Method}
			eps[k] = append(eps[k], t.Episode)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%w: part %s: %v", ErrParts, parts[pi].Shard.String(), err)
		}
	}
	cfg := first.Config
	// The run directory as this process sees it: the parts may have been
	// made where it was mounted elsewhere.
	cfg.Run = run
	cfg.MaxErrors = first.MaxErrors
	cfg.Methods = first.Methods
	var written []string
	for si, s := range first.Seeds {
		c := cfg
		if first.Multi {
			c = seedConfig(cfg, s)
		}
		c.Shard = Shard{}
		var runs []methodRun
		acct := newAccount("eval", c)
		for _, name := range first.Methods {
			k := key{s, name}
			es := eps[k]
			slices.SortStableFunc(es, func(a, b runner.Episode) int {
				return cmp.Or(cmp.Compare(a.Index, b.Index), cmp.Compare(a.Trial, b.Trial))
			})
			seen := map[int]bool{}
			for _, e := range es {
				if e.Trial == 0 {
					if seen[e.Index] {
						return nil, fmt.Errorf("%w: seed %d, %s: task %d played twice", ErrParts, s, name, e.Index)
					}
					seen[e.Index] = true
				}
			}
			if len(seen) != first.Tasks[si] {
				return nil, fmt.Errorf("%w: seed %d, %s: %d of %d tasks played", ErrParts, s, name, len(seen), first.Tasks[si])
			}
			run := methodRun{Name: name, Episodes: es, Trials: 1}
			for _, g := range groups[k] {
				run.Usage = run.Usage.Add(g.Usage)
				if len(g.Indices) == 0 {
					continue
				}
				if run.Trials == 1 && run.Checkpoint == "" && run.Memory == nil {
					run.Checkpoint, run.Memory, run.Trials = g.Checkpoint, g.Memory, g.Trials
				} else if !reflect.DeepEqual(run.Memory, g.Memory) || filepath.Base(run.Checkpoint) != filepath.Base(g.Checkpoint) {
					return nil, fmt.Errorf("%w: seed %d, %s: the parts loaded other memories (checkpoint %s, %v; checkpoint %s, %v)", ErrParts, s, name, run.Checkpoint, run.Memory, g.Checkpoint, g.Memory)
				}
			}
			acct.Methods[name] = run.Usage
			acct.Run = acct.Run.Add(run.Usage)
			runs = append(runs, run)
		}
		outDir, overrides, err := EvalDir(c)
		if err != nil {
			return written, err
		}
		kept, movedTo, err := keepEarlier(ctx, outDir, c.Methods, false) // a sharded evaluation is never online
		if err != nil {
			return written, err
		}
		if movedTo != "" {
			fmt.Fprintf(io.Err, "the earlier evaluation in %s could not be extended; moved to %s\n", outDir, movedTo)
		}
		prov := provs[byIndex[0]]
		prov.Settings = c.Resolved()
		prov.Models.Served = served
		prov.Warnings = slices.Clone(warnings)
		fmt.Fprintf(io.Err, "merged %d parts of %s: seed %d\n", n, filepath.Base(set), s)
		if _, err := writeEvaluation(ctx, c, paperOracle(c.Env), outDir, overrides, kept, runs, acct, prov, nil, io.Err); err != nil {
			return written, err
		}
		written = append(written, outDir)
	}
	if first.Multi {
		if _, err := combineSeeds(ctx, cfg, io); err != nil {
			return written, err
		}
		dir, _, _ := EvalDir(cfg)
		written = append(written, dir)
	}
	return written, nil
}
