package memrl

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
	"github.com/samem/trainer/llm/offline"
)

type noOffline struct{}

func (noOffline) Begin(agent.Start, []Shown) Session { return nil }

func newTest(t *testing.T, cfg Config) *Method {
	t.Helper()
	m, err := New(cfg, Deps{Embed: offline.New(8), Offline: noOffline{}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// Phase A keeps the keys above the gate, the K1 most similar; Phase B
// ranks their memories by z(sim) and z(Q) and marks the top K2.
func TestRetrieve(t *testing.T) {
	m := newTest(t, Config{K1: 2, K2: 2, SimMean: 0.5, SimStd: 0.1})
	m.intents = []Intent{
		{ID: 0, Text: "a", Vector: []float32{1, 0}},      // sim 1
		{ID: 1, Text: "b", Vector: []float32{0.8, 0.6}},  // sim 0.8
		{ID: 2, Text: "c", Vector: []float32{0.6, 0.8}},  // sim 0.6: third, beyond K1
		{ID: 3, Text: "d", Vector: []float32{-0.6, 0.8}}, // below the gate
	}
	m.items = []Item{
		{ID: 0, Key: 0, Q: -0.5}, {ID: 1, Key: 1, Q: 0.9}, {ID: 2, Key: 1, Q: 0.1}, {ID: 3, Key: 2, Q: 1}, {ID: 4, Key: 3, Q: 1},
	}
	res := m.retrieve([]float32{1, 0}, nil)
	if res.MergeKey != 0 {
		t.Errorf("merge key %d, want 0 (similarity 1 >= 0.9)", res.MergeKey)
	}
	if len(res.Candidates) != 3 {
		t.Fatalf("%d candidates, want the 3 memories of keys 0 and 1: %+v", len(res.Candidates), res.Candidates)
	}
	// Q pool {-0.5, 0.9, 0.1}: mean 1/6, population std; z(sim) (s-0.5)/0.1.
	mean := (-0.5 + 0.9 + 0.1) / 3
	std := math.Sqrt(((-0.5-mean)*(-0.5-mean) + (0.9-mean)*(0.9-mean) + (0.1-mean)*(0.1-mean)) / 3)
	want := map[int64]float64{0: 0.5*5 + 0.5*(-0.5-mean)/std, 1: 0.5*3 + 0.5*(0.9-mean)/std, 2: 0.5*3 + 0.5*(0.1-mean)/std}
	for _, c := range res.Candidates {
		if !near(c.Score, want[c.ID]) {
			t.Errorf("memory %d: score %g, want %g", c.ID, c.Score, want[c.ID])
		}
	}
	if ids := []int64{res.Candidates[0].ID, res.Candidates[1].ID}; ids[0] != 1 || ids[1] != 0 || !res.Candidates[0].Injected || !res.Candidates[1].Injected || res.Candidates[2].Injected {
		t.Errorf("order %v, injected %v %v %v; want 1, 0 injected, 2 not", ids, res.Candidates[0].Injected, res.Candidates[1].Injected, res.Candidates[2].Injected)
	}
	// Without the Q re-rank, similarity decides: key 0's memory first, then
	// the newer of key 1's.
	m.cfg = Config{NoQ: true, K1: 2, K2: 2, SimMean: 0.5, SimStd: 0.1}.Resolved()
	res = m.retrieve([]float32{1, 0}, nil)
	if got := []int64{res.Candidates[0].ID, res.Candidates[1].ID, res.Candidates[2].ID}; got[0] != 0 || got[1] != 2 || got[2] != 1 {
		t.Errorf("similarity-only order %v, want [0 2 1]", got)
	}
}

func TestZScores(t *testing.T) {
	if z := zScores([]Candidate{{Q: 0.7}}); z[0] != 0 {
		t.Errorf("one candidate: z %g, want 0", z[0])
	}
	if z := zScores([]Candidate{{Q: 0.2}, {Q: 0.2}}); z[0] != 0 || z[1] != 0 {
		t.Errorf("equal Q: %v, want zeros", z)
	}
	c := make([]Candidate, 20)
	c[0].Q = 1
	if z := zScores(c); z[0] != 3 {
		t.Errorf("outlier z %g, want clipped to 3", z[0])
	}
}

// EndIteration applies Eq. 8 to the injected memories in episode order,
// counts retrievals, estimates the z-norm constants once and writes each
// episode under the merged key or a new one.
func TestEndIteration(t *testing.T) {
	m := newTest(t, Config{})
	m.intents = []Intent{{ID: 0, Text: "a", Vector: []float32{1, 0}}}
	m.items = []Item{{ID: 0, Key: 0}}
	m.nextItem, m.nextIntent = 1, 1
	m.pend = []pending{
		{Episode: 3, Intent: "c", Vector: []float32{0, 1}, Reward: -1, Injected: []int64{0}, Candidates: []int64{0}, MergeKey: -1, Lesson: "r"},
		{Episode: 2, Intent: "d", Vector: []float32{1, 1}, Reward: -1, MergeKey: -1},
		{Episode: 1, Intent: "b", Vector: []float32{1, 0.1}, Success: true, Reward: 1, Injected: []int64{0}, Candidates: []int64{0}, MergeKey: 0, Lesson: "s"},
	}
	if err := m.EndIteration(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	it := m.items[0]
	// Episode 1 first: Q = 0.3; then episode 3: Q = 0.7*0.3 - 0.3 = -0.09.
	if !near(it.Q, -0.09) || it.Visits != 2 || it.Retrievals != 2 || it.LastReward != -1 {
		t.Errorf("updated item %+v, want Q -0.09, 2 visits, 2 retrievals, last reward -1", it)
	}
	if len(m.items) != 4 || m.items[1].Key != 0 || m.items[1].Lesson != "s" || m.items[3].Key != 2 || len(m.intents) != 3 || m.intents[2].Text != "c" {
		t.Errorf("written %+v under intents %+v; want episode 1 under key 0, episodes 2 and 3 under new keys 1 and 2", m.items[1:], m.intents)
	}
	if mean, std, est := m.SimNorm(); !est || std <= 0 || math.IsNaN(mean) {
		t.Errorf("z-norm %g, %g, estimated %v", mean, std, est)
	}
}

func TestReward(t *testing.T) {
	m := newTest(t, Config{})
	for _, tc := range []struct {
		out  agent.Outcome
		want float64
	}{
		{agent.Outcome{Won: true}, 1}, {agent.Outcome{}, -1}, {agent.Outcome{Score: 5, MaxScore: 10}, 0}, {agent.Outcome{Score: -20, MaxScore: 10}, -1},
	} {
		if got := m.reward(tc.out); !near(got, tc.want) {
			t.Errorf("reward(%+v) = %g, want %g", tc.out, got, tc.want)
		}
	}
	m.cfg.BinaryReward = true
	if got := m.reward(agent.Outcome{Score: 9, MaxScore: 10}); got != -1 {
		t.Errorf("binary reward of a trial not won: %g", got)
	}
}

var (
	goal  = "put a hot apple in fridge."
	steps = []Step{
		{Text: "You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1, and a microwave 1.\n\nYour task is to: put a hot apple in fridge.", Reply: "Thought: The apple may be on the countertop.\nAction: go to countertop 1"},
		{Action: "go to countertop 1", Text: "You arrive at countertop 1. On the countertop 1, you see a apple 1.", Reply: "Thought: The apple is here.\nAction: take apple 1 from countertop 1"},
	}
	adm   = []string{"go to fridge 1", "go to microwave 1", "take apple 1 from countertop 1", "look", "inventory"}
	shown = []Shown{
		{Success: true, Lesson: "1. Find the target object.\n2. Heat it with the microwave.\n3. Put it in the destination.", Trajectory: "> go to countertop 1\nYou arrive at countertop 1."},
		{Lesson: "The agent never heated the object. Next time go to the microwave first.", Trajectory: "> look\nYou are in the middle of a room."},
	}
)

func TestPromptsGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		style envbridge.Style
		shown []Shown
		steps []Step
		max   int
	}{
		{"act-household-memories", envbridge.StyleHousehold, shown, steps, 50},
		{"act-household-empty", envbridge.StyleHousehold, nil, steps[:1], 50},
		{"act-household-window", envbridge.StyleHousehold, nil, append(append([]Step{}, steps...), Step{Action: "take apple 1 from countertop 1", Text: "You pick up the apple 1 from the countertop 1.", Reply: "x"}), 2},
		{"act-science", envbridge.StyleScience, shown[:1], steps[:1], 50},
		{"act-fiction", envbridge.StyleFiction, nil, []Step{{Text: "West of House. There is a small mailbox here."}}, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := adm
			if tc.style == envbridge.StyleFiction {
				a = nil
			}
			msgs, err := actMessages(tc.style, goal, tc.shown, tc.steps, a, tc.max)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.name+".golden", golden.Messages(msgs))
		})
	}
	msgs, err := scriptMessages(goal, Trajectory(steps))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "script.golden", golden.Messages(msgs))
	msgs, err = reflectMessages(goal, agent.Outcome{Truncated: true, Steps: 30}.Failure(), Trajectory(steps))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "reflect.golden", golden.Messages(msgs))
	golden.Schema(t, ScriptSchema)
	golden.Schema(t, ReflectionSchema)
}

