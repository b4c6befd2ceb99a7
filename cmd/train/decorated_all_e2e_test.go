package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/samem/trainer/app"
	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/clin"
	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
	"github.com/samem/trainer/memstream"
)

// decorateByRole is decorate with the shape chosen by the role's own
// count of answered chats rather than by arrival, so that what a role sees
// does not depend on how the two workers interleave: the first answer of
// every role is fenced with a language tag (shape 1), its next ones take
// the other shapes in turn. A role is told by the first 48 bytes of its
// prompt (the templates open with fixed text). Faults are by arrival, as
// in decorate: every 9th call a 500 and every 13th a 429.
func decorateByRole(h llmtest.Handler) llmtest.Handler {
	var mu sync.Mutex
	seen := map[string]int{}
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
		key := c.Chat.Prompt()
		key = key[:min(len(key), 48)]
		mu.Lock()
		seen[key]++
		k := seen[key]
		mu.Unlock()
		r.Text = shape(r.Text, k)
		return r
	}
}

// decorated reports whether a memory text carries a reply's decoration:
// a fence, bold marks, quotes, a chat preamble or closing remark, or a
// fence's language tag.
func decorated(s string) bool {
	return strings.ContainsAny(s, "`*\"") || strings.Contains(s, "Sure") || strings.Contains(s, "Let me know") ||
		strings.HasPrefix(s, "json") || strings.TrimSpace(s) == ""
}

// TestDecoratedRepliesAllMethods: `train -method all` and
// `eval -method all` through the built commands and llm/openai against a
// local server that answers every method's roles (faults.AllReplies) in the
// decorated shapes of decorate, by role (decorateByRole), and fails every
// 9th and 13th call. It checks
// the exit codes, usage equal to the server's request counts, a fallback
// share under 5 % for every role that parsed replies, that every method
// was trained and evaluated, no decoration in SAMem's states and thoughts,
// the memory stream's memories or CLIN's abstractions, and exit 1 when the
// model goes away.
func TestDecoratedRepliesAllMethods(t *testing.T) {
	train, eval := binary(t, "train"), binary(t, "eval")
	srv := llmtest.NewServer(t, decorateByRole(faults.AllReplies()))
	run := filepath.Join(t.TempDir(), "run")
	// -memstream-carry: one stream over the training episodes, so that the
	// stream reflects (its questions and insights roles) in these short runs.
	model := []string{"-run", run, "-llm", "openai", "-chat-model", "deco-chat", "-embed-model", "deco-embed", "-embed-dim", "32",
		"-send-dimensions", "-chat-url", srv.URL, "-retries", "5", "-cache", "off", "-memstream-carry", "-workers", "2"}
	out, err := exec.Command(train, append(model, "-method", "all", "-iterations", "1", "-per-type", "1", "-max-steps", "4")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("train: %v\n%s", err, out)
	}
	tr := readUsage(t, filepath.Join(run, app.TrainUsageFile))
	checkTrainUsage(t, tr, srv.Requests())
	for _, m := range app.MainMethods(false) {
		if _, ok := tr.Methods[m]; !ok {
			t.Errorf("train usage has no account for %s", m)
		}
	}
	checkRoles(t, "train", tr)
	// Every counting role of every method was reached.
	for m, roles := range map[string][]string{
		"samem":     {"summarize", "act"},
		"clin":      {"clin.controller", "clin.memory"},
		"arigraph":  {"arigraph.decide", "arigraph.plan", "arigraph.explore", "arigraph.extract", "arigraph.replace"},
		"memstream": {"memstream.importance", "memstream.questions", "memstream.insights", "memstream.plan", "memstream.decide"},
		"kgplan":    {"kgplan.update", "kgplan.goal", "kgplan.entities"},
	} {
		for _, r := range roles {
			if tr.Methods[m].ByPurpose[r].Replies == 0 {
				t.Errorf("train: %s's role %s parsed no reply", m, r)
			}
		}
	}

	// No decoration became memory.
	dir, meta, err := faults.LatestCheckpoint(t.Context(), filepath.Join(run, "samem"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := checkpoints.LoadSAMem(t.Context(), filepath.Join(dir, "samem"), int(meta.EmbedDim))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rows := range [][]checkpoints.ClusterRow{st.States, st.Thoughts} {
		for _, r := range rows {
			n++
			if decorated(r.Text) {
				t.Errorf("decoration in SAMem's memory: %q", r.Text)
			}
		}
	}
	dir, _, err = faults.LatestCheckpoint(t.Context(), filepath.Join(run, "memstream"))
	if err != nil {
		t.Fatal(err)
	}
	mems, err := checkpoints.ReadFile[memstream.Memory](t.Context(), filepath.Join(dir, "memstream", "memstream_memories.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, m := range mems {
		kinds[m.Kind]++
		if decorated(m.Text) {
			t.Errorf("decoration in the memory stream: %s %q", m.Kind, m.Text)
		}
	}
	dir, _, err = faults.LatestCheckpoint(t.Context(), filepath.Join(run, "clin"))
	if err != nil {
		t.Fatal(err)
	}
	items, err := checkpoints.ReadFile[clin.ItemRow](t.Context(), filepath.Join(dir, "clin", clin.ItemsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if decorated(it.Text) || decorated(it.X) || decorated(it.Y) {
			t.Errorf("decoration in CLIN's memory: %q", it.Text)
		}
	}
	t.Logf("checked %d SAMem rows, %d memory-stream memories %v, %d CLIN abstractions", n, len(mems), kinds, len(items))
	if n == 0 || kinds[memstream.KindReflection] == 0 || len(items) == 0 {
		t.Errorf("nothing to check: %d SAMem rows, %d reflections, %d CLIN abstractions", n, kinds[memstream.KindReflection], len(items))
	}

	before := srv.Requests()
	out, err = exec.Command(eval, append(model, "-method", "all", "-tasks", "3")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	evalDir := filepath.Join(run, "eval", app.EvalName("valid_unseen", []string{"tasks=3"}))
	ev := readUsage(t, filepath.Join(evalDir, app.EvalUsageFile))
	checkEvalUsage(t, ev, srv.Requests()-before)
	for _, m := range append(app.MainMethods(false), "reflexion", "summary", "fullhistory", "nomemory") {
		if a, ok := ev.Methods[m]; !ok || a.Total.Requests == 0 {
			t.Errorf("eval usage: %s made no requests", m)
		}
	}
	checkRoles(t, "eval", ev)

	// The model goes away: every episode errors and eval exits 1.
	summary := filepath.Join(evalDir, app.SummaryFile)
	good, _ := os.ReadFile(summary)
	srv.SetHandler(llmtest.Always(llmtest.Fault{Status: http.StatusNotFound, Message: "no such path"}))
	out, err = exec.Command(eval, append(model, "-method", "nomemory", "-tasks", "3")...).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(out), "episodes ended in an error") {
		t.Errorf("eval against a dead model: %v, want exit 1 naming the errored episodes\n%s", err, out)
	}
	if now, _ := os.ReadFile(summary); string(now) != string(good) {
		t.Error("the failed eval replaced the complete results")
	}
}
