package samem

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/cluster"
	"github.com/samem/trainer/forget"
	"github.com/samem/trainer/qlearn"
)

// Save implements agent.Saver: the Q-table and the state and thought clusters
// as Parquet (checkpoints.SaveSAMem), and the images of the two cluster
// indexes as derived files (checkpoints.StatesIndexFile, ThoughtsIndexFile).
func (m *Method) Save(ctx context.Context, dir string) error {
	m.mu.Lock()
	st, images, err := m.snapshotImages()
	if err != nil {
		m.mu.Unlock()
		return fmt.Errorf("save samem: %w", err)
	}
	clock, err := json.Marshal(progress{Step: m.step, Stats: m.stats, NextState: m.states.NextID(), NextThought: m.thoughts.NextID(), Pruned: m.prunedList()})
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("save samem: %w", err)
	}
	if err := checkpoints.SaveSAMem(ctx, dir, st); err != nil {
		return fmt.Errorf("save samem: %w", err)
	}
	// The cluster indexes as they are, so that Load need not
	// rebuild them; derived files, rebuilt by Load when unusable.
	for i, img := range images {
		if img == nil {
			continue
		}
		err := checkpoints.WriteDerived(ctx, filepath.Join(dir, indexFiles[i]), func(w io.Writer) error {
			_, err := img.WriteTo(w)
			return err
		})
		if err != nil {
			return fmt.Errorf("save samem: %w", err)
		}
	}
	// The checkpoint directory is committed as a whole (checkpoints.Store),
	// so a plain write is atomic enough here.
	if err := os.WriteFile(filepath.Join(dir, progressFile), clock, 0o644); err != nil {
		return fmt.Errorf("save samem: %w", err)
	}
	return nil
}

// ErrFormat is returned (wrapped) by Load when the step clock file
// (samem.json) is not the JSON Save writes.
var ErrFormat = errors.New("samem: bad checkpoint")

// progressFile keeps the method's step clock (the Q-table's
// last_update_step continues from it after a resume) and its counters.
const progressFile = "samem.json"

type progress struct {
	Step        int64 `json:"step"`
	Stats       Stats `json:"stats"`
	NextState   int64 `json:"next_state_id"`
	NextThought int64 `json:"next_thought_id"`
	// Pruned are the (state, thought) pairs forgetting rejected, sorted;
	// exploring never retries them.
	Pruned [][2]int64 `json:"pruned,omitempty"`
}