func TestParseScript(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"1. Find it.\n2. Heat it.\n3. Place it.", []string{"Find it.", "Heat it.", "Place it."}},
		{"Script:\n- **Find** it\n* Heat it", []string{"Find it", "Heat it"}},
		{"```\nStep 1: a\nStep 2) b\n```", []string{"a", "b"}},
		{"1. a\n2. b\n3. c\n4. d\n5. e\n6. f", []string{"a", "b", "c", "d", "e"}},
	} {
		got, err := ParseScript(tc.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("ParseScript(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParseScript("  \n-\n1.\n"); !errors.Is(err, ErrEmptyScript) {
		t.Errorf("empty script: %v", err)
	}
}

func FuzzParseScript(f *testing.F) {
	for _, s := range []string{"1. a\n2. b", "Script:", "- **x**", "", "\xff", strings.Repeat("é", 400), "Step 3) go"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseScript(s)
		if err != nil {
			if !errors.Is(err, ErrEmptyScript) || got != nil {
				t.Fatalf("ParseScript(%q) = %q, %v", s, got, err)
			}
			return
		}
		if len(got) == 0 || len(got) > maxSteps {
			t.Fatalf("ParseScript(%q): %d steps", s, len(got))
		}
		for _, st := range got {
			if st == "" || len(st) > maxStepLen || strings.ContainsAny(st, "\n\t") || !utf8.ValidString(st) || st != strings.TrimSpace(st) {
				t.Fatalf("ParseScript(%q): step %q empty, long, multi-line, invalid or untrimmed", s, st)
			}
		}
	})
}

