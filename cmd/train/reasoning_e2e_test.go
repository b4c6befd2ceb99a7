package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm"
	"github.com/samem/trainer/llm/llmtest"
)

// replyTotals sums a usage account's reply counts over every method and
// role.
func replyTotals(a app.Account) (sum llm.Stats) {
	for _, m := range a.Methods {
		for _, s := range m.ByPurpose {
			sum.Replies += s.Replies
			sum.Repaired += s.Repaired
			sum.Unusable += s.Unusable
			sum.AskedAgain += s.AskedAgain
			sum.FellBack += s.FellBack
			sum.Skipped += s.Skipped
			sum.Reasoned += s.Reasoned
			sum.ReasoningTokens += s.ReasoningTokens
		}
	}
	return sum
}

// reasoningServer is faults.Reasoning over faults.AllReplies with its
// counts: the replies of each shape, and the reasoning tokens reported.
type reasoningServer struct {
	*llmtest.Server
	shapes *faults.Shapes
	tokens atomic.Int64
}

func newReasoningServer(t *testing.T) *reasoningServer {
	s := &reasoningServer{shapes: &faults.Shapes{}}
	h := faults.Reasoning(23, faults.AllReplies(), s.shapes)
	s.Server = llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		r := h(c)
		s.tokens.Add(int64(r.ReasoningTokens))
		return r
	})
	return s
}

// checkReasoningCounts: the account of a phase says what the server did in
// it: every chat reply counted once by the role that asked; those with
// reasoning (every shape but the plain one) counted as such; those cut off
// or empty (the four unusable shapes) counted unusable, and nothing else;
// and the reasoning tokens the server reported counted apart.
func checkReasoningCounts(t *testing.T, what string, a app.Account, chats int, shapes []int, tokens int64) {
	t.Helper()
	sum := replyTotals(a)
	plain := shapes[len(shapes)-1]
	unusable := shapes[7] + shapes[8] + shapes[9] + shapes[10]
	t.Logf("%s: %d chats in shapes %v; account: %+v", what, chats, shapes, sum)
	if sum.Replies != int64(chats) || sum.Reasoned != int64(chats-plain) || sum.Unusable != int64(unusable) {
		t.Errorf("%s: %d replies, %d with reasoning, %d unusable; the server gave %d, %d and %d", what,
			sum.Replies, sum.Reasoned, sum.Unusable, chats, chats-plain, unusable)
	}
	if sum.AskedAgain == 0 || sum.AskedAgain+sum.FellBack+sum.Skipped != sum.Unusable {
		t.Errorf("%s: unusable replies %d: %d asked again, %d fell back, %d skipped", what, sum.Unusable, sum.AskedAgain, sum.FellBack, sum.Skipped)
	}
	if a.Run.Total.ReasoningTokens != tokens || tokens == 0 {
		t.Errorf("%s: %d reasoning tokens counted, the server reported %d", what, a.Run.Total.ReasoningTokens, tokens)
	}
	for name, m := range a.Methods {
		for role, s := range m.ByPurpose {
			if s.Replies > 0 && s.Reasoned == 0 {
				t.Errorf("%s %s %s: %d replies, none counted with reasoning", what, name, role, s.Replies)
			}
		}
	}
}

// scanReasoning fails the test for every text of the run that holds the
// reasoning's mark: the checkpoints of every method (their Parquet columns
// read value by value), the records and the summaries.
func scanReasoning(t *testing.T, run string) {
	t.Helper()
	s, err := faults.ScanTexts(run, nil, faults.HasReasoning)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scanned %d files of %s, %d texts of Parquet files", s.Files, run, s.Values)
	for _, h := range s.Hits {
		t.Errorf("reasoning in the run: %.300s", h)
	}
	if s.Values == 0 {
		t.Error("no text was scanned")
	}
}

