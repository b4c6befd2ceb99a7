package zmachine

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
)

// TestSharedGames plays the real games of ../shared/games: each cooking
// game's walkthrough reaches its max_score and ends won; every other game
// starts, reports its score and objective, takes 50 random commands and is
// closed with no process left behind.
func TestSharedGames(t *testing.T) {
	if testing.Short() {
		t.Skip("whole-suite game test: every game in ../shared/games (runs without -short)")
	}
	needInterpreter(t)
	dir := gamesDir(t)
	noChildrenLeft(t)
	ctx := ctxT(t)
	s, err := NewSuite(ctx, Config{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := s.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 9 {
		t.Fatalf("found %d games in %s, want 9", len(tasks), dir)
	}
	for _, task := range tasks {
		t.Run(task.Type, func(t *testing.T) {
			ctx := ctxT(t) // each game its own deadline: -race on a loaded machine is slow
			env, err := s.OpenEnv(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			obs, err := env.Reset(ctx, task)
			if err != nil {
				t.Fatal(err)
			}
			if obs.Text == "" || obs.Admissible != nil {
				t.Fatalf("Reset: text %q, admissible %v", obs.Text, obs.Admissible)
			}
			if task.Goal == "" {
				t.Fatalf("no goal")
			}
			t.Logf("goal: %s (max score %v)", task.Goal, env.maxScore)
			if strings.HasPrefix(filepath.Base(task.Type), "cook") {
				playWalkthrough(t, s, env, task)
				return
			}
			if filepath.Base(task.Type) == "hunt" && env.maxScore != 7 {
				t.Errorf("hunt max score = %v, want 7", env.maxScore)
			}
			seed := uint64(len(task.Type))
			t.Logf("random commands, seed %d", seed)
			r := rand.New(rand.NewPCG(seed, 5))
			for i := range 50 {
				a := randomCommand(r)
				res, err := env.Step(ctx, a)
				if err != nil {
					t.Fatalf("step %d %q: %v", i, a, err)
				}
				if res.Done {
					if i+1 < 50 && !res.Won && !res.Lost {
						t.Logf("ended after %d steps: %q", i+1, res.Text)
					}
					break
				}
			}
			if err := env.Close(); err != nil {
				t.Fatal(err)
			}
			if pid := env.pid(); pid != 0 {
				t.Errorf("interpreter %d still referenced after Close", pid)
			}
		})
	}
}

func playWalkthrough(t *testing.T, s *Suite, env *Env, task envbridge.Task) {
	t.Helper()
	ctx := ctxT(t)
	walk := s.Walkthrough(task.ID)
	if len(walk) == 0 || task.OracleSteps != len(walk) {
		t.Fatalf("walkthrough of %s: %d commands, OracleSteps %d", task.ID, len(walk), task.OracleSteps)
	}
	if !strings.Contains(task.Goal, "cook") {
		t.Errorf("goal %q does not state the cooking objective", task.Goal)
	}
	var res envbridge.StepResult
	total := 0.0
	for i, a := range walk {
		var err error
		res, err = env.Step(ctx, a)
		if err != nil {
			t.Fatalf("step %d %q: %v", i, a, err)
		}
		total += res.Reward
		if res.Done && i != len(walk)-1 {
			t.Fatalf("done at step %d of %d: %+v", i+1, len(walk), res)
		}
		if strings.Contains(strings.ToLower(res.Text), "your score has") {
			t.Errorf("score notice left in %q", res.Text)
		}
	}
	if !res.Done || !res.Won || res.Lost || res.Truncated {
		t.Fatalf("after walkthrough: %+v", res)
	}
	if res.Score != res.MaxScore || res.MaxScore == 0 || total != res.Score {
		t.Fatalf("score %v of %v, rewards sum %v", res.Score, res.MaxScore, total)
	}
	if _, err := env.Step(ctx, "look"); err == nil {
		t.Fatalf("Step after the end: no error")
	}
}

// randomCommand draws a command from the Jericho action vocabulary (seed 002
// Fig. 15 lists these verbs) with a few objects.
func randomCommand(r *rand.Rand) string {
	verbs := []string{"north", "south", "east", "west", "up", "down", "look", "inventory",
		"take", "drop", "open", "close", "examine", "push", "pull", "wait", "read", "eat",
		"unlock", "put", "go west", "take all"}
	objects := []string{"door", "key", "all", "box", "table", "fridge", "knife", "locker", "lamp", "paper"}
	v := verbs[r.IntN(len(verbs))]
	switch v {
	case "take", "drop", "open", "close", "examine", "push", "pull", "read", "eat", "unlock":
		return v + " " + objects[r.IntN(len(objects))]
	case "put":
		return "put " + objects[r.IntN(len(objects))] + " on " + objects[r.IntN(len(objects))]
	}
	return v
}

// TestPaperStepLimits checks seed 000's step limits per game (Fig. 4
// caption: 150 in Treasure Hunt and Cleaning, 60 in Cooking): the tasks carry
// them, an episode of a cooking game is truncated at exactly 60 steps, and
// -max-steps overrides them all.
func TestPaperStepLimits(t *testing.T) {
	needInterpreter(t)
	dir := gamesDir(t)
	ctx := ctxT(t)
	s, err := NewSuite(ctx, Config{}, filepath.Join(dir, "arigraph"))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := s.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"hunt": 150, "clean_3x3_default": 150, "cook": 60, "cook_1_9": 60, "cook_1_1_cut": 60}
	var cook envbridge.Task
	for _, task := range tasks {
		if w, ok := want[task.Type]; ok {
			if task.MaxSteps != w {
				t.Errorf("%s: MaxSteps %d, want %d", task.Type, task.MaxSteps, w)
			}
			delete(want, task.Type)
		}
		if task.Type == "cook" {
			cook = task
		}
	}
	if len(want) > 0 {
		t.Fatalf("games not found: %v", want)
	}
	env, err := s.OpenEnv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Reset(ctx, cook); err != nil {
		t.Fatal(err)
	}
	steps := 0
	for {
		r, err := env.Step(ctx, "look")
		if err != nil {
			t.Fatal(err)
		}
		steps++
		if r.Done {
			if !r.Truncated || steps != 60 {
				t.Errorf("cook ended at step %d (truncated %v), want truncation at 60", steps, r.Truncated)
			}
			break
		}
		if steps > 200 {
			t.Fatal("no step limit")
		}
	}
	s2, err := NewSuite(ctx, Config{MaxSteps: 7}, filepath.Join(dir, "arigraph"))
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ = s2.Tasks(envbridge.SplitTrain)
	for _, task := range tasks {
		if task.MaxSteps != 7 {
			t.Errorf("with MaxSteps 7, %s has limit %d", task.Type, task.MaxSteps)
		}
	}
	if PaperStepLimit("arigraph/Hunt") != 150 || PaperStepLimit("zork1") != 0 {
		t.Error("PaperStepLimit by name is wrong")
	}
}
