package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/forget"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/summarize"
	"github.com/samem/trainer/thought"
)

// decorate answers as SAMemReplies does, wrapped the way chat models often
// wrap an answer, in turn by arrival: fences with and without a language
// tag, a preamble and a closing remark, bold labels with a quoted action
// and a trailing full stop, a quoted summary, lower case labels; and fails
// every 9th call with a 500 and every 13th with a 429.
func decorate(h llmtest.Handler) llmtest.Handler {
	return func(c llmtest.Call) llmtest.Reply {
		switch {
		case c.N%13 == 0:
			return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "0"}}
		case c.N%9 == 0:
			return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusInternalServerError}}
		}
		r := h(c)
		if c.Chat == nil || r.Fault != (llmtest.Fault{}) {
			return r
		}
		r.Text = shape(r.Text, c.N)
		return r
	}
}

// shape is the k-th of decorate's six shapes of t (k modulo 6; 5 leaves t
// as it is).
func shape(t string, k int) string {
	switch k % 6 {
	case 0:
		t = "```\n" + t + "\n```"
	case 1:
		t = "```json\n" + t + "\n```"
	case 2:
		t = "Sure! Here is my answer.\n" + t + "\nLet me know if you need anything else."
	case 3:
		if i := strings.Index(t, "Action: "); i >= 0 {
			t = strings.Replace(t[:i], "Thought:", "**Thought:**", 1) + "**Action:** \"" + t[i+len("Action: "):] + ".\""
		} else if strings.HasPrefix(t, "is_valid") {
			t = "**is_valid**: True"
		} else {
			t = "\"" + t + "\""
		}
	case 4:
		t = strings.NewReplacer("Thought:", "thought:", "Action:", "action:", "is_valid: True", "IS_VALID: true").Replace(t)
	}
	return t
}

func readUsage(t *testing.T, path string) app.Account {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("usage: %v", err)
	}
	var a app.Account
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return a
}

// checkTrainUsage: the training account counts every request the server
// saw (served), and the injected faults were retried, none left failed.
func checkTrainUsage(t *testing.T, tr app.Account, served int) {
	t.Helper()
	t.Logf("train: server saw %d requests; account: %d requests, %d answered, %d retries, %d failures", served, tr.Run.Total.Requests, tr.Run.Total.Calls, tr.Run.Total.Retries, tr.Run.Total.Errors)
	if got := tr.Run.Total.Requests; got != int64(served) {
		t.Errorf("train usage: %d requests, the server saw %d", got, served)
	}
	if tr.Run.Total.Retries == 0 || tr.Run.Total.Errors != 0 {
		t.Errorf("train usage: %d retries %d failures; want the injected faults retried", tr.Run.Total.Retries, tr.Run.Total.Errors)
	}
}

// checkEvalUsage: the evaluation account counts every request the server
// saw during it (served), and its methods' requests add up to the run's.
func checkEvalUsage(t *testing.T, ev app.Account, served int) {
	t.Helper()
	t.Logf("eval: server saw %d requests; account: %d requests, %d retries", served, ev.Run.Total.Requests, ev.Run.Total.Retries)
	if got := ev.Run.Total.Requests; got != int64(served) {
		t.Errorf("eval usage: %d requests, the server saw %d", got, served)
	}
	var sum int64
	for _, m := range ev.Methods {
		sum += m.Total.Requests
	}
	if sum != ev.Run.Total.Requests {
		t.Errorf("eval: the methods' requests add up to %d, the run's are %d", sum, ev.Run.Total.Requests)
	}
}