// TestReasoningRepliesAllMethods: `train -method all` (and reflexion, whose
// reflections are saved, and CLIN's advice and GEN-TASK variants, whose
// memory generators have roles of their own) and `eval -method all` through
// the built commands
// and llm/openai against a local server that answers as reasoning models
// do, in every shape of faults.ReasoningShapes at random (fixed seed):
// think tags closed, open or with only their end, the reasoning_content,
// reasoning and thinking fields, harmony channels, replies cut off while
// reasoning or in the answer, and replies with nothing but reasoning. Both
// exit 0; the reply counts say what happened (checkReasoningCounts);
// reasoning tokens are counted apart in the usage account and
// summary.json; and no file of the run holds any of the reasoning.
func TestReasoningRepliesAllMethods(t *testing.T) {
	train, eval := binary(t, "train"), binary(t, "eval")
	srv := newReasoningServer(t)
	run := filepath.Join(t.TempDir(), "run")
	// -memstream-carry: one stream over the training episodes, so that the
	// stream reflects (its questions and insights roles) in these short runs.
	// -workers 1: a reply's shape follows from its request's bytes, and with
	// one worker those bytes are the same on every run, so the per-role
	// check (a role whose only reply came plain would count no reasoning)
	// gives the same verdict every time; with two, shared memories make
	// the requests depend on which episode ran first.
	model := []string{"-run", run, "-llm", "openai", "-chat-model", "reasoner", "-embed-model", "emb", "-embed-dim", "32",
		"-send-dimensions", "-chat-url", srv.URL, "-cache", "off", "-memstream-carry", "-workers", "1"}
	out, err := exec.Command(train, append(model, "-method", "all,reflexion,clin-advice,clin-gen-task", "-iterations", "1", "-per-type", "1", "-max-steps", "4")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("train: %v\n%s", err, out)
	}
	shapes := srv.shapes.Counts()
	for i, n := range shapes {
		if n == 0 {
			t.Errorf("train: no reply in the shape %q", faults.ReasoningShapes[i])
		}
	}
	tr := readUsage(t, filepath.Join(run, app.TrainUsageFile))
	if got := tr.Run.Total.Requests; got != int64(srv.Requests()) {
		t.Errorf("train usage: %d requests, the server saw %d", got, srv.Requests())
	}
	checkReasoningCounts(t, "train", tr, srv.ChatRequests(), shapes, srv.tokens.Load())
	for _, m := range append(app.MainMethods(false), "reflexion") {
		if _, ok := tr.Methods[m]; !ok {
			t.Errorf("train usage has no account for %s", m)
		}
	}
	if !strings.Contains(string(out), "reasoning taken out") || !strings.Contains(string(out), "reasoning)") {
		t.Errorf("train's usage lines do not mention the reasoning:\n%s", out)
	}
	scanReasoning(t, run)

	chats, before, tokens := srv.ChatRequests(), srv.shapes.Counts(), srv.tokens.Load()
	out, err = exec.Command(eval, append(model, "-method", "all", "-tasks", "3")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	after := srv.shapes.Counts()
	for i := range after {
		after[i] -= before[i]
	}
	evalDir := filepath.Join(run, "eval", app.EvalName("valid_unseen", []string{"tasks=3"}))
	ev := readUsage(t, filepath.Join(evalDir, app.EvalUsageFile))
	checkReasoningCounts(t, "eval", ev, srv.ChatRequests()-chats, after, srv.tokens.Load()-tokens)
	b, err := os.ReadFile(filepath.Join(evalDir, app.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var results []app.EvalResult
	if err := json.Unmarshal(b, &results); err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Errors != 0 || r.ReasoningTokens == 0 || r.ReasoningTokens != r.Usage.Total.ReasoningTokens {
			t.Errorf("summary.json: %s: %d errored episodes, %d reasoning tokens (usage %d)", r.Method, r.Errors, r.ReasoningTokens, r.Usage.Total.ReasoningTokens)
		}
	}
	if len(results) < len(app.MainMethods(false)) {
		t.Errorf("summary.json has %d methods", len(results))
	}
	scanReasoning(t, run)
}

// TestStructuredOnAllMethods: `-structured on` against a server that
// enforces response_format json_schema (strict) and refuses any chat
// without it: every role of every method (the baselines and CLIN's
// variants included) sends its schema and reads the JSON answer, train and
// eval exit 0, and no reply of any role is repaired or unusable. SAMem's
// checker is not reached in one short iteration; its schema is checked by
// forget's own tests.
func TestStructuredOnAllMethods(t *testing.T) {
	train, eval := binary(t, "train"), binary(t, "eval")
	srv := llmtest.NewServer(t, faults.Structured())
	run := filepath.Join(t.TempDir(), "run")
	// -memstream-carry: one stream over the training episodes, so that the
	// stream reflects (its questions and insights roles) in these short runs.
	model := []string{"-run", run, "-llm", "openai", "-chat-model", "strict", "-embed-model", "emb", "-embed-dim", "32",
		"-send-dimensions", "-chat-url", srv.URL, "-cache", "off", "-memstream-carry", "-workers", "2", "-structured", "on"}
	out, err := exec.Command(train, append(model, "-method", "all,reflexion,clin-advice,clin-gen-task", "-iterations", "1", "-per-type", "1", "-max-steps", "4")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("train: %v\n%s", err, out)
	}
	out, err = exec.Command(eval, append(model, "-method", "all", "-tasks", "3")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	tr := readUsage(t, filepath.Join(run, app.TrainUsageFile))
	ev := readUsage(t, filepath.Join(run, "eval", app.EvalName("valid_unseen", []string{"tasks=3"}), app.EvalUsageFile))
	roles := map[string]bool{}
	for what, a := range map[string]app.Account{"train": tr, "eval": ev} {
		for name, m := range a.Methods {
			for role, s := range m.ByPurpose {
				if s.Replies == 0 {
					continue
				}
				roles[role] = true
				t.Logf("%s %s %s: %d replies, %d repaired, %d unusable", what, name, role, s.Replies, s.Repaired, s.Unusable)
				if s.Repaired != 0 || s.Unusable != 0 {
					t.Errorf("%s %s %s: %d replies, %d repaired, %d unusable; want none repaired or unusable", what, name, role, s.Replies, s.Repaired, s.Unusable)
				}
			}
		}
	}
	for _, r := range []string{"summarize", "think", "act", "clin.controller", "clin.memory", "arigraph.decide", "arigraph.plan",
		"arigraph.explore", "arigraph.extract", "arigraph.replace", "memstream.importance", "memstream.questions", "memstream.insights",
		"memstream.plan", "memstream.decide", "kgplan.update", "kgplan.goal", "kgplan.entities", "reflexion.reflect", "reflexion.act",
		"summary.update", "summary.plan", "summary.decide", "fullhistory.plan", "fullhistory.decide", "clin.advice", "clin.meta_advice", "clin.meta_memory_task", "clin.select"} {
		if !roles[r] {
			t.Errorf("role %s parsed no reply", r)
		}
	}
	if n := srv.ChatRequests(); n == 0 {
		t.Error("no chat reached the server")
	}
}

// TestStructuredAutoTurnsOff: with -structured auto (the default), a server
// that refuses response_format is noted once in the log and read as text:
// the run exits 0; with -structured on the refusal stops it (exit 1), naming
// response_format.
func TestStructuredAutoTurnsOff(t *testing.T) {
	train := binary(t, "train")
	samem := faults.SAMemReplies()
	srv := llmtest.NewServer(t, func(c llmtest.Call) llmtest.Reply {
		if c.Chat != nil && len(c.Chat.ResponseFormat) > 0 {
			return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusBadRequest, Message: "Unrecognized request argument supplied: response_format"}}
		}
		return samem(c)
	})
	args := func(run string, more ...string) []string {
		return append([]string{"-run", run, "-llm", "openai", "-chat-model", "old", "-embed-model", "emb", "-embed-dim", "32",
			"-send-dimensions", "-chat-url", srv.URL, "-cache", "off", "-workers", "2", "-iterations", "1", "-per-type", "1", "-max-steps", "2"}, more...)
	}
	out, err := exec.Command(train, args(filepath.Join(t.TempDir(), "auto"))...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("train, auto: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "structured outputs are off for it"); n != 1 {
		t.Errorf("auto: the server was noted %d times, want once:\n%s", n, out)
	}
	out, err = exec.Command(train, args(filepath.Join(t.TempDir(), "on"), "-structured", "on")...).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(out), "response_format") {
		t.Errorf("train, on: %v, want exit 1 naming response_format\n%s", err, out)
	}
}
