package checkpoints

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const testModel, testDim = "hash-embedder-v1", 8

func testMeta(step int64) Meta {
	return Meta{Method: "samem", ConfigJSON: `{"workers":1}`, GlobalStep: step, Epsilon: 0.5,
		EmbedderModel: testModel, EmbedDim: testDim, Seed: 7, RandState: "00ff", CreatedUnix: 1700000000}
}

// commit writes one SAMem checkpoint of an iteration and returns its state.
func commit(t *testing.T, s *Store, iteration int, seed uint64) (SAMemState, string) {
	t.Helper()
	ctx := context.Background()
	st := makeState(rand.New(rand.NewPCG(seed, 0)), 40, 30, 5, testDim)
	p, err := s.Begin(iteration)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Abort()
	md, err := p.MethodDir("samem")
	if err != nil {
		t.Fatal(err)
	}
	if err := SaveSAMem(ctx, md, st); err != nil {
		t.Fatal(err)
	}
	dir, err := p.Commit(ctx, testMeta(int64(iteration*100)))
	if err != nil {
		t.Fatal(err)
	}
	return st, dir
}

// loadLatest is what a resuming trainer does.
func loadLatest(t *testing.T, s *Store) (SAMemState, Meta, error) {
	t.Helper()
	ctx := context.Background()
	dir, meta, err := s.Latest(ctx)
	if err != nil {
		return SAMemState{}, Meta{}, err
	}
	if err := CheckCompatible(meta, testModel, testDim); err != nil {
		return SAMemState{}, Meta{}, fmt.Errorf("%s: %w", dir, err)
	}
	st, err := LoadSAMem(ctx, filepath.Join(dir, "samem"), testDim)
	return st, meta, err
}

func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	run := t.TempDir()
	s, err := Open(run, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Latest(ctx); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("Latest on a new run = %v, want ErrNoCheckpoint", err)
	}
	var want SAMemState
	for it := 0; it < 5; it++ {
		var dir string
		want, dir = commit(t, s, it, uint64(it+1))
		if filepath.Base(dir) != DirName(it) || filepath.Dir(dir) != filepath.Join(run, Folder) {
			t.Errorf("Commit dir = %s, want %s", dir, filepath.Join(run, Folder, DirName(it)))
		}
	}
	got, meta, err := loadLatest(t, s)
	if err != nil {
		t.Fatal(err)
	}
	equalState(t, got, want)
	wantMeta := testMeta(400)
	wantMeta.Iteration, wantMeta.FormatVersion = 4, FormatVersion
	if meta != wantMeta {
		t.Errorf("Latest meta = %+v, want %+v", meta, wantMeta)
	}
	committed, err := s.Committed()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range committed {
		names = append(names, filepath.Base(d))
	}
	if strings.Join(names, ",") != "iter-0002,iter-0003,iter-0004" {
		t.Errorf("Committed after 5 commits with keep 3 = %v, want iter-0002..iter-0004", names)
	}
	// Older or equal iterations are never rewritten.
	for _, it := range []int{4, 2, 0} {
		if _, err := s.Begin(it); !errors.Is(err, ErrExists) {
			t.Errorf("Begin(%d) after iteration 4 = %v, want ErrExists", it, err)
		}
	}
	// Nothing temporary is left in the store.
	entries, _ := os.ReadDir(s.Root())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && e.Name() != lockName {
			t.Errorf("leftover %s in the store", e.Name())
		}
	}
	// The method's files are real Parquet files another reader can open
	// without this package's checks (see also the DuckDB test).
	if _, err := os.Stat(filepath.Join(run, Folder, "iter-0004", "samem", QTableFile)); err != nil {
		t.Error(err)
	}
}

