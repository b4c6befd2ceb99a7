package samem

import (
	"fmt"
	"math"
	"strconv"

	"github.com/samem/trainer/agent"
)

// recall is what the decision in state s read from memory: the summarised
// state, the state cluster it matched with the cosine similarity of the two,
// and the state's thoughts in the order of the Q-table's argmax, with their
// values and visits; the one that guided is Used (guideID, -1 for none).
func (m *Method) recall(s int64, text string, vec []float32, matched, explored bool, guideID int64, retried bool) *agent.Recall {
	r := &agent.Recall{State: text, Explored: explored}
	if !matched {
		return r
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r.Match = strconv.FormatInt(s, 10)
	r.Similarity = cosine(vec, m.states.Vector(s))
	for _, e := range m.table.Row(s) {
		r.Items = append(r.Items, agent.RecallItem{
			ID: strconv.FormatInt(e.Thought, 10), Kind: "thought", Text: m.thoughts.Text(e.Thought),
			Scores: map[string]float64{"q": e.Q, "visits": float64(e.Visits)},
			Used:   e.Thought == guideID,
		})
	}
	if retried {
		r.Notes = append(r.Notes, "exploring: retried a tried thought still at Q = 0")
	}
	return r
}

// cosine is the cosine similarity of a and b, 0 when either is empty or of
// another length (the NoClustering ablation keeps no vectors).
func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// MemoryTables implements agent.Shower: the state clusters (with their
// Q-table rows counted and their best thought), the thought clusters, the
// Q-table itself, and the pairs forgetting pruned.
func (m *Method) MemoryTables() []agent.Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	i := func(x int64) string { return strconv.FormatInt(x, 10) }
	states := agent.Table{Name: "states", Columns: []string{"id", "text", "members", "thoughts", "visits", "best thought", "best q"}}
	for _, c := range m.states.Rows() {
		row := m.table.Row(c.ID)
		var visits int64
		for _, e := range row {
			visits += e.Visits
		}
		best, bq := "", ""
		if len(row) > 0 {
			best, bq = i(row[0].Thought), f(row[0].Q)
		}
		states.Rows = append(states.Rows, []string{i(c.ID), c.Text, i(c.Members), strconv.Itoa(len(row)), i(visits), best, bq})
	}
	thoughts := agent.Table{Name: "thoughts", Columns: []string{"id", "text", "members"}}
	for _, c := range m.thoughts.Rows() {
		thoughts.Rows = append(thoughts.Rows, []string{i(c.ID), c.Text, i(c.Members)})
	}
	q := agent.Table{Name: "qtable", Columns: []string{"state", "thought", "q", "visits", "last step"}}
	for _, e := range m.table.Entries() {
		q.Rows = append(q.Rows, []string{i(e.State), i(e.Thought), f(e.Q), i(e.Visits), i(e.LastStep)})
	}
	pruned := agent.Table{Name: "pruned", Columns: []string{"state", "thought", "thought text"}}
	for _, p := range m.prunedList() {
		text := m.thoughts.Text(p[1])
		if text == "" {
			text = fmt.Sprintf("(thought %d removed)", p[1])
		}
		pruned.Rows = append(pruned.Rows, []string{i(p[0]), i(p[1]), text})
	}
	return []agent.Table{states, thoughts, q, pruned}
}
