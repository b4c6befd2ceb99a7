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
