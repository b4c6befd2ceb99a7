package kgplan

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/samem/trainer/checkpoints"
)

// Files Save writes, with snake_case columns (readable by DuckDB or pandas).
const (
	tripletsFile = "kgplan_triplets.parquet"
	entitiesFile = "kgplan_entities.parquet"
	historyFile  = "kgplan_history.parquet"
)

// TripletRow is one triplet of one task's graph.
type TripletRow struct {
	TaskID   string `parquet:"task_id,dict"`
	Subject  string `parquet:"subject,dict"`
	Relation string `parquet:"relation,dict"`
	Object   string `parquet:"object,dict"`
}

// EntityRow is one entity of one task's graph with its PDDL type.
type EntityRow struct {
	TaskID string `parquet:"task_id,dict"`
	Name   string `parquet:"name,dict"`
	Type   string `parquet:"type,dict"`
}

// HistoryRow is one applied change of one task's graph.
type HistoryRow struct {
	TaskID   string `parquet:"task_id,dict"`
	Seq      int64  `parquet:"seq"`
	Step     int64  `parquet:"step"`
	Op       string `parquet:"op,dict"`
	Subject  string `parquet:"subject,dict"`
	Relation string `parquet:"relation,dict"`
	Object   string `parquet:"object,dict"`
	Source   string `parquet:"source,dict"`
}

// Save implements agent.Saver: every task's graph and its history.
func (m *Method) Save(ctx context.Context, dir string) error {
	m.mu.Lock()
	var trs []TripletRow
	var ents []EntityRow
	var hist []HistoryRow
	ids := make([]string, 0, len(m.graphs))
	for id := range m.graphs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		g := m.graphs[id]
		for _, t := range g.Triplets() {
			trs = append(trs, TripletRow{id, t.Subject, t.Relation, t.Object})
		}
		for _, e := range g.Entities() {
			ents = append(ents, EntityRow{id, e.Name, e.Type})
		}
		for _, c := range g.history {
			hist = append(hist, HistoryRow{id, int64(c.Seq), int64(c.Step), c.Op, c.Triplet.Subject, c.Triplet.Relation, c.Triplet.Object, c.Source})
		}
	}
	m.mu.Unlock()
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, tripletsFile), trs, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("kgplan save: %w", err)
	}
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, entitiesFile), ents, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("kgplan save: %w", err)
	}
	if err := checkpoints.WriteFile(ctx, filepath.Join(dir, historyFile), hist, checkpoints.WriteOptions{}); err != nil {
		return fmt.Errorf("kgplan save: %w", err)
	}
	return nil
}

// Load implements agent.Saver. Every entity type and triplet is checked
// against the domain; on any error the method is unchanged.
func (m *Method) Load(ctx context.Context, dir string) error {
	trs, err := checkpoints.ReadFile[TripletRow](ctx, filepath.Join(dir, tripletsFile))
	if err != nil {
		return fmt.Errorf("kgplan load: %w", err)
	}
	ents, err := checkpoints.ReadFile[EntityRow](ctx, filepath.Join(dir, entitiesFile))
	if err != nil {
		return fmt.Errorf("kgplan load: %w", err)
	}
	hist, err := checkpoints.ReadFile[HistoryRow](ctx, filepath.Join(dir, historyFile))
	if err != nil {
		return fmt.Errorf("kgplan load: %w", err)
	}
	graphs := map[string]*Graph{}
	get := func(id string) *Graph {
		if graphs[id] == nil {
			graphs[id] = NewGraph(m.dom)
		}
		return graphs[id]
	}
	for _, e := range ents {
		if !m.dom.HasType(e.Type) {
			return fmt.Errorf("kgplan load %s: %w: entity %q has type %q", entitiesFile, checkpoints.ErrCorrupt, e.Name, e.Type)
		}
		get(e.TaskID).types[e.Name] = e.Type
	}
	for _, r := range trs {
		g := get(r.TaskID)
		t := Triplet{r.Subject, r.Relation, r.Object}
		if err := g.Verify(Update{Add: []Triplet{t}}); err != nil {
			return fmt.Errorf("kgplan load %s: %w: %w", tripletsFile, checkpoints.ErrCorrupt, err)
		}
		g.edges[t] = true
	}
	for _, h := range hist {
		g := get(h.TaskID)
		if int(h.Seq) != len(g.history) || (h.Op != "add" && h.Op != "remove") {
			return fmt.Errorf("kgplan load %s: %w: task %s change %d out of order or bad op %q", historyFile, checkpoints.ErrCorrupt, h.TaskID, h.Seq, h.Op)
		}
		g.history = append(g.history, Change{Seq: int(h.Seq), Step: int(h.Step), Op: h.Op,
			Triplet: Triplet{h.Subject, h.Relation, h.Object}, Source: h.Source})
	}
	m.mu.Lock()
	m.graphs = graphs
	m.mu.Unlock()
	return nil
}
