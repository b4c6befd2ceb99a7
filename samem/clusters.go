package samem

import (
	"errors"
	"fmt"
	"sort"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/cluster"
)

// clusters is what SAMem needs of an online clustering of texts.
type clusters interface {
	// Assign joins vec to the most similar cluster above the threshold or
	// creates a new one with text as its representative.
	Assign(vec []float32, text string) (id int64, err error)
	// Match is the cluster vec would join, without changing anything.
	Match(vec []float32, text string) (id int64, ok bool, err error)
	Text(id int64) string
	// Vector is the representative vector of a cluster, or nil.
	Vector(id int64) []float32
	Remove(ids ...int64)
	Len() int
	Rows() []checkpoints.ClusterRow
	// NextID is the id the next new cluster gets; ids are never reused, and a
	// checkpoint keeps it so that a resumed run numbers clusters as an
	// uninterrupted one would.
	NextID() int64
}

func newClusters(exactText bool, threshold float32, dim int) (clusters, error) {
	if exactText {
		return newTextClusters(), nil
	}
	ix, err := cluster.New(cluster.Config{Threshold: threshold, Dim: dim})
	if err != nil {
		return nil, fmt.Errorf("state clusters: %w", err)
	}
	return &vectorClusters{ix: ix}, nil
}

// restoreClusters returns the clusters of rows. With image bytes (an index
// file) the vector index comes back from them; when they are
// absent or unusable it is rebuilt, and note says why (empty when the image
// was used or there is no index to restore).
func restoreClusters(exactText bool, threshold float32, dim int, rows []checkpoints.ClusterRow, nextID int64, image []byte, imageErr error) (c clusters, note string, err error) {
	if exactText {
		c := newTextClusters()
		c.next = nextID
		for _, r := range rows {
			c.ids[r.Text] = r.ID
			c.rows[r.ID] = r
			c.next = max(c.next, r.ID+1)
		}
		return c, "", nil
	}
	cs := make([]cluster.Cluster, len(rows))
	for i, r := range rows {
		cs[i] = cluster.Cluster{ID: r.ID, Text: r.Text, Members: r.Members, Vector: r.Embedding}
	}
	cfg := cluster.Config{Threshold: threshold, Dim: dim, FirstID: nextID}
	if imageErr == nil {
		img, err := cluster.ReadImage(image)
		if err == nil {
			ix, err := cluster.RestoreImage(cfg, cs, img)
			if err == nil {
				return &vectorClusters{ix: ix}, "", nil
			}
			imageErr = err
		} else {
			imageErr = err
		}
	}
	// Rebuilt from the vectors. A bad cluster fails here as it would have
	// without an image.
	ix, err := cluster.Restore(cfg, cs)
	if err != nil {
		return nil, "", err
	}
	if errors.Is(imageErr, checkpoints.ErrMissing) {
		return &vectorClusters{ix: ix}, "no index file (a checkpoint written before index files); rebuilt", nil
	}
	return &vectorClusters{ix: ix}, fmt.Sprintf("index not used (%v); rebuilt from the vectors", imageErr), nil
}

// vectorClusters is the paper's clustering: cosine similarity over
// embeddings with a threshold (seed 002 Appendix A).
type vectorClusters struct{ ix *cluster.Index }

func (v *vectorClusters) Assign(vec []float32, text string) (int64, error) {
	id, _, _, err := v.ix.Assign(vec, text)
	return id, err
}

func (v *vectorClusters) Match(vec []float32, _ string) (int64, bool, error) {
	id, _, ok, err := v.ix.Nearest(vec)
	return id, ok, err
}

func (v *vectorClusters) NextID() int64 { return v.ix.NextID() }

func (v *vectorClusters) Text(id int64) string {
	c, ok := v.ix.Get(id)
	if !ok {
		return ""
	}
	return c.Text
}

func (v *vectorClusters) Vector(id int64) []float32 {
	c, ok := v.ix.Get(id)
	if !ok {
		return nil
	}
	return c.Vector
}

func (v *vectorClusters) Remove(ids ...int64) { v.ix.Remove(ids...) }
func (v *vectorClusters) Len() int            { return v.ix.Len() }

func (v *vectorClusters) Rows() []checkpoints.ClusterRow { return clusterRows(v.ix.Clusters()) }

// snapshot returns the rows and the index image of one moment.
func (v *vectorClusters) snapshot() ([]checkpoints.ClusterRow, *cluster.Image, error) {
	cs, img, err := v.ix.Snapshot()
	return clusterRows(cs), img, err
}

func clusterRows(cs []cluster.Cluster) []checkpoints.ClusterRow {
	rows := make([]checkpoints.ClusterRow, len(cs))
	for i, c := range cs {
		rows[i] = checkpoints.ClusterRow{ID: c.ID, Text: c.Text, Members: c.Members, Embedding: c.Vector}
	}
	return rows
}

// textClusters is the "no clustering" ablation: a text joins only the
// cluster of exactly the same text.
type textClusters struct {
	ids  map[string]int64
	rows map[int64]checkpoints.ClusterRow
	next int64
}

func newTextClusters() *textClusters {
	return &textClusters{ids: map[string]int64{}, rows: map[int64]checkpoints.ClusterRow{}}
}

func (t *textClusters) Assign(vec []float32, text string) (int64, error) {
	if id, ok := t.ids[text]; ok {
		r := t.rows[id]
		r.Members++
		t.rows[id] = r
		return id, nil
	}
	id := t.next
	t.next++
	t.ids[text] = id
	t.rows[id] = checkpoints.ClusterRow{ID: id, Text: text, Members: 1, Embedding: append([]float32(nil), vec...)}
	return id, nil
}

func (t *textClusters) Match(_ []float32, text string) (int64, bool, error) {
	id, ok := t.ids[text]
	return id, ok, nil
}

func (t *textClusters) Text(id int64) string { return t.rows[id].Text }
func (t *textClusters) NextID() int64        { return t.next }
func (t *textClusters) Vector(id int64) []float32 {
	return t.rows[id].Embedding
}

func (t *textClusters) Remove(ids ...int64) {
	for _, id := range ids {
		if r, ok := t.rows[id]; ok {
			delete(t.ids, r.Text)
			delete(t.rows, id)
		}
	}
}

func (t *textClusters) Len() int { return len(t.rows) }

func (t *textClusters) Rows() []checkpoints.ClusterRow {
	out := make([]checkpoints.ClusterRow, 0, len(t.rows))
	for _, r := range t.rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