// TestStoreLocked runs a child process that holds a run directory with a
// pending checkpoint: this process can read the store but not begin a
// checkpoint, and does not clean the child's pending directory; once the
// child dies, it can.
func TestStoreLocked(t *testing.T) {
	if run := os.Getenv("CHECKPOINTS_LOCK_CHILD"); run != "" {
		s, err := Open(run, 0)
		if err != nil {
			os.Exit(3)
		}
		p, err := s.Begin(1)
		if err != nil {
			os.Exit(4)
		}
		fmt.Println("pending", p.Dir())
		time.Sleep(time.Minute) // until killed
		os.Exit(5)
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	ctx := context.Background()
	run := t.TempDir()
	s, err := Open(run, 0)
	must(t, err)
	commit(t, s, 0, 1)
	// A second store of the same process shares the hold.
	s2, err := Open(run, 0)
	must(t, err)
	must(t, s2.Close())
	must(t, s.Close())

	cmd := exec.Command(os.Args[0], "-test.run=^TestStoreLocked$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CHECKPOINTS_LOCK_CHILD="+run)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "pending ") {
		t.Fatalf("child said %q, %v", line, err)
	}
	pending := strings.TrimSpace(strings.TrimPrefix(line, "pending "))

	r, err := Open(run, 0)
	must(t, err)
	if _, meta, err := r.Latest(ctx); err != nil || meta.Iteration != 0 {
		t.Errorf("Latest while another process writes = iteration %d, %v; want 0", meta.Iteration, err)
	}
	if _, err := r.Begin(1); !errors.Is(err, ErrLocked) {
		t.Errorf("Begin while another process writes = %v, want ErrLocked", err)
	}
	if _, err := os.Stat(pending); err != nil {
		t.Errorf("the other process's pending checkpoint was removed: %v", err)
	}
	must(t, cmd.Process.Kill())
	cmd.Wait()
	// The dead child's hold is gone: this store can write now.
	p, err := r.Begin(1)
	must(t, err)
	must(t, p.Abort())
	must(t, r.Close())
}

func TestCheckCompatible(t *testing.T) {
	m := testMeta(0)
	tests := []struct {
		model string
		dim   int
		ok    bool
	}{
		{testModel, testDim, true},
		{"text-embedding-3-small", testDim, false},
		{testModel, 1536, false},
	}
	for _, tt := range tests {
		err := CheckCompatible(m, tt.model, tt.dim)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrIncompatible)) {
			t.Errorf("CheckCompatible(%q, %d) = %v, want ok %v", tt.model, tt.dim, err, tt.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), testModel) || !strings.Contains(err.Error(), tt.model)) {
			t.Errorf("CheckCompatible error %q does not name both embedders", err)
		}
	}
}

// snapshot returns every file of a tree with its content.
func snapshot(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = b
		}
		return nil
	})
	return out
}

func TestStoreDamagedCheckpoint(t *testing.T) {
	ctx := context.Background()
	samem := func(dir, name string) string { return filepath.Join(dir, "samem", name) }
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string) string // returns the file the error must name
		want   error
	}{
		{"truncated qtable", func(t *testing.T, dir string) string {
			p := samem(dir, QTableFile)
			b, _ := os.ReadFile(p)
			must(t, os.WriteFile(p, b[:len(b)-100], 0o644))
			return p
		}, ErrCorrupt},
		{"bit flip in states", func(t *testing.T, dir string) string {
			p := samem(dir, StatesFile)
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0x04
			must(t, os.WriteFile(p, b, 0o644))
			return p
		}, ErrCorrupt},
		{"missing thoughts", func(t *testing.T, dir string) string {
			p := samem(dir, ThoughtsFile)
			must(t, os.Remove(p))
			return p
		}, ErrMissing},
		{"missing manifest", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, ManifestFile)
			must(t, os.Remove(p))
			return p
		}, ErrMissing},
		{"unlisted file", func(t *testing.T, dir string) string {
			p := samem(dir, "extra.parquet")
			must(t, os.WriteFile(p, []byte("x"), 0o644))
			return p
		}, ErrCorrupt},
		{"manifest of another version", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, ManifestFile)
			b, _ := os.ReadFile(p)
			b = bytes.Replace(b, []byte(`"format_version": 1`), []byte(`"format_version": 2`), 1)
			must(t, os.WriteFile(p, b, 0o644))
			return p
		}, ErrFormatVersion},
		{"manifest escaping the checkpoint", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, ManifestFile)
			b, _ := os.ReadFile(p)
			b = bytes.Replace(b, []byte(`"path": "meta.parquet"`), []byte(`"path": "../../LATEST"`), 1)
			must(t, os.WriteFile(p, b, 0o644))
			return p
		}, ErrBadName},
		{"meta of another version", func(t *testing.T, dir string) string {
			// A consistent checkpoint (manifest matches) whose metadata says
			// version 2: only LoadMeta can tell.
			p := filepath.Join(dir, MetaFile)
			m := testMeta(0)
			m.FormatVersion, m.Iteration = 2, 0
			must(t, os.Remove(p))
			must(t, WriteFile(ctx, p, []Meta{m}, WriteOptions{}))
			rewriteManifest(t, dir)
			return p
		}, ErrFormatVersion},
		{"garbage LATEST", func(t *testing.T, dir string) string {
			p := filepath.Join(filepath.Dir(dir), LatestFile)
			must(t, os.WriteFile(p, []byte("../../etc\n"), 0o644))
			return p
		}, ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(t.TempDir(), 0)
			if err != nil {
				t.Fatal(err)
			}
			_, dir := commit(t, s, 0, 1)
			file := tt.damage(t, dir)
			before := snapshot(t, s.Root())
			_, _, err = loadLatest(t, s)
			if !errors.Is(err, tt.want) {
				t.Fatalf("loading a checkpoint with %s = %v, want %v", tt.name, err, tt.want)
			}
			t.Logf("error: %v", err)
			if !strings.Contains(err.Error(), file) {
				t.Errorf("error %q does not name %s", err, file)
			}
			// A trainer cannot start over on top of it, and nothing changed.
			if _, err := s.Begin(0); !errors.Is(err, ErrExists) && !errors.Is(err, ErrCorrupt) {
				t.Errorf("Begin(0) on a damaged checkpoint = %v, want ErrExists or ErrCorrupt", err)
			}
			must(t, s.Close())
			s2, err := Open(filepath.Dir(s.Root()), 0)
			must(t, err)
			defer s2.Close()
			after := snapshot(t, s.Root())
			if len(before) != len(after) {
				t.Errorf("files changed: %d before, %d after", len(before), len(after))
			}
			for p, b := range before {
				if !bytes.Equal(after[p], b) {
					t.Errorf("%s was overwritten", p)
				}
			}
		})
	}
}

