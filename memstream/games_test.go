package memstream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/arigraph"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/envbridge/zmachine"
	"github.com/samem/trainer/llm/offline"
	"github.com/samem/trainer/runner"
)

// TestMeasureGames plays AriGraph's games (seed 000 Sec. 4.1) with both
// offline agents: one training episode, then one evaluation episode per
// game, and prints the normalised score (score / max score). clean has no
// in-game score and is reported unscored.
func TestMeasureGames(t *testing.T) {
	if !*measure {
		t.Skip("run with -measure")
	}
	dir := "../../shared/games/arigraph"
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
	emb := offline.New(256)
	ag, _ := arigraph.New(arigraph.Config{}, arigraph.Deps{Embed: emb})
	ms, _ := New(Config{}, Deps{Embed: emb})
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
