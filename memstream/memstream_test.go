package memstream

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
)

var measure = flag.Bool("measure", false, "run the offline household measurement")

// axisEmbedder maps texts to fixed vectors so relevance is exact.
type axisEmbedder map[string][]float32

func (a axisEmbedder) Model() string { return "axis" }
func (a axisEmbedder) Dim() int      { return 2 }
func (a axisEmbedder) Embed(_ context.Context, ts []string) ([][]float32, error) {
	out := make([][]float32, len(ts))
	for i, t := range ts {
		out[i] = a[t]
	}
	return out, nil
}

var _ llm.Embedder = axisEmbedder{}

func TestScore(t *testing.T) {
	emb := axisEmbedder{"q": {1, 0}, "old relevant": {1, 0}, "new irrelevant": {0, 1}, "mid": {0.6, 0.8}}
	s := NewStream()
	s.Add(KindObservation, "old relevant", "t", 0, 2, nil)    // recency 0.995^10
	s.Add(KindObservation, "mid", "t", 5, 10, nil)            // recency 0.995^5
	s.Add(KindObservation, "new irrelevant", "t", 10, 6, nil) // recency 1
	got, err := s.Score(context.Background(), emb, "q", 10, DefaultDecay, PaperWeights, nil)
	if err != nil {
		t.Fatal(err)
	}
	// recency raw: 0.995^10, 0.995^5, 1 -> min-max: 0, (0.995^5-0.995^10)/(1-0.995^10), 1
	r := [3]float64{math.Pow(0.995, 10), math.Pow(0.995, 5), 1}
	rmid := (r[1] - r[0]) / (r[2] - r[0])
	want := map[string][3]float64{ // recency, importance, relevance (normalised)
		"old relevant":   {0, 0, 1},
		"mid":            {rmid, 1, 0.6},
		"new irrelevant": {1, 0.5, 0},
	}
	for _, g := range got {
		w := want[g.Text]
		if math.Abs(g.Recency-w[0]) > 1e-6 || math.Abs(g.Importance-w[1]) > 1e-6 || math.Abs(g.Relevance-w[2]) > 1e-6 {
			t.Errorf("%q components = %v %v %v, want %v", g.Text, g.Recency, g.Importance, g.Relevance, w)
		}
		if math.Abs(g.Score-(w[0]+w[1]+w[2])) > 1e-6 {
			t.Errorf("%q score = %v", g.Text, g.Score)
		}
	}
	if got[0].Text != "mid" || got[1].Text != "new irrelevant" || got[2].Text != "old relevant" {
		t.Errorf("order = %v %v %v", got[0].Text, got[1].Text, got[2].Text)
	}
	// weights change the order: relevance alone puts the old memory first.
	got, _ = s.Score(context.Background(), emb, "q", 10, DefaultDecay, Weights{Relevance: 1}, nil)
	if got[0].Text != "old relevant" {
		t.Errorf("relevance-only top = %q", got[0].Text)
	}
	// Retrieve marks access.
	top, _ := s.Retrieve(context.Background(), emb, "q", 20, 1, DefaultDecay, PaperWeights, nil)
	if m := s.Memories()[top[0].ID]; m.LastAccess != 20 {
		t.Errorf("LastAccess = %d, want 20", m.LastAccess)
	}
}

func TestReflectionThreshold(t *testing.T) {
	s := NewStream()
	for i := range 15 {
		s.Add(KindObservation, fmt.Sprint(i), "t", i, 10, nil)
		if got, want := s.ShouldReflect(DefaultThreshold), 10*(i+1) > 150; got != want {
			t.Fatalf("after %d memories ShouldReflect = %v", i+1, got)
		}
	}
	s.Add(KindObservation, "x", "t", 20, 10, nil)
	if !s.ShouldReflect(DefaultThreshold) {
		t.Error("160 > 150 should reflect")
	}
	s.Reflected()
	if s.ShouldReflect(DefaultThreshold) {
		t.Error("still reflecting after reset")
	}
}