// rewriteManifest recomputes a checkpoint's manifest, as a consistent but
// foreign writer would.
func rewriteManifest(t *testing.T, dir string) {
	t.Helper()
	must(t, os.Remove(filepath.Join(dir, ManifestFile)))
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	m := manifest{FormatVersion: FormatVersion}
	for _, p := range files {
		size, sum, err := hashFile(p, false)
		must(t, err)
		rel, _ := filepath.Rel(dir, p)
		m.Files = append(m.Files, manifestFile{Path: filepath.ToSlash(rel), Size: size, SHA256: sum})
	}
	b, _ := jsonIndent(m)
	must(t, os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644))
}

func TestLoadSAMemChecks(t *testing.T) {
	ctx := context.Background()
	base := makeState(rand.New(rand.NewPCG(9, 9)), 10, 10, 3, testDim)
	tests := []struct {
		name   string
		change func(st *SAMemState)
		file   string
		dim    int
	}{
		{"other dimension", func(st *SAMemState) {}, StatesFile, 16},
		{"ragged embeddings", func(st *SAMemState) { st.Thoughts[3].Embedding = st.Thoughts[3].Embedding[:2] }, ThoughtsFile, 0},
		{"duplicate cluster id", func(st *SAMemState) { st.States[2].ID = st.States[1].ID }, StatesFile, testDim},
		{"unknown state id", func(st *SAMemState) { st.QTable[len(st.QTable)-1].StateID = 999 }, QTableFile, testDim},
		{"unknown thought id", func(st *SAMemState) { st.QTable[0].ThoughtID = -5 }, QTableFile, testDim},
		{"duplicate pair", func(st *SAMemState) { st.QTable[1] = st.QTable[0] }, QTableFile, testDim},
		{"negative visits", func(st *SAMemState) { st.QTable[2].Visits = -1 }, QTableFile, testDim},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := SAMemState{QTable: append([]QRow{}, base.QTable...), States: append([]ClusterRow{}, base.States...), Thoughts: append([]ClusterRow{}, base.Thoughts...)}
			tt.change(&st)
			dir := t.TempDir()
			must(t, SaveSAMem(ctx, dir, st))
			_, err := LoadSAMem(ctx, dir, tt.dim)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), filepath.Join(dir, tt.file)) {
				t.Errorf("LoadSAMem with %s = %v, want ErrCorrupt naming %s", tt.name, err, tt.file)
			}
		})
	}
	// The unchanged state loads, and an unsorted Q-table is saved sorted.
	dir := t.TempDir()
	shuffled := base
	shuffled.QTable = append([]QRow{}, base.QTable...)
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(shuffled.QTable), func(i, j int) {
		shuffled.QTable[i], shuffled.QTable[j] = shuffled.QTable[j], shuffled.QTable[i]
	})
	must(t, SaveSAMem(ctx, dir, shuffled))
	got, err := LoadSAMem(ctx, dir, testDim)
	if err != nil {
		t.Fatal(err)
	}
	equalState(t, got, base)
}

