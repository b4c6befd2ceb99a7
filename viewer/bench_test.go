package viewer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/samem/trainer/agent"
	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/runner"
)

// Scale of a household evaluation of every method: the held-out tasks of
// valid_unseen, ten methods, episodes of up to 50 steps.
const benchTasks, benchMethods, benchSteps = 134, 10, 50

// writeLargeEval writes an evaluation directory of benchTasks x
// benchMethods episodes of benchSteps steps each, every step with a
// SAMem-sized Recall (a state, a match and eight scored thoughts).
func writeLargeEval(tb testing.TB, run string) {
	dir := filepath.Join(run, "eval", "valid_unseen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	types := []string{"pick_and_place_simple", "pick_clean_then_place_in_recep", "pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep", "look_at_obj_in_light", "pick_two_obj_and_place"}
	f, err := os.Create(filepath.Join(dir, "trajectories.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var summary []map[string]any
	for m := range benchMethods {
		name := fmt.Sprintf("method%02d", m)
		byType := map[string]any{}
		for _, t := range types {
			byType[t] = map[string]any{"tasks": benchTasks / len(types), "success_rate": 0.5}
		}
		summary = append(summary, map[string]any{"method": name, "tasks": benchTasks, "success_rate": 0.5, "by_type": byType, "avg_steps": 30.0})
		for i := range benchTasks {
			ep := runner.Episode{Task: envbridge.Task{ID: fmt.Sprintf("task-%03d", i), Type: types[i%len(types)], Goal: "put a clean mug in the coffee machine"},
				Opening: "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, a fridge 1 and a sinkbasin 1.", Mode: "eval"}
			for s := range benchSteps {
				r := &agent.Recall{State: "You hold nothing; the mug is on countertop 1; the sink is unexplored.", Match: "17", Similarity: 0.93}
				for k := range 8 {
					r.Items = append(r.Items, agent.RecallItem{ID: fmt.Sprint(k), Kind: "thought", Text: "go to the countertop and take the mug, then clean it in the sink",
						Scores: map[string]float64{"q": 0.5 / float64(k+1), "visits": float64(k + 3)}, Used: k == 0})
				}
				ep.Transitions = append(ep.Transitions, agent.Transition{Step: s,
					Decision: agent.Decision{Thought: "I should find the mug first.", Action: "go to countertop 1", Guided: true, Recall: r},
					Result:   envbridge.StepResult{Observation: envbridge.Observation{Text: "On the countertop 1, you see a mug 2, a knife 1 and a peppershaker 3."}}})
			}
			ep.Outcome = agent.Outcome{Won: i%2 == 0, Steps: benchSteps}
			b, err := json.Marshal(struct {
				Method string `json:"method"`
				runner.Episode
			}{name, ep})
			if err != nil {
				tb.Fatal(err)
			}
			w.Write(append(b, '\n'))
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	b, _ := json.Marshal(summary)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkWriteLarge measures writing the viewer of a household-scale
// evaluation (134 tasks x 10 methods x 50 steps).
func BenchmarkWriteLarge(b *testing.B) {
	run := b.TempDir()
	writeLargeEval(b, run)
	var st Stats
	for b.Loop() {
		var err error
		if st, err = Write(context.Background(), Options{Run: run}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Bytes)/1e6, "MB")
	b.ReportMetric(float64(st.IndexBytes)/1e3, "index-kB")
}

// BenchmarkOpenLarge opens the viewer of a household-scale evaluation in
// headless Chromium from file:// and reports, as the page measures it from
// the start of navigation, the time until the comparison, the list of all
// 1,340 episodes and one 50-step episode have rendered (ms each). The
// target is under 2 s each.
func BenchmarkOpenLarge(b *testing.B) {
	ctx, errs := browser(b)
	run := b.TempDir()
	writeLargeEval(b, run)
	if _, err := Write(context.Background(), Options{Run: run}); err != nil {
		b.Fatal(err)
	}
	index := filepath.Join(run, Dir, "index.html")
	views := []struct{ hash, view, metric string }{
		{"compare", "compare", "compare-ms"},
		{"episodes", "episodes", "episodes-ms"},
		{"episode/e700", "episode", "episode-ms"},
	}
	sum := make([]time.Duration, len(views))
	n := 0
	for b.Loop() {
		for i, v := range views {
			d, err := open(ctx, index, v.hash, v.view)
			if err != nil {
				b.Fatal(err)
			}
			sum[i] += d
		}
		n++
	}
	if e := errs(); len(e) > 0 {
		b.Fatalf("page errors: %v", e)
	}
	for i, v := range views {
		b.ReportMetric(float64(sum[i].Milliseconds())/float64(n), v.metric)
	}
}