func TestParsers(t *testing.T) {
	for in, want := range map[string]float64{"Rating: 7": 7, "12": 10, "0": 1, "8/10": 8} {
		if got, ok := ParseRating(in); !ok || got != want {
			t.Errorf("ParseRating(%q) = %v", in, got)
		}
	}
	if _, ok := ParseRating("high"); ok {
		t.Error("ParseRating(high) ok")
	}
	qs := ParseQuestions("1. Where is the key?\n\n2) What opens the locker?\n- Why?\n4. extra", 3)
	if !slices.Equal(qs, []string{"Where is the key?", "What opens the locker?", "Why?"}) {
		t.Errorf("ParseQuestions = %q", qs)
	}
	ins := ParseInsights("1. The key opens the blue locker (because of 1, 3, 9)\n2. Fridge holds food.", 5)
	want := []Insight{{"The key opens the blue locker", []int{1, 3}}, {"Fridge holds food", nil}}
	if !reflect.DeepEqual(ins, want) {
		t.Errorf("ParseInsights = %+v", ins)
	}
}

func FuzzParsers(f *testing.F) {
	for _, s := range []string{"Rating: 7", "1. a (because of 1, 2)\n2. b", "", "(because of )", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, ok := ParseRating(s); ok && (v < 1 || v > 10) {
			t.Errorf("rating %v", v)
		}
		for _, in := range ParseInsights(s, 4) {
			for _, e := range in.Evidence {
				if e < 1 || e > 4 {
					t.Errorf("evidence %d", e)
				}
			}
		}
		if len(ParseQuestions(s, 3)) > 3 {
			t.Error("too many questions")
		}
	})
}

func TestGoldenPrompts(t *testing.T) {
	p, _ := RenderImportance("put a clean apple in fridge.", "You arrive at fridge 1.")
	golden.Check(t, "importance.golden", []byte(p))
	p, _ = RenderQuestions([]string{"a", "b"})
	golden.Check(t, "questions.golden", []byte(p))
	p, _ = RenderInsights("goal", []string{"a", "b"})
	golden.Check(t, "insights.golden", []byte(p))
	wm := RAGMemory{
		Goal:        "Find the treasure in the golden locker.",
		History:     []arigraph.Step{{Observation: "You are in Room A.", Action: "look"}, {Observation: "You take the Key 1.", Action: "take key 1"}},
		Observation: "You are in Room B. There is an exit to the north.",
		Episodes:    []string{"You take the Key 1.", "Room A has a locked door."},
		K:           5,
		Actions:     []string{"go north", "go to room a"},
	}
	p, _ = RenderPlan(wm)
	golden.Check(t, "rag_plan.golden", []byte(p))
	wm.Plan = `{"main_goal": "find treasure"}`
	p, _ = RenderDecide(wm)
	golden.Check(t, "rag_decide.golden", []byte(p))
}

func TestSaveLoadEqual(t *testing.T) {
	ctx := context.Background()
	emb := offline.New(64)
	m, _ := New(Config{}, Deps{Embed: emb})
	m.s.Add(KindObservation, "You see a key.", "t1", 0, 5, nil)
	m.s.Add(KindReflection, "keys open lockers", "t1", 3, 7, []int{0})
	m.s.Add(KindObservation, "Nothing happens.", "t2", 4, 1, nil)
	m.clock = 4
	dir := t.TempDir()
	if err := m.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	m2, _ := New(Config{}, Deps{Embed: emb})
	if err := m2.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m2.s.Memories(), m.s.Memories()) || m2.clock != 4 || m2.s.sinceReflect != m.s.sinceReflect {
		t.Errorf("reloaded %+v, want %+v", m2.s.Memories(), m.s.Memories())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestLoadErrors checks that every bad file is refused with an error naming
// it, and that a failed Load leaves the method as it was.
func TestLoadErrors(t *testing.T) {
	ctx := context.Background()
	emb := offline.New(64)
	tests := []struct {
		name  string
		file  string
		spoil func(dir string) error
		emb   llm.Embedder
		want  error
	}{
		{"another embedder", fileMeta, func(string) error { return nil }, axisEmbedder{}, ErrFormat},
		{"missing memories", fileMemories, func(dir string) error { return os.Remove(filepath.Join(dir, fileMemories)) }, emb, checkpoints.ErrMissing},
		{"future version", fileMeta, func(dir string) error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, fileMeta), []metaRow{{FormatVersion: formatVersion + 1, EmbedModel: emb.Model()}}, checkpoints.WriteOptions{})
		}, emb, ErrFormat},
		{"meta not parquet", fileMeta, func(dir string) error {
			return os.WriteFile(filepath.Join(dir, fileMeta), []byte("{\"version\": 1}"), 0o644)
		}, emb, checkpoints.ErrNotParquet},
		{"truncated memories", fileMemories, func(dir string) error {
			p := filepath.Join(dir, fileMemories)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, b[:len(b)-10], 0o644)
		}, emb, checkpoints.ErrCorrupt},
		{"memories with the meta columns", fileMemories, func(dir string) error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, fileMemories), []metaRow{{}}, checkpoints.WriteOptions{})
		}, emb, checkpoints.ErrSchema},
		{"duplicate ids", fileMemories, func(dir string) error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, fileMemories), []Memory{{ID: 3, Text: "a"}, {ID: 3, Text: "b"}}, checkpoints.WriteOptions{})
		}, emb, ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := New(Config{}, Deps{Embed: emb})
			m.s.Add(KindObservation, "You see a key.", "t1", 0, 5, nil)
			dir := t.TempDir()
			if err := m.Save(ctx, dir); err != nil {
				t.Fatal(err)
			}
			if err := tc.spoil(dir); err != nil {
				t.Fatal(err)
			}
			m2, _ := New(Config{}, Deps{Embed: tc.emb})
			m2.s.Add(KindObservation, "before", "t0", 0, 1, nil)
			err := m2.Load(ctx, dir)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Load = %v, want %v", err, tc.want)
			}
			if p := filepath.Join(dir, tc.file); !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name %s", err, p)
			}
			if got := m2.s.Memories(); len(got) != 1 || got[0].Text != "before" {
				t.Errorf("a failed Load changed the stream: %+v", got)
			}
		})
	}
}