func TestMethodDirNames(t *testing.T) {
	s, err := Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Begin(0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Abort()
	for _, name := range []string{"", ".", "..", "../x", "a/b", `a\b`, "/abs", ".hidden", "meta.parquet", "MANIFEST.json", "a b", strings.Repeat("x", 65)} {
		if _, err := p.MethodDir(name); !errors.Is(err, ErrBadName) {
			t.Errorf("MethodDir(%q) = %v, want ErrBadName", name, err)
		}
	}
	for _, name := range []string{"samem", "clin", "memory-stream", "kg_plan.v2"} {
		d, err := p.MethodDir(name)
		if err != nil || filepath.Dir(d) != p.Dir() {
			t.Errorf("MethodDir(%q) = %s, %v; want a directory in %s", name, d, err, p.Dir())
		}
	}
}

// TestFailedWriteKeepsPrevious injects a full disk while a method saves,
// and then while Commit writes the manifest: the previous checkpoint stays
// the latest, loadable, and no temporary directory survives.
func TestFailedWriteKeepsPrevious(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := commit(t, s, 0, 1)
	before := snapshot(t, s.Root())
	defer func() { testHookWrite = nil }()
	full := func(limit int64) {
		testHookWrite = func(written int64, n int) error {
			if written+int64(n) > limit {
				return syscall.ENOSPC
			}
			return nil
		}
	}

	// 1. A method's save fails midway; the runner aborts.
	p, err := s.Begin(1)
	must(t, err)
	md, err := p.MethodDir("samem")
	must(t, err)
	full(2000)
	big := makeState(rand.New(rand.NewPCG(2, 2)), 500, 300, 10, testDim)
	if err := SaveSAMem(ctx, md, big); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("SaveSAMem on a full disk = %v, want ENOSPC", err)
	}
	must(t, p.Abort())

	// 2. The method's files are written, the manifest write fails.
	testHookWrite = nil
	p, err = s.Begin(1)
	must(t, err)
	md, err = p.MethodDir("samem")
	must(t, err)
	must(t, SaveSAMem(ctx, md, big))
	full(0)
	if _, err := p.Commit(ctx, testMeta(1)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Commit on a full disk = %v, want ENOSPC", err)
	}
	testHookWrite = nil

	got, meta, err := loadLatest(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Iteration != 0 {
		t.Errorf("latest iteration after failed writes = %d, want 0", meta.Iteration)
	}
	equalState(t, got, want)
	after := snapshot(t, s.Root())
	if len(after) != len(before) {
		t.Errorf("store holds %d files after failed writes, want the %d from before", len(after), len(before))
	}
	for p, b := range before {
		if !bytes.Equal(after[p], b) {
			t.Errorf("%s changed", p)
		}
	}
	// And the next attempt succeeds.
	commit(t, s, 1, 3)
}

// TestLeftovers simulates a process killed before its commit point: an
// unfinished temporary directory, and a renamed directory LATEST does not
// name yet. Neither is taken for a checkpoint; Open cleans the first and
// the next Commit of that iteration replaces the second.
func TestLeftovers(t *testing.T) {
	ctx := context.Background()
	run := t.TempDir()
	s, err := Open(run, 0)
	must(t, err)
	commit(t, s, 0, 1)
	p, err := s.Begin(1)
	must(t, err)
	md, err := p.MethodDir("samem")
	must(t, err)
	must(t, SaveSAMem(ctx, md, makeState(rand.New(rand.NewPCG(2, 2)), 5, 5, 2, testDim)))
	// "Killed": no Commit, no Abort. A renamed but uncommitted iteration 2:
	orphan := filepath.Join(s.Root(), DirName(2))
	must(t, os.MkdirAll(filepath.Join(orphan, "samem"), 0o755))
	must(t, os.WriteFile(filepath.Join(orphan, "samem", QTableFile), []byte("half"), 0o644))
	must(t, s.Close())

	s2, err := Open(run, 0)
	must(t, err)
	if _, err := os.Stat(p.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("leftover temporary directory %s survived Open: %v", p.Dir(), err)
	}
	if _, meta, err := s2.Latest(ctx); err != nil || meta.Iteration != 0 {
		t.Fatalf("Latest with leftovers = iteration %d, %v; want 0", meta.Iteration, err)
	}
	committed, _ := s2.Committed()
	if len(committed) != 1 {
		t.Errorf("Committed = %v, want only iter-0000", committed)
	}
	commit(t, s2, 1, 4)
	want, _ := commit(t, s2, 2, 5)
	got, meta, err := loadLatest(t, s2)
	if err != nil || meta.Iteration != 2 {
		t.Fatalf("after replacing the orphan: iteration %d, %v", meta.Iteration, err)
	}
	equalState(t, got, want)
}

// TestKillDuringWrite kills (SIGKILL) a child process that is writing a
// large checkpoint: the previous checkpoint stays loadable, and the next
// process cleans up and commits.
func TestKillDuringWrite(t *testing.T) {
	if run := os.Getenv("CHECKPOINTS_KILL_CHILD"); run != "" {
		killChild(run)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	run := t.TempDir()
	s, err := Open(run, 0)
	must(t, err)
	want, _ := commit(t, s, 0, 1)
	must(t, s.Close()) // the child takes the run directory

	cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringWrite$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CHECKPOINTS_KILL_CHILD="+run)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	must(t, cmd.Start())
	// Wait until the child is inside a Parquet write (a temporary file
	// with data in it), then kill it.
	deadline := time.Now().Add(30 * time.Second)
	for !writing(s.Root()) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child never started writing; output:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()

	// The kernel released the dead child's lock.
	s, err = Open(run, 0)
	must(t, err)
	got, meta, err := loadLatest(t, s)
	if err != nil || meta.Iteration != 0 {
		t.Fatalf("after SIGKILL: iteration %d, %v; want iteration 0", meta.Iteration, err)
	}
	equalState(t, got, want)
	entries, _ := os.ReadDir(s.Root())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && e.Name() != lockName {
			t.Errorf("leftover %s after Open", e.Name())
		}
	}
	commit(t, s, 1, 2)
	must(t, s.Close())
}

// writing reports whether a temporary Parquet file with data exists in a
// pending checkpoint of the store.
func writing(root string) bool {
	matches, _ := filepath.Glob(filepath.Join(root, tmpPrefix+"*", "samem", ".*.tmp-*"))
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.Size() > 0 {
			return true
		}
	}
	return false
}