// TestDecoratedRepliesEndToEnd: train and eval through the
// built commands and llm/openai against a local server that answers in the
// decorated shapes real chat models produce and fails at a set rate. The
// exit codes, usage equal to the server's own request count, a fallback
// share under 5 % for every role, and no decoration in any memory.
// Covered: SAMem's roles (summarize, think, check) and the no-memory
// baseline; the server has no replies for the other methods' prompts.
func TestDecoratedRepliesEndToEnd(t *testing.T) {
	train, eval := binary(t, "train"), binary(t, "eval")
	srv := llmtest.NewServer(t, decorate(faults.SAMemReplies()))
	run := filepath.Join(t.TempDir(), "run")
	model := []string{"-run", run, "-llm", "openai", "-chat-model", "deco-chat", "-embed-model", "deco-embed", "-embed-dim", "32",
		"-send-dimensions", "-chat-url", srv.URL, "-retries", "5", "-cache", "off", "-workers", "2"}
	out, err := exec.Command(train, append(model, "-method", "samem", "-iterations", "2", "-per-type", "1", "-max-steps", "6")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("train: %v\n%s", err, out)
	}
	tr := readUsage(t, filepath.Join(run, app.TrainUsageFile))
	checkTrainUsage(t, tr, srv.Requests())
	checkRoles(t, "train", tr)

	// No decoration became memory.
	dir, meta, err := faults.LatestCheckpoint(t.Context(), filepath.Join(run, "samem"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := checkpoints.LoadSAMem(t.Context(), filepath.Join(dir, "samem"), int(meta.EmbedDim))
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range [][]checkpoints.ClusterRow{st.States, st.Thoughts} {
		for _, r := range rows {
			if strings.ContainsAny(r.Text, "`*\"") || strings.Contains(r.Text, "Sure") || strings.Contains(r.Text, "Let me know") || strings.HasPrefix(r.Text, "json") {
				t.Errorf("decoration in memory: %q", r.Text)
			}
		}
	}

	before := srv.Requests()
	out, err = exec.Command(eval, append(model, "-method", "samem,nomemory", "-tasks", "3")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	// An evaluation of the first 3 tasks has its own directory, named by
	// the setting that differs from training's config.json.
	evalDir := filepath.Join(run, "eval", app.EvalName("valid_unseen", []string{"tasks=3"}))
	ev := readUsage(t, filepath.Join(evalDir, app.EvalUsageFile))
	checkEvalUsage(t, ev, srv.Requests()-before)
	checkRoles(t, "eval", ev)

	// The model goes away (404: a wrong path): every episode errors; eval
	// exits 1 and keeps the complete results; -max-errors tolerates them.
	summary := filepath.Join(evalDir, app.SummaryFile)
	good, _ := os.ReadFile(summary)
	srv.SetHandler(llmtest.Always(llmtest.Fault{Status: http.StatusNotFound, Message: "no such path"}))
	out, err = exec.Command(eval, append(model, "-method", "nomemory", "-tasks", "3")...).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(out), "episodes ended in an error") || !strings.Contains(string(out), "model usage") {
		t.Errorf("eval against a dead model: %v, want exit 1 naming the errored episodes and printing usage\n%s", err, out)
	}
	if now, _ := os.ReadFile(summary); string(now) != string(good) {
		t.Error("the failed eval replaced the complete results")
	}
	out, err = exec.Command(eval, append(model, "-method", "nomemory", "-tasks", "3", "-max-errors", "3")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Errorf("eval -max-errors 3: %v, want exit 0\n%s", err, out)
	}
}

// checkRoles: every role that parsed replies used at least 95 % of them.
func checkRoles(t *testing.T, what string, a app.Account) {
	t.Helper()
	seen := 0
	for name, m := range a.Methods {
		for role, s := range m.ByPurpose {
			if s.Replies == 0 {
				continue
			}
			seen++
			t.Logf("%s %s %s: %d replies, %d repaired, %d unusable (%d asked again, %d fell back, %d skipped), fallback %.1f%%",
				what, name, role, s.Replies, s.Repaired, s.Unusable, s.AskedAgain, s.FellBack, s.Skipped, 100*s.FallbackShare())
			if s.FallbackShare() >= 0.05 || float64(s.Unusable) >= 0.05*float64(s.Replies) {
				t.Errorf("%s %s %s: %d replies, %d unusable (%d asked again, %d fell back, %d skipped)", what, name, role, s.Replies, s.Unusable, s.AskedAgain, s.FellBack, s.Skipped)
			}
			if s.Repaired == 0 {
				t.Errorf("%s %s %s: no reply counted as repaired though most were decorated", what, name, role)
			}
		}
	}
	if seen == 0 {
		t.Errorf("%s: no role counted any reply", what)
	}
}

// TestDecorationShapesParse: every one of decorate's shapes of every reply
// SAMemReplies gives is read back without decoration by the role's parser,
// whatever call number it lands on. The end-to-end test above meets only
// the shapes the arrival order gives it (two workers), so a gap there shows
// up only now and then (a CI finding: a thought-only reply quoted whole kept
// its closing quote); this one meets all of them every run.
func TestDecorationShapesParse(t *testing.T) {
	const th, act = "look around, then go where the task's objects usually are.", "go to drawer 1"
	clean := func(s string) bool {
		return !strings.ContainsAny(s, "`*\"") && !strings.Contains(s, "Sure") && !strings.Contains(s, "Let me know") && !strings.HasPrefix(s, "json")
	}
	for k := range 6 {
		for _, in := range []string{"Thought: " + th + "\nAction: " + act, "Thought: " + th} {
			gotTh, gotAct, err := thought.ParseReply(shape(in, k))
			if err != nil || gotTh != th || !clean(gotTh) || (strings.Contains(in, "Action") && gotAct != act) {
				t.Errorf("shape %d of %q: thought %q action %q %v", k, in, gotTh, gotAct, err)
			}
		}
		if _, gotAct, err := thought.ParseReply(shape("Action: "+act, k)); err != nil || gotAct != act {
			t.Errorf("shape %d of the action call: %q %v", k, gotAct, err)
		}
		const state = "The agent is at You are in the middle."
		if got, err := summarize.ParseReply(shape(state, k)); err != nil || got != state {
			t.Errorf("shape %d of a summary: %q %v", k, got, err)
		}
		if ok, err := forget.ParseVerdict(shape("is_valid: True", k)); err != nil || !ok {
			t.Errorf("shape %d of a verdict: %v %v", k, ok, err)
		}
	}
}
