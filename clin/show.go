package clin

import (
	"sort"
	"strconv"

	"github.com/samem/trainer/agent"
)

// MemoryTables implements agent.Shower: each task's memories (the
// meta-memory as trial -1, then the memory after each trial, with that
// trial's reward) and every item of every memory, as Save writes them.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.tasks))
	for id := range m.tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	mems := agent.Table{Name: "memories", Columns: []string{"task", "type", "goal", "trial", "reward", "items"}}
	items := agent.Table{Name: "items", Columns: []string{"task", "trial", "position", "item", "source trial", "source reward"}}
	add := func(t string, tm *taskMemory, trial int, reward float64, mem []Abstraction) {
		mems.Rows = append(mems.Rows, []string{t, tm.Task.Type, tm.Task.Goal, strconv.Itoa(trial), f(reward), strconv.Itoa(len(mem))})
		for i, a := range mem {
			items.Rows = append(items.Rows, []string{t, strconv.Itoa(trial), strconv.Itoa(i + 1), a.String(), strconv.Itoa(a.Trial), f(a.Reward)})
		}
	}
	for _, id := range ids {
		tm := m.tasks[id]
		if tm.HasMeta {
			add(id, tm, -1, 0, tm.Meta)
		}
		for _, mem := range tm.Trials {
			add(id, tm, mem.Trial, mem.Reward, mem.Items)
		}
	}
	return []agent.Table{mems, items}
}
