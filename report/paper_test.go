package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/runner"
)

// paperRun is a run with every method of seed 002 Table 1 and two others
// (MemRL, CLIN), listed out of the paper's order, on ALFWorld's six types.
func paperRun(env string) Data {
	sum := func(sr float64) runner.Summary {
		return runner.Summary{Tasks: 10, Successes: int(sr * 10), SuccessRate: sr, AvgScore: sr, SR: 100 * sr, AR: 50 * sr}
	}
	types := func(sr float64) map[string]runner.Summary {
		out := map[string]runner.Summary{}
		for i, t := range alfworldTypes {
			out[t[0]] = sum(max(0, sr-0.05*float64(i)))
		}
		return out
	}
	tok := func(n int64) *int64 { return &n }
	d := Data{Run: "runs/t1", Split: "valid_unseen", Env: env, Backend: "openai"}
	for i, n := range []string{"memrl", "samem", "clin", "cdmem", "autoguide", "awm", "expel", "reflexion", "nomemory"} {
		sr := 0.9 - 0.08*float64(i)
		m := Method{Name: n, Overall: sum(sr), Tokens: int64(1000 * (i + 1))}
		if env == "household" {
			m.ByType = types(sr)
		}
		if n != "clin" {
			m.TrainTokens = tok(int64(5000 * (i + 1)))
		}
		d.Methods = append(d.Methods, m)
	}
	return d
}

// The Table 1 and Fig. 8 sections: the paper's methods first in its order
// (baseline, Reflexion, ExpeL, AWM, AutoGuide, CDMem, SAMem), the others
// after them; per type for ALFWorld-style runs, SR and AR for scored ones.
func TestPaperTable1Golden(t *testing.T) {
	for _, env := range []string{"household", "zmachine"} {
		t.Run(env, func(t *testing.T) {
			var b strings.Builder
			d := paperRun(env)
			paperTable1(&b, d)
			paperFig8(&b, d)
			got := b.String()
			golden := filepath.Join("testdata", "paper-"+env+".md")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./report -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("Table 1 / Fig. 8 differ from %s (go test ./report -update to accept):\n%s", golden, got)
			}
			order := []string{"| baseline |", "| Reflexion |", "| ExpeL |", "| AWM |", "| AutoGuide |", "| CDMem |", "| SAMem |", "| memrl |", "| clin |"}
			at := -1
			for _, row := range order {
				i := strings.Index(got, row)
				if i <= at {
					t.Errorf("row %s out of the paper's order", row)
				}
				at = i
			}
		})
	}
}

// A run on AgentGym's ALFWorld (types of ALFWorld) gets the per-type layout;
// one on other types SR and AR.
func TestAlfworldLayout(t *testing.T) {
	d := paperRun("household")
	d.Env = "agentgym"
	if !alfworldLayout(d) {
		t.Error("AgentGym ALFWorld types: not the per-type layout")
	}
	d.Methods[0].ByType = map[string]runner.Summary{"boil": {Tasks: 1}}
	if alfworldLayout(d) {
		t.Error("ScienceWorld types: the per-type layout")
	}
}