// killChild writes large checkpoints of iteration 1 until it is killed.
func killChild(run string) {
	ctx := context.Background()
	s, err := Open(run, 0)
	if err != nil {
		os.Exit(3)
	}
	st := makeState(rand.New(rand.NewPCG(7, 7)), 2000, 2000, 50, 256)
	for {
		p, err := s.Begin(1)
		if err != nil {
			os.Exit(4)
		}
		md, err := p.MethodDir("samem")
		if err != nil {
			os.Exit(5)
		}
		for range 100 {
			if err := SaveSAMem(ctx, md, st); err != nil {
				os.Exit(6)
			}
		}
		p.Abort()
	}
}

// FuzzVerify feeds arbitrary manifests to Verify: it must never panic, and
// never accept a checkpoint unless every file it lists is inside the
// directory and intact.
func FuzzVerify(f *testing.F) {
	s, err := Open(f.TempDir(), 0)
	if err != nil {
		f.Fatal(err)
	}
	p, err := s.Begin(0)
	if err != nil {
		f.Fatal(err)
	}
	dir, err := p.Commit(context.Background(), testMeta(0))
	if err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		f.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(bytes.Replace(good, []byte(`"meta.parquet"`), []byte(`"../meta.parquet"`), 1))
	f.Add([]byte(`{"format_version":1,"iteration":0,"files":[{"path":"/etc/passwd","size":1,"sha256":"00"}]}`))
	f.Add([]byte(`{"format_version":1,"files":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, manifestBytes []byte) {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, MetaFile), meta, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, ManifestFile), manifestBytes, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Verify(context.Background(), d); err == nil {
			// Accepted: then it must list exactly meta.parquet, intact.
			if !bytes.Contains(manifestBytes, []byte("meta.parquet")) {
				t.Errorf("Verify accepted a manifest that does not list meta.parquet: %q", manifestBytes)
			}
		}
	})
}