func trainEval(t *testing.T, m agent.Method, perType, nEval int) (won, n, steps int) {
	t.Helper()
	ctx := context.Background()
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	env, _ := suite.Open(ctx)
	defer env.Close()
	train, _ := suite.Tasks(envbridge.SplitTrain)
	count := map[string]int{}
	for i, task := range train {
		if count[task.Type] >= perType {
			continue
		}
		count[task.Type]++
		if _, err := runner.Run(ctx, env, m, agent.Start{Task: task, Mode: agent.Train, Style: suite.Style(), Rand: rand.New(rand.NewPCG(1, uint64(i)))}); err != nil {
			t.Fatal(err)
		}
	}
	eval, _ := suite.Tasks(envbridge.SplitValidUnseen)
	if nEval > 0 {
		eval = eval[:min(nEval, len(eval))]
	}
	for i, task := range eval {
		ep, err := runner.Run(ctx, env, m, agent.Start{Task: task, Mode: agent.Eval, Style: suite.Style(), Rand: rand.New(rand.NewPCG(2, uint64(i)))})
		if err != nil {
			t.Fatal(err)
		}
		n++
		steps += ep.Outcome.Steps
		if ep.Outcome.Won {
			won++
		}
	}
	return
}

func TestHouseholdOffline(t *testing.T) {
	m, _ := New(Config{}, Deps{Embed: offline.New(256)})
	won, n, _ := trainEval(t, m, 1, 8)
	if won == 0 {
		t.Errorf("offline memory stream won %d of %d", won, n)
	}
	if m.Size()["reflections"] == 0 {
		t.Error("training never reflected")
	}
}

func TestMeasureHousehold(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	m, _ := New(Config{}, Deps{Embed: offline.New(256)})
	won, n, steps := trainEval(t, m, 5, 0)
	fmt.Printf("memstream offline household valid_unseen: won %d/%d = %.3f, mean steps %.1f\n", won, n, float64(won)/float64(n), float64(steps)/float64(n))
}

func TestLLMRolesScripted(t *testing.T) {
	c := llmtest.NewChatter(t, "Rating: 8", "1. Where is the key?", "The key is in the box (because of 1)")
	l := &LLM{Chat: c}
	ctx := context.Background()
	if v, err := l.Importance(ctx, "g", "m"); err != nil || v != 8 {
		t.Errorf("Importance = %v, %v", v, err)
	}
	if q, err := l.Questions(ctx, []string{"a"}); err != nil || len(q) != 1 {
		t.Errorf("Questions = %v, %v", q, err)
	}
	if in, err := l.Insights(ctx, "g", []string{"a"}); err != nil || len(in) != 1 || !slices.Equal(in[0].Evidence, []int{1}) {
		t.Errorf("Insights = %v, %v", in, err)
	}
	var purposes []string
	for _, r := range c.Requests() {
		purposes = append(purposes, r.Purpose)
	}
	if !slices.Equal(purposes, []string{PurposeImportance, PurposeQuestions, PurposeInsights}) {
		t.Errorf("purposes = %v", purposes)
	}
}
