package inspect

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/llm/offline"
)

const dim = 32

// commit writes one checkpoint of mem into the method directory dir.
func commit(t *testing.T, dir string, iteration int, mem checkpoints.SAMemState, model string) string {
	t.Helper()
	s, err := checkpoints.Open(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Begin(iteration)
	if err != nil {
		t.Fatal(err)
	}
	md, err := p.MethodDir("samem")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoints.SaveSAMem(context.Background(), md, mem); err != nil {
		t.Fatal(err)
	}
	out, err := p.Commit(context.Background(), checkpoints.Meta{Method: "samem", EmbedderModel: model, EmbedDim: dim})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// memory: three states embedded from their texts, four thoughts.
func memory(t *testing.T, q map[[2]int64][2]float64) checkpoints.SAMemState {
	t.Helper()
	emb := offline.New(dim)
	row := func(id int64, text string, members int64) checkpoints.ClusterRow {
		v, err := emb.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		return checkpoints.ClusterRow{ID: id, Text: text, Members: members, Embedding: v[0]}
	}
	mem := checkpoints.SAMemState{
		States: []checkpoints.ClusterRow{
			row(0, "nothing is held and the target object has not been seen", 10),
			row(1, "holding the apple next to the fridge", 4),
			row(2, "standing at the sink with a dirty plate", 2),
		},
		Thoughts: []checkpoints.ClusterRow{
			row(10, "search the next unopened receptacle", 5), row(11, "cool the apple in the fridge", 3),
			row(12, "clean the plate in the sink", 2), row(13, "look around", 9),
		},
	}
	for k, v := range q {
		mem.QTable = append(mem.QTable, checkpoints.QRow{StateID: k[0], ThoughtID: k[1], Q: v[0], Visits: int64(v[1])})
	}
	slices.SortFunc(mem.QTable, func(a, b checkpoints.QRow) int {
		if a.StateID != b.StateID {
			return int(a.StateID - b.StateID)
		}
		return int(a.ThoughtID - b.ThoughtID)
	})
	return mem
}

var q1 = map[[2]int64][2]float64{
	{0, 10}: {0.5, 30}, {0, 13}: {0.2, 50},
	{1, 11}: {0.9, 5}, {1, 13}: {0.9, 1},
	// state 2 has no entry
}

func TestStatesSorted(t *testing.T) {
	dir := t.TempDir()
	commit(t, dir, 0, memory(t, q1), offline.Model)
	c, err := Open(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ss []State) []int64 {
		var out []int64
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	for _, tc := range []struct {
		sort  string
		limit int
		want  []int64
	}{
		{ByValue, 0, []int64{1, 0, 2}}, // 0.9 > 0.5; no entries last
		{ByVisits, 0, []int64{0, 1, 2}},
		{ByID, 2, []int64{0, 1}},
	} {
		ss, err := c.States(tc.sort, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(ss); !slices.Equal(got, tc.want) {
			t.Errorf("States(%s, %d) = %v, want %v", tc.sort, tc.limit, got, tc.want)
		}
	}
	ss, _ := c.States(ByID, 0)
	// A tie in Q goes to the lower thought id.
	if b := ss[1].Best; b.ID != 11 || b.Q != 0.9 || b.Text != "cool the apple in the fridge" {
		t.Errorf("best thought of state 1 = %+v, want 11 at 0.9", b)
	}
	if ss[0].Visits != 80 || ss[0].Thoughts != 2 || ss[2].Best.ID != -1 {
		t.Errorf("state 0: visits %d thoughts %d; state 2 best %d", ss[0].Visits, ss[0].Thoughts, ss[2].Best.ID)
	}
	if _, err := c.States("q", 0); !errors.Is(err, ErrSort) {
		t.Errorf("States(q) = %v, want ErrSort", err)
	}
	if s := c.Sizes(); s != (Sizes{States: 3, Thoughts: 4, Entries: 4, NonZero: 4, Visits: 86}) {
		t.Errorf("Sizes = %+v", s)
	}
}

func TestNearest(t *testing.T) {
	dir := t.TempDir()
	commit(t, dir, 0, memory(t, q1), offline.Model)
	c, err := Open(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	emb, err := c.EmbedderFor()
	if err != nil {
		t.Fatal(err)
	}
	ms, err := c.Nearest(context.Background(), emb, "holding the apple next to the fridge", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].State.ID != 1 || ms[0].Similarity < 0.999 || ms[1].Similarity > ms[0].Similarity {
		t.Fatalf("Nearest = %+v, want state 1 first with similarity 1", ms)
	}
	if len(ms[0].Thoughts) != 1 || ms[0].Thoughts[0].ID != 11 {
		t.Errorf("thoughts of the match = %+v, want thought 11 only", ms[0].Thoughts)
	}
	// Another embedder's vectors are meaningless here.
	if _, err := c.Nearest(context.Background(), offline.New(dim*2), "x", 1, 1); !errors.Is(err, checkpoints.ErrIncompatible) {
		t.Errorf("Nearest with another dimension = %v, want ErrIncompatible", err)
	}
}

func TestModelEmbedderNeeded(t *testing.T) {
	dir := t.TempDir()
	commit(t, dir, 0, memory(t, q1), "text-embedding-3-small")
	err := Write(context.Background(), &bytes.Buffer{}, Request{Path: dir, Query: "apple", State: -1})
	if !errors.Is(err, ErrNeedModel) || !strings.Contains(err.Error(), "text-embedding-3-small") {
		t.Errorf("query without a model = %v, want ErrNeedModel naming the model", err)
	}
	// Without a query the checkpoint opens fine.
	if err := Write(context.Background(), &bytes.Buffer{}, Request{Path: dir, State: -1}); err != nil {
		t.Errorf("Write without a query: %v", err)
	}
}

func TestStateHistory(t *testing.T) {
	dir := t.TempDir()
	commit(t, dir, 0, memory(t, map[[2]int64][2]float64{{0, 10}: {0.1, 1}}), offline.Model)
	commit(t, dir, 1, memory(t, q1), offline.Model)
	m := memory(t, q1)
	m.States = m.States[:2] // state 2 forgotten
	last := commit(t, dir, 2, m, offline.Model)
	cps, err := History(context.Background(), last, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 3 {
		t.Fatalf("History: %d checkpoints, want 3", len(cps))
	}
	steps, err := StateHistory(cps, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := []bool{steps[0].Present, steps[1].Present, steps[2].Present}; !slices.Equal(got, []bool{true, true, false}) {
		t.Errorf("state 2 present = %v, want [true true false]", got)
	}
	steps, _ = StateHistory(cps, 0)
	if steps[0].State.Best.Q != 0.1 || steps[1].State.Best.Q != 0.5 {
		t.Errorf("best Q of state 0 over time: %v, %v; want 0.1, 0.5", steps[0].State.Best.Q, steps[1].State.Best.Q)
	}
	// Forgotten and created again under a new id: followed by its text.
	m = memory(t, q1)
	m.States[2].ID = 7
	cps = append(cps, &Checkpoint{Name: "iter-0003", Meta: checkpoints.Meta{Iteration: 3}, Memory: m})
	steps, _ = StateHistory(cps, 2)
	if s := steps[3]; s.Present || !s.SameText || s.State.ID != 7 {
		t.Errorf("state 2 at iter-0003 = %+v, want found by text as state 7", s)
	}
	if _, err := StateHistory(cps, 99); !errors.Is(err, ErrNoState) {
		t.Errorf("StateHistory(99) = %v, want ErrNoState", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ck := commit(t, dir, 0, memory(t, q1), offline.Model)
	states := filepath.Join(ck, "samem", checkpoints.StatesFile)

	if _, err := Open(ctx, filepath.Join(dir, "nope"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want ErrNotExist", err)
	}
	if _, err := Open(ctx, t.TempDir(), ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open(empty dir) = %v, want ErrNotFound", err)
	}
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, "samem", checkpoints.Folder), 0o755)
	if _, err := Open(ctx, empty, ""); !errors.Is(err, checkpoints.ErrNoCheckpoint) {
		t.Errorf("Open(run without checkpoint) = %v, want ErrNoCheckpoint", err)
	}
	// A damaged file is named in the error.
	b, _ := os.ReadFile(states)
	os.WriteFile(states, b[:len(b)/2], 0o644)
	_, err := Open(ctx, dir, "")
	if err == nil || !strings.Contains(err.Error(), checkpoints.StatesFile) {
		t.Errorf("Open(damaged) = %v, want an error naming %s", err, checkpoints.StatesFile)
	}
	os.Remove(states)
	if _, err := Open(ctx, ck, ""); !errors.Is(err, checkpoints.ErrMissing) {
		t.Errorf("Open(missing file) = %v, want ErrMissing", err)
	}
}

func TestTableFormats(t *testing.T) {
	tb := Table{Title: "t", Header: []string{"a", "b"}, Rows: [][]string{{"x|y", "line\nbreak, \"quoted\""}}}
	for _, tc := range []struct{ format, want string }{
		{Text, "t\na    b\nx|y  line break, \"quoted\"\n\n"},
		{CSV, "a,b\nx|y,\"line\nbreak, \"\"quoted\"\"\"\n"},
		{Markdown, "## t\n\n| a | b |\n|---|---|\n| x\\|y | line break, \"quoted\" |\n\n"},
	} {
		var b bytes.Buffer
		if err := tb.Write(&b, tc.format); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("Write(%s) = %q, want %q", tc.format, b.String(), tc.want)
		}
	}
	if err := tb.Write(&bytes.Buffer{}, "xml"); !errors.Is(err, ErrFormat) {
		t.Errorf("Write(xml) = %v, want ErrFormat", err)
	}
	if got := cut(strings.Repeat("é", 80), 10); got != strings.Repeat("é", 9)+"…" {
		t.Errorf("cut = %q", got)
	}
}

func TestDiffTables(t *testing.T) {
	a := []agent.Table{{Name: "q", Columns: []string{"s", "v"}, Rows: [][]string{{"1", "x"}, {"2", "y"}, {"2", "y"}, {"3", "z"}}}, {Name: "new", Columns: []string{"c"}, Rows: [][]string{{"k"}}}}
	b := []agent.Table{{Name: "q", Columns: []string{"s", "v"}, Rows: [][]string{{"1", "x"}, {"2", "y"}, {"3", "w"}, {"4", "u"}}}}
	got := diffTables(a, b)
	want := []agent.Table{
		{Name: "q", Columns: []string{"change", "s", "v"}, Rows: [][]string{{"+", "2", "y"}, {"+", "3", "z"}, {"-", "3", "w"}, {"-", "4", "u"}}},
		{Name: "new", Columns: []string{"change", "c"}, Rows: [][]string{{"+", "k"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diffTables:\n got %v\nwant %v", got, want)
	}
}
