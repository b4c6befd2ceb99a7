package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
)

// TestTemperatureReachesEveryMethod: -temperature 0.7 given to the built
// train and eval commands is the temperature of the model requests of
// every method, as a test server records them: CLIN's controller first
// (its settings once went through a copy of its Config that dropped the
// temperature), then every other role, except the roles that always ask
// at 0 (SAMem's summariser and forgetting checker, Reflexion's
// reflection, the summary baseline's update), which must still ask at 0.
func TestTemperatureReachesEveryMethod(t *testing.T) {
	train, eval := binary(t, "train"), binary(t, "eval")
	srv := llmtest.NewServer(t, faults.AllReplies())
	run := filepath.Join(t.TempDir(), "run")
	model := []string{"-run", run, "-llm", "openai", "-chat-model", "temp-chat", "-embed-model", "temp-embed", "-embed-dim", "32",
		"-send-dimensions", "-chat-url", srv.URL, "-cache", "off", "-workers", "2", "-temperature", "0.7"}
	out, err := exec.Command(train, append(model, "-method", "samem,clin,arigraph,memstream,kgplan,reflexion",
		"-iterations", "1", "-per-type", "1", "-max-steps", "4")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("train: %v\n%s", err, out)
	}
	out, err = exec.Command(eval, append(model, "-method", "fullhistory,summary,nomemory", "-tasks", "2")...).CombinedOutput()
	if exitCode(err) != 0 {
		t.Fatalf("eval: %v\n%s", err, out)
	}

	// Roles whose requests are told apart by their prompts.
	type role struct {
		name, marker string
		system       bool    // the marker is in the system message
		want         float64 // the temperature the role must send
		optional     bool    // the run may not need the role
		seen         int
	}
	roles := []*role{
		{name: "samem summariser", marker: "You summarise the situation", system: true, want: 0},
		{name: "samem forgetting checker", marker: "is_valid:", want: 0, optional: true}, // one iteration rarely forgets
		{name: "reflexion reflection", marker: "You review an attempt", system: true, want: 0},
		{name: "summary update", marker: "You keep a running summary", system: true, want: 0},
		{name: "clin controller", marker: "I used learning id(s):", want: 0.7},
		{name: "clin memory generator", marker: "Summary of learning as a numbered list:", want: 0.7},
		{name: "arigraph extraction", marker: "Extracted triplets:", want: 0.7},
		{name: "memstream importance", marker: "scale from 1 to 10", want: 0.7},
		{name: "kgplan goal", marker: "Provide only the (:goal ...) block", want: 0.7},
		{name: "thinker or actor", marker: "Thought:", system: true, want: 0.7},
	}
	chats := 0
	for _, c := range srv.Calls() {
		if c.Chat == nil {
			continue
		}
		chats++
		var r *role
		for _, x := range roles {
			text := c.Chat.Prompt()
			if x.system {
				text = c.Chat.System()
			}
			if strings.Contains(text, x.marker) {
				r = x
				break
			}
		}
		want, name := 0.7, "another role"
		if r != nil {
			r.seen++
			want, name = r.want, r.name
		}
		if c.Chat.Temperature == nil || *c.Chat.Temperature != want {
			got := "none"
			if c.Chat.Temperature != nil {
				got = fmt.Sprint(*c.Chat.Temperature)
			}
			t.Errorf("%s: request %d sent temperature %s, want %v; prompt %.160q", name, c.N, got, want, c.Chat.Prompt())
		}
	}
	for _, r := range roles {
		if r.seen == 0 && !r.optional {
			t.Errorf("%s: no request seen; the test no longer covers it", r.name)
		}
	}
	t.Logf("%d chat requests checked", chats)
}
