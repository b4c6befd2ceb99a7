package viewer

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/report"
)

// The small run's schedule: every task type smallPerType times, for
// smallIterations iterations (enough for SAMem to guide evaluation steps).
const smallIterations, smallPerType = 3, 2

var (
	runOnce sync.Once
	runDir  string
	runErr  error
)

// smallRun trains every method offline on a small schedule and evaluates
// them on two held-out tasks of each type, into a
// run directory shared by the package's tests.
func smallRun(t testing.TB) string {
	t.Helper()
	runOnce.Do(func() {
		dir, err := os.MkdirTemp("", "viewer-run-")
		if err != nil {
			runErr = err
			return
		}
		runDir = dir
		cfg := app.Defaults()
		cfg.Run = dir
		cfg.Methods = []string{"samem", "clin", "arigraph", "memstream", "kgplan", "reflexion"}
		cfg.Workers, cfg.Iterations, cfg.PerType = 1, smallIterations, smallPerType
		cfg.LLM.EmbedDim = 64
		quiet := app.Streams{Out: io.Discard, Err: io.Discard}
		if _, runErr = app.Train(context.Background(), cfg, quiet); runErr != nil {
			return
		}
		ev := cfg
		ev.Methods = append(cfg.Methods, "nomemory")
		ev.EvalPerType = 2
		_, runErr = app.Eval(context.Background(), ev, quiet)
	})
	if runErr != nil {
		t.Fatalf("small run: %v", runErr)
	}
	return runDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if runDir != "" {
		os.RemoveAll(runDir)
	}
	os.Exit(code)
}

// The viewer of a small run lists every evaluated and trained episode with
// a file of its own, every method with its history and one memory file per
// kept checkpoint, and writes only inside its folder.
func TestWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("trains and evaluates every method (runs without -short)")
	}
	run := smallRun(t)
	out := filepath.Join(t.TempDir(), "v")
	st, err := Write(context.Background(), Options{Run: run, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	ix := readIndex(t, out)
	if ix.OfflineNote != report.OfflineNote {
		t.Errorf("offline run's note %q, want %q", ix.OfflineNote, report.OfflineNote)
	}
	if len(ix.Evals) != 1 || st.Episodes == 0 || st.TrainEpisodes != 6*smallIterations*6*smallPerType {
		t.Errorf("%d evaluations, %d evaluated and %d training episodes; want 1, some and %d", len(ix.Evals), st.Episodes, st.TrainEpisodes, 6*smallIterations*6*smallPerType)
	}
	for _, e := range ix.Episodes {
		b, err := os.ReadFile(filepath.Join(out, "data", "ep", e.ID+".js"))
		if err != nil || !strings.HasPrefix(string(b), "viewerEpisode(\""+e.ID+"\",{") {
			t.Fatalf("episode %s: %.40q (err %v)", e.ID, b, err)
		}
	}
	if len(ix.Methods) != 6 {
		t.Fatalf("%d methods, want 6", len(ix.Methods))
	}
	for _, m := range ix.Methods {
		if len(m.History) == 0 || len(m.Checkpoints) != smallIterations || len(m.Tables) == 0 || m.MemoryError != "" {
			t.Errorf("method %s: history %d bytes, checkpoints %v, tables %v, error %q", m.Name, len(m.History), m.Checkpoints, m.Tables, m.MemoryError)
		}
		for _, ck := range m.Checkpoints {
			if _, err := os.Stat(filepath.Join(out, "data", "mem", m.Name, ck+".js")); err != nil {
				t.Error(err)
			}
		}
	}
	for _, f := range []string{"index.html", "viewer.js", "viewer.css"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// Writing again replaces the folder whole.
	if _, err := Write(context.Background(), Options{Run: run, Out: out, Checkpoints: 1}); err != nil {
		t.Fatal(err)
	}
	if ix := readIndex(t, out); len(ix.Methods[0].Checkpoints) != 1 {
		t.Errorf("-checkpoints 1 kept %v", ix.Methods[0].Checkpoints)
	}
	if _, err := Write(context.Background(), Options{Run: t.TempDir()}); err == nil {
		t.Error("an empty directory made a viewer")
	}
}
