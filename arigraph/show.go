package arigraph

import (
	"sort"
	"strconv"
	"strings"

	"github.com/samem/trainer/agent"
)

// MemoryTables implements agent.Shower: each task's graph (its semantic
// triplets and its episodic vertices, with the triplets each holds) and the
// persistent store of placements carried across tasks.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.maps))
	for id := range m.maps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	trip := agent.Table{Name: "triplets", Columns: []string{"task", "subject", "relation", "object"}}
	eps := agent.Table{Name: "episodic", Columns: []string{"task", "step", "observation", "triplets"}}
	for _, id := range ids {
		g := m.maps[id]
		for _, t := range g.Triplets() {
			trip.Rows = append(trip.Rows, []string{id, t.Subject, t.Relation, t.Object})
		}
		for _, e := range g.Episodes() {
			ts := make([]string, len(e.Triplets))
			for i, t := range e.Triplets {
				ts[i] = t.String()
			}
			eps.Rows = append(eps.Rows, []string{id, strconv.Itoa(e.Step), e.Text, strings.Join(ts, "; ")})
		}
	}
	pri := agent.Table{Name: "priors", Columns: []string{"object type", "receptacle type", "count"}}
	for o, rs := range m.priors {
		for r, n := range rs {
			pri.Rows = append(pri.Rows, []string{o, r, strconv.Itoa(n)})
		}
	}
	sort.Slice(pri.Rows, func(i, j int) bool {
		a, b := pri.Rows[i], pri.Rows[j]
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		return a[1] < b[1]
	})
	return []agent.Table{trip, eps, pri}
}
