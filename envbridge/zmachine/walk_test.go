package zmachine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
)

// jerichoWalk is one entry of ../shared/games/jericho/walkthroughs.json.
type jerichoWalk struct {
	Seed        int64    `json:"seed"`
	Walkthrough []string `json:"walkthrough"`
}

// walkCase is a game and a winning command sequence.
type walkCase struct {
	name  string // jericho/zork1, arigraph/cook
	file  string
	seed  int64
	walk  []string
	score float64 // the score the walkthrough reaches
	max   float64 // the game's max score
}

// walkCases lists every walkthrough of ../shared/games: the seven Jericho
// games at their seeds and the TextWorld games whose .json has one.
func walkCases(t testing.TB) []walkCase {
	t.Helper()
	dir := gamesDir(t)
	b, err := os.ReadFile(filepath.Join(dir, "jericho", "walkthroughs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var jw map[string]jerichoWalk
	if err := json.Unmarshal(b, &jw); err != nil {
		t.Fatal(err)
	}
	// The scores the walkthroughs reach (Jericho's max scores; balances'
	// walkthrough leaves one of 51 points, as it does under dfrotz).
	reach := map[string][2]float64{"zork1": {350, 350}, "905": {1, 1}, "acorncourt": {30, 30},
		"balances": {50, 51}, "detective": {360, 360}, "loose": {50, 50}, "pentari": {70, 70}}
	var out []walkCase
	names := make([]string, 0, len(jw))
	for k := range jw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, f := range names {
		g := strings.TrimSuffix(f, filepath.Ext(f))
		r, ok := reach[g]
		if !ok {
			t.Fatalf("walkthroughs.json has %s, which this test does not know", f)
		}
		out = append(out, walkCase{name: "jericho/" + g, file: filepath.Join(dir, "jericho", f),
			seed: jw[f].Seed, walk: jw[f].Walkthrough, score: r[0], max: r[1]})
	}
	tw, _ := filepath.Glob(filepath.Join(dir, "arigraph", "*.z8"))
	for _, f := range tw {
		d, walk, ok, err := readDesc(f)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || len(walk) == 0 {
			continue
		}
		out = append(out, walkCase{name: "arigraph/" + strings.TrimSuffix(filepath.Base(f), ".z8"), file: f,
			walk: walk, score: d.Metadata.MaxScore, max: d.Metadata.MaxScore})
	}
	if len(out) < 10 {
		t.Fatalf("found %d walkthroughs, want the 7 Jericho ones and 3 TextWorld cooking games", len(out))
	}
	return out
}

// openWalk opens c's game as the trainer does (a step limit no walkthrough
// reaches) and resets its first task; the env closes with the test.
func openWalk(t *testing.T, c walkCase) (*Suite, *Env, envbridge.Observation) {
	t.Helper()
	return openFirst(t, c.file, 1000)
}

// openFirst opens the story file at path in-process with the given step
// limit and resets its first task; the env closes with the test.
func openFirst(t *testing.T, path string, maxSteps int) (*Suite, *Env, envbridge.Observation) {
	t.Helper()
	s, err := NewSuite(ctxT(t), Config{MaxSteps: maxSteps}, path)
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := s.Tasks(envbridge.SplitTrain)
	env, err := s.OpenEnv(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	obs, err := env.Reset(ctxT(t), ts[0])
	if err != nil {
		t.Fatal(err)
	}
	return s, env, obs
}

// TestWalkthroughs plays every walkthrough through the trainer's driver,
// in-process: each ends Done and won on its last command, at its score, with
// rewards that sum to it.
func TestWalkthroughs(t *testing.T) {
	for _, c := range walkCases(t) {
		t.Run(c.name, func(t *testing.T) {
			_, env, obs := openWalk(t, c)
			if strings.TrimSpace(obs.Text) == "" {
				t.Fatal("empty opening")
			}
			var (
				res envbridge.StepResult
				err error
			)
			// Some games score at their opening (detective: 10 points).
			sum := env.score
			// A walkthrough command a key wait takes (loose's "Boo who?")
			// is typed as keys, as when it was recorded.
			for i := 0; i < len(c.walk); i++ {
				a := c.walk[i]
				res, err = env.Step(ctxT(t), a)
				if err != nil {
					t.Fatalf("step %d %q: %v", i+1, a, err)
				}
				sum += res.Reward
				if res.Done && i < len(c.walk)-1 {
					t.Fatalf("done at step %d of %d (won %v lost %v): %q", i+1, len(c.walk), res.Won, res.Lost, tail(res.Text))
				}
				if strings.TrimSpace(res.Text) == "" {
					t.Errorf("step %d %q: empty observation", i+1, a)
				}
			}
			if !res.Done || !res.Won || res.Lost || res.Truncated {
				t.Fatalf("after the walkthrough: done %v won %v lost %v truncated %v: %q", res.Done, res.Won, res.Lost, res.Truncated, tail(res.Text))
			}
			if res.Score != c.score || res.MaxScore != c.max || sum != res.Score {
				t.Fatalf("score %v of %v (opening score plus rewards %v), want %v of %v", res.Score, res.MaxScore, sum, c.score, c.max)
			}
			t.Logf("%d steps: won, %v of %v", len(c.walk), res.Score, res.MaxScore)
		})
	}
}

func tail(s string) string {
	if len(s) > 300 {
		return "..." + s[len(s)-300:]
	}
	return s
}

// TestDeaths: a scripted death is lost, as Jericho reports it, in zork1
// (which goes on after a death: the episode still ends there) and in an
// Inform game; the next episode in the same Env starts clean.
func TestDeaths(t *testing.T) {
	dir := gamesDir(t)
	cases := []struct {
		name   string
		file   func(t *testing.T) string
		script []string
	}{
		// West of House to the Canyon View, then jump off the cliff.
		{"zork1", func(*testing.T) string { return filepath.Join(dir, "jericho", "zork1.z5") }, []string{"s", "e", "e", "e", "jump"}},
		// Inform: the library's death (deadflag 1).
		{"tiny", func(t *testing.T) string { return tinyGame(t) }, []string{"take coin", "enter pit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewSuite(ctxT(t), Config{}, c.file(t))
			if err != nil {
				t.Fatal(err)
			}
			ts, _ := s.Tasks(envbridge.SplitTrain)
			env, first := openReset(t, s, ts[0])
			var res envbridge.StepResult
			for i, a := range c.script {
				if res, err = env.Step(ctxT(t), a); err != nil {
					t.Fatal(err)
				}
				if res.Done != (i == len(c.script)-1) {
					t.Fatalf("step %d %q: done %v: %q", i+1, a, res.Done, tail(res.Text))
				}
			}
			if !res.Lost || res.Won || !strings.Contains(strings.ToLower(res.Text), "died") && !strings.Contains(res.Text, "lost") {
				t.Fatalf("death: won %v lost %v: %q", res.Won, res.Lost, tail(res.Text))
			}
			again, err := env.Reset(ctxT(t), ts[0])
			if err != nil {
				t.Fatal(err)
			}
			if again.Text != first.Text {
				t.Fatalf("second opening %q differs from the first %q", tail(again.Text), tail(first.Text))
			}
			res, err = env.Step(ctxT(t), "look")
			if err != nil || res.Score != 0 || res.Done {
				t.Fatalf("first step of the next episode: score %v done %v err %v", res.Score, res.Done, err)
			}
		})
	}
}

var _ = fmt.Sprintf

// TestSeeds: every seed is a seed, 0 included; a Jericho game plays at its
// binding's seed unless ForceSeed, and its task says which.
func TestSeeds(t *testing.T) {
	zork := filepath.Join(gamesDir(t), "jericho", "zork1.z5")
	for _, c := range []struct {
		cfg  Config
		want int64
	}{
		{Config{Seed: 0}, 12},
		{Config{Seed: 7}, 12},
		{Config{Seed: 0, ForceSeed: true}, 0},
		{Config{Seed: 5, ForceSeed: true}, 5},
	} {
		s, err := NewSuite(ctxT(t), c.cfg, zork)
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := s.Tasks(envbridge.SplitTrain)
		if ts[0].Seed != c.want {
			t.Errorf("%+v: task seed %d, want %d", c.cfg, ts[0].Seed, c.want)
		}
		env, err := s.OpenEnv(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Reset(ctxT(t), ts[0]); err != nil {
			t.Fatalf("%+v: %v", c.cfg, err)
		}
		if res, err := env.Step(ctxT(t), "open mailbox"); err != nil || !strings.Contains(res.Text, "leaflet") {
			t.Errorf("%+v: open mailbox = %q, %v", c.cfg, res.Text, err)
		}
		env.Close()
	}
}
