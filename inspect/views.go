package inspect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/offline"
)

// Sizes counts a memory.
type Sizes struct {
	States, Thoughts int
	// Entries are Q-table (state, thought) pairs; NonZero those with q != 0.
	Entries, NonZero int
	// Visits sums the updates of every entry.
	Visits int64
}

// Sizes counts the checkpoint's memory.
func (c *Checkpoint) Sizes() Sizes {
	s := Sizes{States: len(c.Memory.States), Thoughts: len(c.Memory.Thoughts), Entries: len(c.Memory.QTable)}
	for _, r := range c.Memory.QTable {
		if r.Q != 0 {
			s.NonZero++
		}
		s.Visits += r.Visits
	}
	return s
}

// State is one state cluster with its best thought.
type State struct {
	ID      int64
	Text    string
	Members int64 // texts that joined the cluster
	// Thoughts is the number of Q-table entries of the state, Visits the
	// sum of their updates.
	Thoughts int
	Visits   int64
	// Best is the thought with the highest Q (ties: the lower id); its ID
	// is -1 when the state has no entry.
	Best Thought
}

// Thought is one (state, thought) entry seen from its state.
type Thought struct {
	ID     int64
	Text   string
	Q      float64
	Visits int64
}

// Sort orders for States.
const (
	ByValue  = "value"  // best Q, highest first
	ByVisits = "visits" // total updates, most first
	ByID     = "id"
)

// ErrSort is returned by States for an unknown sort order.
var ErrSort = errors.New("unknown sort order (want value, visits or id)")