func (m *Method) prunedList() [][2]int64 {
	out := make([][2]int64, 0, len(m.pruned))
	for p := range m.pruned {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b [2]int64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	return out
}

// Snapshot returns a copy of the memory as a checkpoint holds it.
func (m *Method) Snapshot() checkpoints.SAMemState {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snapshot()
}

func (m *Method) snapshot() checkpoints.SAMemState {
	return checkpoints.SAMemState{QTable: m.qrows(), States: m.states.Rows(), Thoughts: m.thoughts.Rows()}
}

func (m *Method) qrows() []checkpoints.QRow {
	entries := m.table.Entries()
	q := make([]checkpoints.QRow, len(entries))
	for i, e := range entries {
		q[i] = checkpoints.QRow{StateID: e.State, ThoughtID: e.Thought, Q: e.Q, Visits: e.Visits, LastUpdateStep: e.LastStep}
	}
	return q
}

// indexFiles are the index files of the states and the thoughts, in the
// order of snapshotImages' images.
var indexFiles = [2]string{checkpoints.StatesIndexFile, checkpoints.ThoughtsIndexFile}

// snapshotImages is snapshot with the images of the state and thought
// indexes (nil for the text clusters of the NoClustering ablation), each
// taken at the same moment as its rows.
func (m *Method) snapshotImages() (checkpoints.SAMemState, [2]*cluster.Image, error) {
	var imgs [2]*cluster.Image
	var rows [2][]checkpoints.ClusterRow
	for i, c := range []clusters{m.states, m.thoughts} {
		vc, ok := c.(*vectorClusters)
		if !ok {
			rows[i] = c.Rows()
			continue
		}
		var err error
		if rows[i], imgs[i], err = vc.snapshot(); err != nil {
			return checkpoints.SAMemState{}, imgs, err
		}
	}
	return checkpoints.SAMemState{QTable: m.qrows(), States: rows[0], Thoughts: rows[1]}, imgs, nil
}

// Load implements agent.Saver. The memory is replaced only when the whole
// checkpoint reads and checks; on error the method is unchanged.
func (m *Method) Load(ctx context.Context, dir string) error {
	st, err := checkpoints.LoadSAMem(ctx, dir, m.deps.Embedder.Dim())
	if err != nil {
		return fmt.Errorf("load samem: %w", err)
	}
	var pr progress
	path := filepath.Join(dir, progressFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load samem: %w", err)
	}
	if err := json.Unmarshal(b, &pr); err != nil {
		return fmt.Errorf("load samem %s: %w: %w", path, ErrFormat, err)
	}
	entries := make([]qlearn.Entry, len(st.QTable))
	for i, r := range st.QTable {
		entries[i] = qlearn.Entry{State: r.StateID, Thought: r.ThoughtID, Q: r.Q, Visits: r.Visits, LastStep: r.LastUpdateStep}
		if r.LastUpdateStep > pr.Step {
			return fmt.Errorf("load samem %s: entry (%d, %d) updated at step %d after the saved clock %d", dir, r.StateID, r.ThoughtID, r.LastUpdateStep, pr.Step)
		}
	}
	// The Q-table and the two cluster indexes are built at the same time:
	// they share nothing, so with cores to spare the Load waits for the
	// longest of the three rather than their sum.
	//
	// The cluster indexes come back from their index files when these are
	// usable; otherwise they are rebuilt from the vectors, which
	// LoadSAMem has read and checked, with a note: an index file is derived
	// data, and a damaged one costs time, never the checkpoint.
	var (
		wg       sync.WaitGroup
		table    *qlearn.Table
		tableErr error
		restored [2]clusters
		notes    [2]string
		errs     [2]error
	)
	wg.Go(func() {
		table, tableErr = qlearn.FromEntries(qlearn.Params{Alpha: m.cfg.Alpha, Gamma: m.cfg.Gamma}, entries)
	})
	for i, kind := range []string{"states", "thoughts"} {
		wg.Go(func() {
			var image []byte
			var imageErr error
			if !m.cfg.NoClustering {
				image, imageErr = checkpoints.ReadDerived(ctx, filepath.Join(dir, indexFiles[i]))
			}
			rows, next, threshold := st.States, pr.NextState, m.cfg.Threshold
			if i == 1 {
				rows, next, threshold = st.Thoughts, pr.NextThought, m.cfg.ThoughtThreshold
			}
			c, note, err := restoreClusters(m.cfg.NoClustering, threshold, m.deps.Embedder.Dim(), rows, next, image, imageErr)
			if err != nil {
				errs[i] = fmt.Errorf("load samem %s: %s: %w", dir, kind, err)
				return
			}
			if note != "" {
				notes[i] = fmt.Sprintf("%s index %s: %s", kind, filepath.Join(dir, indexFiles[i]), note)
			}
			restored[i] = c
		})
	}
	wg.Wait()
	if tableErr != nil {
		return fmt.Errorf("load samem %s: %w", dir, tableErr)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	var noted []string
	for _, n := range notes {
		if n != "" {
			noted = append(noted, n)
		}
	}
	states, thoughts := restored[0], restored[1]
	if len(noted) > 0 {
		log := m.deps.Log
		if log == nil {
			log = os.Stderr
		}
		fmt.Fprintf(log, "samem: load %s: %s\n", dir, strings.Join(noted, "; "))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loadNotes = noted
	m.table, m.states, m.thoughts = table, states, thoughts
	m.step, m.stats = pr.Step, pr.Stats
	m.pruned = make(map[[2]int64]bool, len(pr.Pruned))
	for _, p := range pr.Pruned {
		m.pruned[p] = true
	}
	m.forgetter = forget.New(m.deps.Checker)
	m.forgetter.MinThoughts = m.cfg.MinThoughts
	m.forgetter.DropZero = m.cfg.ForgetDropZero
	return nil
}

// LoadNotes returns the notes of the last successful Load: one per cluster
// index that was rebuilt instead of read from its index file, saying why
// (no file in an older checkpoint, or what was wrong with it). Load also
// prints them, on one line, to Deps.Log.
func (m *Method) LoadNotes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.loadNotes...)
}