func FuzzParseReflection(f *testing.F) {
	for _, s := range []string{"Reflection: a", "reflection:", "**", "```", "", "\xff\xfe", strings.Repeat("é", 500)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseReflection(s)
		if err != nil {
			if !errors.Is(err, ErrEmptyReflection) || got != "" {
				t.Fatalf("ParseReflection(%q) = %q, %v", s, got, err)
			}
			return
		}
		if got == "" || len(got) > maxReflectionLen || strings.ContainsAny(got, "\n\t") || !utf8.ValidString(got) || got != strings.TrimSpace(got) {
			t.Fatalf("ParseReflection(%q) = %q", s, got)
		}
	})
}

func TestCutMiddle(t *testing.T) {
	s := strings.Repeat("line of text\n", 1000)
	got := cutMiddle(s, 500)
	if len(got) > 500 || !strings.HasPrefix(got, "line of text") || !strings.HasSuffix(got, "line of text\n") || !strings.Contains(got, "left out") {
		t.Errorf("cutMiddle: %d bytes: %q", len(got), got)
	}
	if cutMiddle("short", 500) != "short" {
		t.Error("a short text was cut")
	}
}

// Load refuses rows that do not fit together and leaves the memory as it
// was; a memory of another embedder is refused.
func TestLoadRefuses(t *testing.T) {
	ctx := context.Background()
	m := newTest(t, Config{})
	m.intents = []Intent{{ID: 0, Text: "a", Vector: make([]float32, 8)}}
	m.items = []Item{{ID: 0, Key: 0, Q: 0.5, Lesson: "x"}}
	m.nextItem, m.nextIntent = 1, 1
	dir := t.TempDir()
	if err := m.Save(ctx, dir); err != nil {
		t.Fatal(err)
	}
	other, err := New(Config{}, Deps{Embed: offline.New(16), Offline: noOffline{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Load(ctx, dir); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "dimension") {
		t.Errorf("another embedder's memory: %v", err)
	}
	// An item under an unknown key.
	bad := newTest(t, Config{})
	bad.intents = m.intents
	bad.items = []Item{{ID: 0, Key: 7}}
	bad.nextItem, bad.nextIntent = 1, 1
	dir2 := filepath.Join(t.TempDir(), "bad")
	if err := os.Mkdir(dir2, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := bad.Save(ctx, dir2); err != nil {
		t.Fatal(err)
	}
	fresh := newTest(t, Config{})
	if err := fresh.Load(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Load(ctx, dir2); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), ItemsFile) {
		t.Errorf("unknown intent: %v", err)
	}
	if got := fresh.Items(); len(got) != 1 || got[0].Q != 0.5 {
		t.Errorf("a refused load changed the memory: %+v", got)
	}
}

func TestMemoryTables(t *testing.T) {
	m := newTest(t, Config{})
	m.intents = []Intent{{ID: 0, Text: "task a", Vector: make([]float32, 8)}}
	m.items = []Item{{ID: 0, Key: 0, Task: "t0", Success: true, Q: 0.3, Visits: 2, Retrievals: 5, Lesson: "1. go"}}
	tabs := m.MemoryTables()
	if len(tabs) != 2 || tabs[0].Name != "triplets" || tabs[1].Name != "intents" {
		t.Fatalf("tables %+v", tabs)
	}
	row := strings.Join(tabs[0].Rows[0], "|")
	if row != "0|0|t0|0|true|0.3|2|5|0|0|1. go" {
		t.Errorf("triplet row %q", row)
	}
	if got := strings.Join(tabs[1].Rows[0], "|"); got != "0|1|task a" {
		t.Errorf("intent row %q", got)
	}
}