// States lists the states with their best thoughts, sorted by ByValue,
// ByVisits or ByID (ties by id); limit > 0 keeps the first limit.
func (c *Checkpoint) States(sortBy string, limit int) ([]State, error) {
	thoughts := clusterText(c.Memory.Thoughts)
	byState := map[int64][]checkpoints.QRow{}
	for _, r := range c.Memory.QTable {
		byState[r.StateID] = append(byState[r.StateID], r)
	}
	out := make([]State, len(c.Memory.States))
	for i, s := range c.Memory.States {
		st := State{ID: s.ID, Text: s.Text, Members: s.Members, Best: Thought{ID: -1, Q: math.NaN()}}
		for _, r := range byState[s.ID] {
			st.Thoughts++
			st.Visits += r.Visits
			if st.Best.ID < 0 || r.Q > st.Best.Q || (r.Q == st.Best.Q && r.ThoughtID < st.Best.ID) {
				st.Best = Thought{ID: r.ThoughtID, Text: thoughts[r.ThoughtID], Q: r.Q, Visits: r.Visits}
			}
		}
		out[i] = st
	}
	var order func(a, b State) int
	switch sortBy {
	case ByValue, "":
		order = func(a, b State) int {
			// States without entries last.
			av, bv := a.Best.Q, b.Best.Q
			if math.IsNaN(av) {
				av = math.Inf(-1)
			}
			if math.IsNaN(bv) {
				bv = math.Inf(-1)
			}
			return cmp.Or(cmp.Compare(bv, av), cmp.Compare(a.ID, b.ID))
		}
	case ByVisits:
		order = func(a, b State) int { return cmp.Or(cmp.Compare(b.Visits, a.Visits), cmp.Compare(a.ID, b.ID)) }
	case ByID:
		order = func(a, b State) int { return cmp.Compare(a.ID, b.ID) }
	default:
		return nil, fmt.Errorf("sort %q: %w", sortBy, ErrSort)
	}
	slices.SortStableFunc(out, order)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// ThoughtsOf lists a state's thoughts by Q, highest first (ties by id);
// limit > 0 keeps the first limit.
func (c *Checkpoint) ThoughtsOf(state int64, limit int) []Thought {
	text := clusterText(c.Memory.Thoughts)
	var out []Thought
	for _, r := range c.Memory.QTable {
		if r.StateID == state {
			out = append(out, Thought{ID: r.ThoughtID, Text: text[r.ThoughtID], Q: r.Q, Visits: r.Visits})
		}
	}
	slices.SortStableFunc(out, func(a, b Thought) int { return cmp.Or(cmp.Compare(b.Q, a.Q), cmp.Compare(a.ID, b.ID)) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

func clusterText(rows []checkpoints.ClusterRow) map[int64]string {
	m := make(map[int64]string, len(rows))
	for _, r := range rows {
		m[r.ID] = r.Text
	}
	return m
}

// ErrNeedModel is returned by EmbedderFor when the checkpoint's states were
// embedded by a model: a query must be embedded by the same model.
var ErrNeedModel = errors.New("the checkpoint was embedded by a model; a query needs that model")

// EmbedderFor returns the embedder a query must use for this checkpoint
// when it runs locally (the offline hashing embedder), or ErrNeedModel
// naming the model to configure.
func (c *Checkpoint) EmbedderFor() (llm.Embedder, error) {
	if c.Meta.EmbedderModel == offline.Model {
		return offline.New(int(c.Meta.EmbedDim)), nil
	}
	return nil, fmt.Errorf("%w: %q (dimension %d)", ErrNeedModel, c.Meta.EmbedderModel, c.Meta.EmbedDim)
}

// Match is a state near a query, with its thoughts.
type Match struct {
	State      State
	Similarity float64 // cosine similarity of the query and the state's representative
	Thoughts   []Thought
}

// Nearest embeds query with emb (which must be the checkpoint's embedder:
// same model and dimension) and returns the k states most similar to it by
// cosine similarity (ties by id), each with up to thoughts of its thoughts.
func (c *Checkpoint) Nearest(ctx context.Context, emb llm.Embedder, query string, k, thoughts int) ([]Match, error) {
	if err := checkpoints.CheckCompatible(c.Meta, emb.Model(), emb.Dim()); err != nil {
		return nil, fmt.Errorf("query embedder: %w", err)
	}
	vs, err := emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(vs) != 1 || len(vs[0]) != emb.Dim() {
		return nil, fmt.Errorf("embed query: got %d vectors, want 1 of dimension %d", len(vs), emb.Dim())
	}
	states, err := c.States(ByID, 0)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]State, len(states))
	for _, s := range states {
		byID[s.ID] = s
	}
	out := make([]Match, 0, len(c.Memory.States))
	for _, s := range c.Memory.States {
		out = append(out, Match{State: byID[s.ID], Similarity: cosine(vs[0], s.Embedding)})
	}
	slices.SortStableFunc(out, func(a, b Match) int {
		return cmp.Or(cmp.Compare(b.Similarity, a.Similarity), cmp.Compare(a.State.ID, b.State.ID))
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	for i := range out {
		out[i].Thoughts = c.ThoughtsOf(out[i].State.ID, thoughts)
	}
	return out, nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Step is one checkpoint's view of a state.
type Step struct {
	Checkpoint string // e.g. "iter-0002"
	Iteration  int64
	Present    bool
	// SameText is true when the state's id is absent from this checkpoint
	// but a state with the same representative text is there (State is that
	// one): forgetting can drop a state that training creates again under
	// a new id.
	SameText bool
	State    State // zero when neither Present nor SameText
}

// StateHistory follows a state across checkpoints (oldest first): whether
// it exists (by id, or else by its text), its members, entries, visits and
// best thought. ErrNoState when no checkpoint has the id.
func StateHistory(cps []*Checkpoint, state int64) ([]Step, error) {
	out := make([]Step, len(cps))
	text := ""
	for i, c := range cps {
		out[i] = Step{Checkpoint: c.Name, Iteration: c.Meta.Iteration}
		states, err := c.States(ByID, 0)
		if err != nil {
			return nil, err
		}
		for _, s := range states {
			if s.ID == state {
				out[i].Present, out[i].State = true, s
				text = s.Text
			}
		}
	}
	if text == "" {
		return nil, fmt.Errorf("state %d in %d checkpoints: %w", state, len(cps), ErrNoState)
	}
	for i, c := range cps {
		if out[i].Present {
			continue
		}
		states, _ := c.States(ByID, 0)
		for _, s := range states {
			if s.Text == text {
				out[i].SameText, out[i].State = true, s
				break
			}
		}
	}
	return out, nil
}
