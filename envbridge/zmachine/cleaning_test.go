package zmachine

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/samem/trainer/envbridge"
)

func cleanDefault(t *testing.T) (string, Layout) {
	t.Helper()
	p := filepath.Join(gamesDir(t), "arigraph", "clean_3x3_default.json")
	l, err := ReadLayout(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, l
}

// TestLayoutFromFacts reads the right places of clean_3x3_default from its
// facts (world at/on/in, infos names).
func TestLayoutFromFacts(t *testing.T) {
	_, l := cleanDefault(t)
	for item, want := range map[string]string{
		"candles": "dining table", "rug": "dining room", "raw meat": "refrigerator",
		"toothbrush": "bathroom sink", "tv": "tv table", "teddy bear": "toy storage cabinet",
	} {
		if got := l.Items[item]; got != want {
			t.Errorf("%s belongs in %q, want %q", item, got, want)
		}
	}
	if len(l.Items) != 37 {
		t.Errorf("%d items, want the 37 at/on/in facts of o and f entities (5 on floors, 7 in containers, 25 on supporters)", len(l.Items))
	}
	if l.Player != "dining room" || l.Exits["dining room"]["west"] != "kitchen" || len(l.Rooms) != 9 {
		t.Errorf("player %q, west of dining room %q, %d rooms", l.Player, l.Exits["dining room"]["west"], len(l.Rooms))
	}
	if p, ok := DefaultLayoutFile(filepath.Join(filepath.Dir(filepath.Join(gamesDir(t), "arigraph", "x")), "clean_3x3_messy.z8")); !ok || filepath.Base(p) != "clean_3x3_default.json" {
		t.Errorf("DefaultLayoutFile of clean_3x3_messy = %q, %v", p, ok)
	}
	if _, err := ParseLayout([]byte(`{"world": [], "infos": []}`)); !errors.Is(err, ErrLayout) {
		t.Errorf("empty layout: %v, want ErrLayout", err)
	}
	if _, err := ParseLayout([]byte(`{"world": [{"name": "on", "arguments": [{"name": "o_1", "type": "o"}, {"name": "s_1", "type": "s"}]}], "infos": []}`)); !errors.Is(err, ErrLayout) {
		t.Errorf("unnamed entities: %v, want ErrLayout", err)
	}
}

// TestCleaningScoreRules follows seed 000's rules on the default house with
// two items moved: +1 for picking up a displaced item (once), +1 for placing
// an item in its right place, -1 for taking a correctly placed one.
func TestCleaningScoreRules(t *testing.T) {
	_, right := cleanDefault(t)
	start := right
	start.Items = maps.Clone(right.Items)
	start.Items["toothbrush"] = "dining table" // displaced
	start.Items["apple"] = "dining room"       // displaced, on the floor
	c := NewCleaning(start, right)
	if c.Max() != 4 {
		t.Fatalf("max %v, want 4 (2 per displaced item)", c.Max())
	}
	steps := []struct {
		action, reply string
		want          float64
	}{
		{"take toothbrush", "You take the toothbrush from the dining table.", 1},
		{"drop toothbrush", "You drop the toothbrush on the ground.", 0},
		{"take toothbrush", "You pick up the toothbrush from the ground.", 0}, // picked once already
		{"take candles", "You take the candles from the dining table.", -1},
		{"put candles on dining table", "You put the candles on the dining table.", 1},
		{"take apple", "You pick up the apple from the ground.", 1},
		{"take rug", "You can't see any such thing.", 0},
		{"west", "You've entered a Kitchen.\n\nYou see a closed dishwasher.", 0},
		{"put apple on kitchen table", "You put the apple on the kitchen table.", 1},
		{"take cooking knife", "You take the cooking knife from the kitchen table.", -1},
		{"drop cooking knife", "You drop the cooking knife on the ground.", 0}, // the kitchen floor is not its place
	}
	total := 0.0
	for i, s := range steps {
		if got := c.Step(s.action, s.reply); got != s.want {
			t.Errorf("step %d %q: %+v, want %+v", i, s.action, got, s.want)
		}
		total += s.want
	}
	if c.Score() != total || total != 2 {
		t.Errorf("score %v, want %v", c.Score(), total)
	}
}

// TestCleaningScoreInGame plays clean_3x3_default through dfrotz: nothing
// is displaced in the default house, so the maximum is 0, taking an item
// from its place costs a point and putting it back returns it.
func TestCleaningScoreInGame(t *testing.T) {
	needInterpreter(t)
	dir := gamesDir(t)
	ctx := ctxT(t)
	s, err := NewSuite(ctx, Config{}, filepath.Join(dir, "arigraph", "clean_3x3_default.z8"))
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := s.Tasks(envbridge.SplitTrain)
	if len(tasks) != 1 || tasks[0].MaxSteps != 150 {
		t.Fatalf("tasks %+v", tasks)
	}
	env, err := s.OpenEnv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Reset(ctx, tasks[0]); err != nil {
		t.Fatal(err)
	}
	for i, st := range []struct {
		action        string
		reward, score float64
	}{
		{"take candles", -1, -1},
		{"west", 0, -1},
		{"take apple", -1, -2},
		{"east", 0, -2},
		{"put apple on dining table", 0, -2},
		{"put candles on dining table", 1, -1},
		{"take apple", 0, -1},
		{"west", 0, -1},
		{"put apple on kitchen table", 1, 0},
	} {
		r, err := env.Step(ctx, st.action)
		if err != nil {
			t.Fatal(err)
		}
		if r.Reward != st.reward || r.Score != st.score || r.MaxScore != 0 {
			t.Errorf("step %d %q: reward %v score %v max %v, want %v %v 0\n%s", i, st.action, r.Reward, r.Score, r.MaxScore, st.reward, st.score, r.Observation.Text)
		}
	}
}

// FuzzParseLayout: any bytes give a layout or an error, never a panic.
func FuzzParseLayout(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "games", "arigraph", "clean_3x3_default.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"world": [{"name": "at", "arguments": [{"name": "o_1", "type": "o"}, {"name": "r_1", "type": "r"}]}], "infos": [["o_1", {"name": "rug"}], ["r_1", {"name": "Hall"}]]}`))
	f.Add([]byte(`{"infos": [[1, 2, 3]]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLayout(b)
		if err == nil && len(l.Items) == 0 {
			t.Error("a layout without items was accepted")
		}
	})
}

// FuzzCleaningStep: any game reply moves the score by a bounded amount and
// never past the maximum.
func FuzzCleaningStep(f *testing.F) {
	f.Add("take candles", "You take the candles from the dining table. You put the candles on the dining table.")
	f.Add("west", "You've entered a Kitchen.")
	f.Fuzz(func(t *testing.T, action, reply string) {
		right := Layout{Items: map[string]string{"candles": "dining table", "apple": "kitchen table"}, Player: "dining room",
			Exits: map[string]map[string]string{"dining room": {"west": "kitchen"}}}
		start := right
		start.Items = map[string]string{"candles": "kitchen table", "apple": "kitchen table"}
		c := NewCleaning(start, right)
		for range 3 {
			c.Step(action, reply)
			if c.Score() > c.Max() {
				t.Fatalf("score %v above max %v", c.Score(), c.Max())
			}
		}
	})
}
