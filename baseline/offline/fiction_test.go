package offline

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/baseline"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/runner"
)

// tinyGame is a free-form game of two rooms: the player wins by going north
// and taking the key. Everything else leaves the world as it is.
type tinyGame struct {
	north, done bool
	steps, max  int
}

const (
	hall   = "Hall. A bare hall; a doorway leads north."
	garden = "Garden. A small key lies in the grass. The hall is south."
)

func (g *tinyGame) here() string {
	if g.north {
		return garden
	}
	return hall
}

func (g *tinyGame) Reset(_ context.Context, t envbridge.Task) (envbridge.Observation, error) {
	*g = tinyGame{max: t.MaxSteps}
	return envbridge.Observation{Text: g.here()}, nil
}

func (g *tinyGame) Step(_ context.Context, action string) (envbridge.StepResult, error) {
	if g.done {
		return envbridge.StepResult{}, envbridge.ErrEpisodeOver
	}
	g.steps++
	r := envbridge.StepResult{MaxScore: 1}
	switch a := normalize(action); {
	case a == "north" && !g.north, a == "south" && g.north:
		g.north = !g.north
		r.Text = g.here()
	case a == "take key" && g.north:
		r.Text, r.Won, r.Reward, r.Score = "Taken. You win.", true, 1, 1
	case a == "look":
		r.Text = g.here()
	default:
		r.Text = "You can't do that here."
	}
	r.Truncated = !r.Won && g.steps >= g.max
	r.Done = r.Won || r.Truncated
	g.done = r.Done
	return r, nil
}

func (g *tinyGame) Close() error { return nil }

// TestFreeFormOffline runs the offline baselines on a free-form game (no
// admissible list): they play, and Reflexion reflects on failures with a
// lesson about repeated actions only (there are no household stages).
func TestFreeFormOffline(t *testing.T) {
	task := envbridge.Task{ID: "tiny", Goal: "Find the key.", MaxSteps: 12}
	full := mustFull(t, baseline.FullHistoryConfig{}, baseline.Deps{Offline: Roles()})
	sum, err := baseline.NewSummary(baseline.SummaryConfig{}, baseline.Deps{Offline: Roles()})
	if err != nil {
		t.Fatal(err)
	}
	refl := mustReflexion(t, baseline.ReflexionConfig{}, baseline.Deps{Offline: Roles()})
	for _, m := range []agent.Method{full, sum, refl} {
		won := 0
		for i := range 8 {
			ep, err := runner.Run(context.Background(), &tinyGame{}, m, agent.Start{Task: task, Mode: agent.Train, Style: envbridge.StyleFiction, Rand: rand.New(rand.NewPCG(4, uint64(i)))})
			if err != nil {
				t.Fatalf("%s: %v", m.Name(), err)
			}
			if ep.Outcome.Won {
				won++
			}
		}
		t.Logf("%s won %d of 8", m.Name(), won)
	}
	if len(refl.Reflections()) == 0 {
		t.Fatal("no reflection after the failed free-form trials")
	}
	for _, r := range refl.Reflections() {
		for _, l := range stageLessons {
			if strings.Contains(r.Text, l) {
				t.Errorf("free-form reflection %q names a household stage", r.Text)
			}
		}
		if !strings.HasSuffix(r.Text, repeatSuffix) {
			t.Errorf("free-form reflection %q is not a repeat lesson", r.Text)
		}
	}
}
