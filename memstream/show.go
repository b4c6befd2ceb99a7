package memstream

import (
	"math"
	"strconv"
	"strings"

	"github.com/samem/trainer/agent"
)

// MemoryTables implements agent.Shower: every memory of the stream in
// creation order, with its importance (1-10) and its recency now (the
// decay to the power of the training steps since its last retrieval, seed
// 001 Sec. 4.1, before normalisation), and a reflection's evidence.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	t := agent.Table{Name: "memories", Columns: []string{"id", "kind", "task", "created", "last access", "importance", "recency", "evidence", "text"}}
	for _, mem := range m.s.Memories() {
		ev := make([]string, len(mem.Evidence))
		for i, e := range mem.Evidence {
			ev[i] = strconv.Itoa(e)
		}
		rec := math.Pow(m.cfg.Decay, float64(max(0, m.clock-mem.LastAccess)))
		t.Rows = append(t.Rows, []string{strconv.Itoa(mem.ID), mem.Kind, mem.Task, strconv.Itoa(mem.Created), strconv.Itoa(mem.LastAccess), f(mem.Importance), f(rec), strings.Join(ev, " "), mem.Text})
	}
	return []agent.Table{t}
}
