package app

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/report"
)

// Online says whether an evaluation's memory keeps learning (-online); ""
// is resolved by Config.Resolved (OnlineFor).
type Online string

// The values of -online.
const (
	// OnlineOn: every evaluation episode updates memory as a training
	// episode would while acting greedily (agent.Online), seed 002 App.
	// B.1's Jericho protocol: "We train and evaluate our method on this
	// task set" to test "the online evolving learning capability".
	OnlineOn Online = "on"
	// OnlineOff: memory is frozen at evaluation (agent.Eval), seed 002
	// Sec. 4.1's protocol for ALFWorld and ScienceWorld.
	OnlineOff Online = "off"
	// onlineEnv names the unresolved value on the command line.
	onlineEnv = "env"
)

func (o Online) String() string {
	if o == "" {
		return onlineEnv
	}
	return string(o)
}

// Set takes on or off (true, false: -online alone is on) or env (the
// environment's protocol).
func (o *Online) Set(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "1":
		*o = OnlineOn
	case "off", "false", "0":
		*o = OnlineOff
	case onlineEnv:
		*o = ""
	default:
		return fmt.Errorf("%q: want on, off or env (the environment's protocol)", v)
	}
	return nil
}

// IsBoolFlag lets -online stand alone for -online=on.
func (o *Online) IsBoolFlag() bool { return true }

func (o Online) valid() bool { return o == "" || o == OnlineOn || o == OnlineOff }

// OnlineFor is the evaluation protocol of env's paper: memory keeps
// learning during the evaluation of AgentBoard's Jericho games (seed 002
// App. B.1, the set it trains and evaluates on), and is frozen everywhere
// else (seed 002 Sec. 4.1 evaluates the trained memory on held-out tasks).
// env is resolved (its GameSet named).
func OnlineFor(env EnvConfig) Online {
	if env.Kind == EnvZMachine && env.GameSet == GameSetAgentBoard {
		return OnlineOn
	}
	return OnlineOff
}

// OnlineRecord is what an evaluation whose memory kept learning records
// beside its result, so that nobody takes it for a frozen evaluation.
type OnlineRecord struct {
	// Memory is where the memory the evaluation left is saved, relative to
	// the evaluation's directory ("" for a method with nothing to save).
	Memory string `json:"memory,omitempty"`
	// Trained is the size of the memory the evaluation started from (the
	// checkpoint's); EvalResult.Memory is its size at the end.
	Trained map[string]int `json:"trained,omitempty"`
	// Order says in which order the episodes updated memory: the task
	// order with one worker, the order episodes finished in with more
	// (not fixed from one run to the next).
	Order string `json:"order"`
}

// onlineOrder describes the order in which an online evaluation's episodes
// update memory with workers workers.
func onlineOrder(workers int) string {
	if workers <= 1 {
		return "task order (1 worker)"
	}
	return fmt.Sprintf("the order episodes finished in (%d workers; not fixed from run to run: -workers 1 plays and learns in task order)", workers)
}

// saveOnline saves m's memory, as an online evaluation left it, as a
// checkpoint directory (the meta of trained, the checkpoint the evaluation
// started from, a manifest, and the memory in <name>/) so that inspect and
// every reader of checkpoints open it as they open the trained one. It
// writes into a new temporary folder beside outDir and returns the
// committed directory in it and that folder (both "" when m saves
// nothing); the evaluation's writer moves dir into place with the results,
// and the caller removes tmp.
func saveOnline(ctx context.Context, outDir, name, trained string, m agent.Method) (dir, tmp string, err error) {
	s, ok := m.(agent.Saver)
	if !ok || IsBaseline(name) || trained == "" {
		return "", "", nil
	}
	fail := func(err error) (string, string, error) {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return "", "", fmt.Errorf("save the memory %s learned online: %w", name, err)
	}
	meta, err := checkpoints.LoadMeta(ctx, filepath.Join(trained, checkpoints.MetaFile))
	if err != nil {
		return fail(err)
	}
	meta.CreatedUnix = 0 // now: when the evaluation left it
	parent := filepath.Dir(outDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fail(err)
	}
	if tmp, err = os.MkdirTemp(parent, "."+filepath.Base(outDir)+"-"+name+"-memory-*"); err != nil {
		return fail(err)
	}
	store, err := checkpoints.Open(tmp, 1)
	if err != nil {
		return fail(err)
	}
	defer store.Close()
	p, err := store.Begin(int(meta.Iteration))
	if err != nil {
		return fail(err)
	}
	mdir, err := p.MethodDir(name)
	if err != nil {
		p.Abort()
		return fail(err)
	}
	if err := s.Save(ctx, mdir); err != nil {
		p.Abort()
		return fail(err)
	}
	if dir, err = p.Commit(ctx, meta); err != nil {
		return fail(err)
	}
	return dir, tmp, nil
}

// copyTree copies the regular files and folders under src into dst (which
// must not exist).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(to)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// placeOnlineMemory puts into tmp, the evaluation directory being written,
// the memory each run of this evaluation learned online, and a copy of the
// memory the earlier methods kept beside them (kept) learned in outDir.
func placeOnlineMemory(tmp, outDir string, kept earlier, runs []methodRun) error {
	into := filepath.Join(tmp, checkpoints.OnlineFolder)
	for _, r := range kept.results {
		src := filepath.Join(outDir, checkpoints.OnlineFolder, r.Method)
		if _, err := os.Stat(src); err != nil {
			continue
		}
		if err := copyTree(src, filepath.Join(into, r.Method)); err != nil {
			return fmt.Errorf("keep the memory %s learned online: %w", r.Method, err)
		}
	}
	for _, r := range runs {
		if r.Learned == "" {
			continue
		}
		if err := os.MkdirAll(into, 0o755); err != nil {
			return err
		}
		if err := os.Rename(r.Learned, filepath.Join(into, r.Name)); err != nil {
			return fmt.Errorf("place the memory %s learned online: %w", r.Name, err)
		}
	}
	return nil
}

// OnlineNote is the line printed above evaluation results of which some
// learned online (report.OnlineNote, with the methods and the order their
// episodes updated memory in), or "".
func OnlineNote(results []EvalResult) string {
	var names []string
	order := ""
	for _, r := range results {
		if r.Online != nil {
			names = append(names, r.Method)
			order = r.Online.Order
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%s; episodes updated memory in %s).", report.OnlineNote, strings.Join(names, ", "), order)
}
