package memstream

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/llm/offline"
)

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
		if got, want := s.ShouldReflect(defaultThreshold), 10*(i+1) > 150; got != want {
			t.Fatalf("after %d memories ShouldReflect = %v", i+1, got)
		}
	}
	s.Add(KindObservation, "x", "t", 20, 10, nil)
	if !s.ShouldReflect(defaultThreshold) {
		t.Error("160 > 150 should reflect")
	}
	s.Reflected()
	if s.ShouldReflect(defaultThreshold) {
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
		History:     []Step{{Observation: "You are in Room A.", Action: "look"}, {Observation: "You take the Key 1.", Action: "take key 1"}},
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

// TestLoadErrors checks that files of another embedder or format version,
// or memories out of order, are refused with ErrFormat naming the file, and
// that a failed Load leaves the method as it was (agenttest covers damaged
// and missing files).
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
		{"future version", fileMeta, func(dir string) error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, fileMeta), []metaRow{{FormatVersion: formatVersion + 1, EmbedModel: emb.Model()}}, checkpoints.WriteOptions{})
		}, emb, ErrFormat},
		{"duplicate ids", fileMemories, func(dir string) error {
			return checkpoints.WriteFile(ctx, filepath.Join(dir, fileMemories), []Memory{{ID: 3, Text: "a"}, {ID: 3, Text: "b"}}, checkpoints.WriteOptions{})
		}, emb, ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := New(Config{}, Deps{Embed: emb, Offline: stubOffline{}})
			m.s.Add(KindObservation, "You see a key.", "t1", 0, 5, nil)
			dir := t.TempDir()
			if err := m.Save(ctx, dir); err != nil {
				t.Fatal(err)
			}
			if err := tc.spoil(dir); err != nil {
				t.Fatal(err)
			}
			m2, _ := New(Config{}, Deps{Embed: tc.emb, Offline: stubOffline{}})
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

// stubOffline rates every memory 5, asks nothing and looks: the core's
// tests need a method without a model, not the rules of memstream/offline.
type stubOffline struct{}

func (stubOffline) Begin(agent.Start) OfflineEpisode { return stubEpisode{} }

type stubEpisode struct{}

func (stubEpisode) Importance(context.Context, string, string) (float64, error)   { return 5, nil }
func (stubEpisode) Questions(context.Context, []string) ([]string, error)         { return nil, nil }
func (stubEpisode) Insights(context.Context, string, []string) ([]Insight, error) { return nil, nil }
func (stubEpisode) Decide(envbridge.Observation, []Scored, []Step, int) (string, string) {
	return "stub", "look"
}
