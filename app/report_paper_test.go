package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/report"
)

// Fig. 8's training tokens come from the run's training account; a method
// the account does not hold has none, and a run without one is no error.
func TestFillTrainTokens(t *testing.T) {
	run := t.TempDir()
	ms := []report.Method{{Name: "memrl"}, {Name: "samem"}}
	if err := fillTrainTokens(run, ms); err != nil || ms[0].TrainTokens != nil {
		t.Fatalf("no account: %v, %v", err, ms[0].TrainTokens)
	}
	acc := Account{Command: "train", Methods: map[string]llm.Report{"memrl": {Total: llm.Stats{PromptTokens: 100, CompletionTokens: 20, CachedTokens: 5}}}}
	if err := writeJSON(filepath.Join(run, TrainUsageFile), acc); err != nil {
		t.Fatal(err)
	}
	if err := fillTrainTokens(run, ms); err != nil {
		t.Fatal(err)
	}
	if ms[0].TrainTokens == nil || *ms[0].TrainTokens != 125 || ms[1].TrainTokens != nil {
		t.Errorf("training tokens %v, %v; want 125 for memrl and none for samem", ms[0].TrainTokens, ms[1].TrainTokens)
	}
	if err := os.WriteFile(filepath.Join(run, TrainUsageFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fillTrainTokens(run, ms); err == nil {
		t.Error("a damaged training account was read without error")
	}
}
