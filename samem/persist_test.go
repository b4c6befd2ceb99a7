package samem

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/cluster/synth"
	forgetoff "github.com/samem/trainer/forget/offline"
	"github.com/samem/trainer/llm/offline"
	sumoff "github.com/samem/trainer/summarize/offline"
	thoughtoff "github.com/samem/trainer/thought/offline"
)

func newWithLog(t testing.TB, log *bytes.Buffer) *Method {
	t.Helper()
	m, err := New(Config{}, Deps{Summarizer: sumoff.Summarizer{}, Thinker: thoughtoff.Thinker{}, Checker: forgetoff.Checker{},
		Embedder: offline.New(1024), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// realisticMemory fills m as training would: states and thoughts from the
// realistic synthetic streams of cluster/synth (clusters in topics in
// domains, about a third of them new) assigned online, Q-values for the
// pairs met, and some clusters removed by forgetting. It returns the
// streams, which go on with later states and thoughts.
func realisticMemory(t testing.TB, m *Method, n int) (states, thoughts *synth.Stream) {
	t.Helper()
	ss, _ := synth.New(synth.Config{}, rand.New(rand.NewPCG(7, 1)))
	ts, _ := synth.New(synth.Config{}, rand.New(rand.NewPCG(7, 2)))
	m.mu.Lock()
	defer m.mu.Unlock()
	prev := int64(-1)
	for i := range n {
		s, err := m.states.Assign(ss.Next(), "state")
		if err != nil {
			t.Fatal(err)
		}
		th, err := m.thoughts.Assign(ts.Next(), "thought")
		if err != nil {
			t.Fatal(err)
		}
		if prev >= 0 {
			m.step++
			if _, err := m.table.Update(prev, th, float64(i%5)/4, s, i%50 == 49, m.step); err != nil {
				t.Fatal(err)
			}
		}
		prev = s
	}
	// Forgetting removes clusters without Q-entries here; the index keeps
	// them as tombstones until it compacts.
	var gone []int64
	for _, r := range m.thoughts.Rows() {
		if !m.table.HasThought(r.ID) && len(gone) < 40 {
			gone = append(gone, r.ID)
		}
	}
	m.thoughts.Remove(gone...)
	return ss, ts
}

// decisions returns what m decides for the queries (a state and a thought
// each): first the evaluation match of each (frozen memory), then the
// training assignment of each (which changes the memory).
func decisions(t testing.TB, m *Method, qs [][2][]float32) [][3]int64 {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out [][3]int64
	for _, q := range qs {
		for j, c := range []clusters{m.states, m.thoughts} {
			id, ok, err := c.Match(q[j], "")
			if err != nil {
				t.Fatal(err)
			}
			b := int64(0)
			if ok {
				b = 1
			}
			out = append(out, [3]int64{int64(j), id * b, b})
		}
	}
	for _, q := range qs {
		for j, c := range []clusters{m.states, m.thoughts} {
			id, err := c.Assign(q[j], "")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, [3]int64{int64(j), id, 2})
		}
	}
	return out
}

// loadCase saves a realistic memory, lets damage change the saved
// directory, loads it into a new method and returns that method, what it
// logged, and the decisions of both on the same later queries.
func loadCase(t *testing.T, n int, damage func(dir string)) (loaded *Method, log string, before, after [][3]int64) {
	t.Helper()
	ctx := context.Background()
	var buf bytes.Buffer
	m := newWithLog(t, &buf)
	ss, ts := realisticMemory(t, m, n)
	dir := t.TempDir()
	if err := m.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if damage != nil {
		damage(dir)
	}
	var lb bytes.Buffer
	re := newWithLog(t, &lb)
	if err := re.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if a, b := m.Snapshot(), re.Snapshot(); !reflect.DeepEqual(a, b) {
		t.Fatalf("loaded memory differs from the saved one (%d/%d entries, %d/%d states)", len(b.QTable), len(a.QTable), len(b.States), len(a.States))
	}
	// The next states and thoughts of the streams, for both methods.
	qs := make([][2][]float32, 300)
	for i := range qs {
		qs[i] = [2][]float32{ss.Next(), ts.Next()}
	}
	before = decisions(t, m, qs)
	after = decisions(t, re, qs)
	return re, lb.String(), before, after
}

// TestLoadRestoresIndexes: a memory of 3,000 realistic states
// and thoughts, saved and loaded, comes back with its cluster indexes read
// from the index files (no rebuild, no note), and every decision after the
// load (evaluation matches, then training assignments) equals the decision
// of the memory that was saved.
func TestLoadRestoresIndexes(t *testing.T) {
	re, log, before, after := loadCase(t, 3000, nil)
	if notes := re.LoadNotes(); len(notes) != 0 || log != "" {
		t.Fatalf("load rebuilt an index: notes %q, log %q", notes, log)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatal("decisions after the load differ from those before the save")
	}
	joins := 0
	for _, d := range before {
		if d[2] == 1 {
			joins++
		}
	}
	if joins < 100 || joins > 500 {
		t.Fatalf("%d of 600 matches joined: the queries should both join and miss", joins)
	}
}

// TestLoadOldCheckpoint: a checkpoint without index files (written before
// they existed) loads, its indexes rebuilt, with one note printed once.
func TestLoadOldCheckpoint(t *testing.T) {
	re, log, before, after := loadCase(t, 1000, func(dir string) {
		for _, f := range indexFiles {
			if err := os.Remove(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	})
	notes := re.LoadNotes()
	if len(notes) != 2 || !strings.Contains(notes[0], "no index file") || !strings.Contains(notes[1], checkpoints.ThoughtsIndexFile) {
		t.Fatalf("notes %q, want one per index saying it had no file", notes)
	}
	if strings.Count(log, "\n") != 1 || !strings.Contains(log, "no index file") {
		t.Fatalf("log %q, want the notes on one line", log)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatal("decisions after the load differ from those before the save")
	}
}

// TestLoadDamagedIndex: a damaged index file does not fail the load (the
// vectors are intact): that index is rebuilt, the note names the file and
// the damage, and decisions are unchanged. In a committed checkpoint the
// manifest's SHA-256 catches the damage; Verify does not fail on it.
func TestLoadDamagedIndex(t *testing.T) {
	flip := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/3] ^= 0x40
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	re, log, before, after := loadCase(t, 1000, func(dir string) { flip(filepath.Join(dir, checkpoints.StatesIndexFile)) })
	notes := re.LoadNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "states index ") || !strings.HasSuffix(strings.Fields(notes[0])[2], checkpoints.StatesIndexFile+":") || !strings.Contains(notes[0], "CRC-32C") {
		t.Fatalf("notes %q, want one naming the states index and its CRC", notes)
	}
	if !strings.Contains(log, "rebuilt") {
		t.Fatalf("log %q says nothing of the rebuild", log)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatal("decisions after the load differ from those before the save")
	}

	// The same through a committed checkpoint.
	ctx := context.Background()
	m := newWithLog(t, &bytes.Buffer{})
	realisticMemory(t, m, 500)
	store, err := checkpoints.Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	p, err := store.Begin(0)
	if err != nil {
		t.Fatal(err)
	}
	md, err := p.MethodDir(Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(ctx, md); err != nil {
		t.Fatal(err)
	}
	ck, err := p.Commit(ctx, checkpoints.Meta{Method: Name})
	if err != nil {
		t.Fatal(err)
	}
	flip(filepath.Join(ck, Name, checkpoints.ThoughtsIndexFile))
	if _, _, err := store.Latest(ctx); err != nil {
		t.Fatalf("Latest with a damaged index file: %v", err)
	}
	re = newWithLog(t, &bytes.Buffer{})
	if err := re.Load(ctx, filepath.Join(ck, Name)); err != nil {
		t.Fatal(err)
	}
	notes = re.LoadNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "SHA-256") || !strings.Contains(notes[0], filepath.Join(ck, Name, checkpoints.ThoughtsIndexFile)) {
		t.Fatalf("notes %q, want one naming the thoughts index file and its SHA-256", notes)
	}
	if !reflect.DeepEqual(m.Snapshot(), re.Snapshot()) {
		t.Fatal("loaded memory differs from the saved one")
	}
}
