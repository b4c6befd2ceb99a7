package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
)

// TestDecoratedRepliesCLINVariants: CLIN's settings of seed 004 Table 2
// and its advice ablation (clin-ga, clin-gen-task, clin-advice) trained and
// evaluated through the built commands against faults.AllReplies in
// decorated shapes with injected faults, as TestDecoratedRepliesAllMethods
// does for -method all. Every new prompt is answered and counted under its
// own purpose (advice, GEN-TASK meta-memory, the memory adapted between G+A
// trials), under 5 % fallback; clin-advice's saved memory is advice without
// decoration; clin-ga's summary counts its trials apart from its tasks.
func TestDecoratedRepliesCLINVariants(t *testing.T) {
	train, eval := binary(t, "train"), binary(t, "eval")
	srv := llmtest.NewServer(t, decorateByRole(faults.AllReplies()))
	run := filepath.Join(t.TempDir(), "run")
	model := []string{"-run", run, "-llm", "openai", "-chat-model", "deco-chat", "-embed-model", "deco-embed", "-embed-dim", "32",
		"-send-dimensions", "-chat-url", srv.URL, "-retries", "5", "-cache", "off", "-workers", "2"}
	variants := app.CLINGAName + "," + app.CLINGenTaskName + "," + app.CLINAdviceName
	out, err := exec.Command(train, append(model, "-method", variants, "-iterations", "1", "-per-type", "1", "-max-steps", "4")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("train: %v\n%s", err, out)
	}
	tr := readUsage(t, filepath.Join(run, app.TrainUsageFile))
	checkRoles(t, "train", tr)
	if s := tr.Methods[app.CLINAdviceName].ByPurpose[clin.PurposeAdvice]; s.Replies == 0 {
		t.Errorf("train: %s's advice generator parsed no reply", app.CLINAdviceName)
	}
	if s := tr.Methods[app.CLINAdviceName].ByPurpose[clin.PurposeAdapt]; s.Replies != 0 {
		t.Errorf("train: %s asked for causal abstractions %d times", app.CLINAdviceName, s.Replies)
	}
	dir, _, err := faults.LatestCheckpoint(t.Context(), filepath.Join(run, app.CLINAdviceName))
	if err != nil {
		t.Fatal(err)
	}
	items, err := checkpoints.ReadFile[clin.ItemRow](t.Context(), filepath.Join(dir, app.CLINAdviceName, clin.ItemsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) == 0 {
		t.Fatal("clin-advice saved no memory")
	}
	for _, it := range items {
		if it.Kind != string(clin.Advice) || decorated(it.Text) {
			t.Errorf("clin-advice memory item %s %q: want undecorated advice", it.Kind, it.Text)
		}
	}

	out, err = exec.Command(eval, append(model, "-method", variants, "-tasks", "3")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	evalDir := filepath.Join(run, "eval", app.EvalName("valid_unseen", []string{"tasks=3"}))
	ev := readUsage(t, filepath.Join(evalDir, app.EvalUsageFile))
	checkRoles(t, "eval", ev)
	for _, want := range []struct{ method, purpose string }{
		{app.CLINGAName, clin.PurposeMeta},
		{app.CLINGAName, clin.PurposeAdapt}, // adapted between G+A trials
		{app.CLINGenTaskName, clin.PurposeMetaTask},
		{app.CLINAdviceName, clin.PurposeMetaAdvice},
	} {
		if s := ev.Methods[want.method].ByPurpose[want.purpose]; s.Replies == 0 {
			t.Errorf("eval: %s's role %s parsed no reply", want.method, want.purpose)
		}
	}
	b, err := os.ReadFile(filepath.Join(evalDir, app.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var res []app.EvalResult
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		switch r.Method {
		case app.CLINGAName, app.CLINGenTaskName:
			if r.Adapt == nil || r.Tasks != 3 || r.Adapt.FirstTrial.Tasks != 3 || r.Adapt.Episodes < r.Tasks || r.Adapt.MaxTrials != clin.DefaultTrials {
				t.Errorf("%s summary: %d tasks, adapt %+v; want 3 tasks, their first trials and every trial counted", r.Method, r.Tasks, r.Adapt)
			}
		case app.CLINAdviceName:
			if r.Adapt != nil {
				t.Errorf("%s plays each task once, has adapt %+v", r.Method, r.Adapt)
			}
		}
	}
	if len(res) != 3 {
		t.Errorf("summary has %d methods, want 3", len(res))
	}
}
