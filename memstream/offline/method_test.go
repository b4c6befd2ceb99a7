package offline

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	arioff "github.com/samem/trainer/arigraph/offline"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/household"
	"github.com/samem/trainer/envbridge/zmachine"
	llmoffline "github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/memstream"
	"github.com/samem/trainer/runner"
)

var measure = flag.Bool("measure", false, "run the offline household measurement")

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
	m, _ := memstream.New(memstream.Config{Carry: true}, memstream.Deps{Embed: llmoffline.New(256), Offline: Method{}})
	won, n, _ := trainEval(t, m, 1, 8)
	if won == 0 {
		t.Errorf("offline memory stream won %d of %d", won, n)
	}
	if m.Size()["reflections"] == 0 {
		t.Error("training never reflected")
	}
}

// TestScopeEpisodeByDefault: by default the stream is the episode's, as
// AriGraph's graph is: training leaves nothing, and an evaluation episode
// of a task trained before decides as an untrained method's does. With
// Carry the training stream reaches evaluation.
func TestScopeEpisodeByDefault(t *testing.T) {
	ctx := context.Background()
	suite, err := household.New(household.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	env, _ := suite.Open(ctx)
	defer env.Close()
	train, _ := suite.Tasks(envbridge.SplitTrain)
	task := train[0]
	play := func(m agent.Method, mode agent.Mode) []string {
		ep, err := runner.Run(ctx, env, m, agent.Start{Task: task, Mode: mode, Style: suite.Style(), Rand: rand.New(rand.NewPCG(5, 5))})
		if err != nil {
			t.Fatal(err)
		}
		var acts []string
		for _, tr := range ep.Transitions {
			acts = append(acts, tr.Decision.Action)
		}
		return acts
	}
	fresh := func(carry bool) *memstream.Method {
		m, err := memstream.New(memstream.Config{Carry: carry}, memstream.Deps{Embed: llmoffline.New(256), Offline: Method{}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	untrained := play(fresh(false), agent.Eval)
	m := fresh(false)
	for range 3 {
		play(m, agent.Train)
	}
	if n := m.Size()["memories"]; n != 0 {
		t.Errorf("default scope: %d memories kept after training, want 0", n)
	}
	if got := play(m, agent.Eval); !slices.Equal(got, untrained) {
		t.Errorf("default scope: trained evaluation %q differs from untrained %q", got, untrained)
	}
	c := fresh(true)
	for range 3 {
		play(c, agent.Train)
	}
	if n := c.Size()["memories"]; n == 0 {
		t.Error("carry: training kept no memory")
	}
}

func TestMeasureHousehold(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	m, _ := memstream.New(memstream.Config{}, memstream.Deps{Embed: llmoffline.New(256), Offline: Method{}})
	won, n, steps := trainEval(t, m, 5, 0)
	fmt.Printf("memstream offline household valid_unseen: won %d/%d = %.3f, mean steps %.1f\n", won, n, float64(won)/float64(n), float64(steps)/float64(n))
}

// TestMeasureGames plays AriGraph's games (seed 000 Sec. 4.1) with both
// offline agents: one training episode, then one evaluation episode per
// game, and prints the normalised score (score / max score). clean has no
// in-game score and is reported unscored.
func TestMeasureGames(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	dir := "../../../shared/games/arigraph"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("games folder %s absent", dir)
	}
	ctx := context.Background()
	suite, err := zmachine.NewSuite(ctx, zmachine.Config{MaxSteps: 150}, dir)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := suite.Tasks(envbridge.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	emb := llmoffline.New(256)
	ag, _ := arigraph.New(arigraph.Config{}, arigraph.Deps{Embed: emb, Offline: arioff.Roles{}})
	ms, _ := memstream.New(memstream.Config{}, memstream.Deps{Embed: emb, Offline: Method{}})
	for _, m := range []agent.Method{ag, ms} {
		for i, task := range tasks {
			env, err := suite.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []agent.Mode{agent.Train, agent.Eval} {
				ep, err := runner.Run(ctx, env, m, agent.Start{Task: task, Mode: mode, Style: suite.Style(), Rand: rand.New(rand.NewPCG(3, uint64(i)))})
				if err != nil {
					t.Logf("%s %s %s: %v", m.Name(), task.ID, mode, err)
				}
				o := ep.Outcome
				norm := "unscored"
				if o.MaxScore > 0 {
					norm = fmt.Sprintf("%.3f", o.Score/o.MaxScore)
				}
				fmt.Printf("%s %s %s: score %.0f/%.0f normalised %s won %v steps %d\n", m.Name(), task.ID, mode, o.Score, o.MaxScore, norm, o.Won, o.Steps)
			}
			env.Close()
		}
	}
}
