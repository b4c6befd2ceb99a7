package kgplan

import (
	"slices"
	"strconv"

	"github.com/samem/trainer/agent"
)

// MemoryTables implements agent.Shower: each task's graph as saved (its
// triplets, its entities with their PDDL types) and the history of every
// change applied to it, with the step and the source of each.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.graphs))
	for id := range m.graphs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	trs := agent.Table{Name: "triplets", Columns: []string{"task", "subject", "relation", "object"}}
	ents := agent.Table{Name: "entities", Columns: []string{"task", "name", "type"}}
	hist := agent.Table{Name: "history", Columns: []string{"task", "seq", "step", "op", "triplet", "source"}}
	for _, id := range ids {
		g := m.graphs[id]
		for _, t := range g.Triplets() {
			trs.Rows = append(trs.Rows, []string{id, t.Subject, t.Relation, t.Object})
		}
		for _, e := range g.Entities() {
			ents.Rows = append(ents.Rows, []string{id, e.Name, e.Type})
		}
		for _, c := range g.history {
			hist.Rows = append(hist.Rows, []string{id, strconv.Itoa(c.Seq), strconv.Itoa(c.Step), c.Op, c.Triplet.String(), c.Source})
		}
	}
	return []agent.Table{trs, ents, hist}
}
