package main

import (
	"bytes"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/internal/faults"
	"github.com/samem/trainer/llm/llmtest"
)

const canary = "sk-canary-7f3c9e1d2b4a6f8e0c1d3b5a7e9f1c2d"

// grepTree fails the test for every file under root that contains s.
func grepTree(t *testing.T, root, s string) {
	t.Helper()
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		b, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("read %s: %v", p, err)
			return nil
		}
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("%s contains the API key", p)
		}
		return nil
	})
	if n == 0 {
		t.Errorf("no file under %s to check", root)
	}
}

// TestCanaryKeyNeverLeaks runs train and eval against a local server that
// requires a canary API key, on a JSON-lines environment whose processes
// dump their environment. The key must reach the server (so the test can
// fail) and appear nowhere else: not in stdout or stderr, not in any file of
// the run directory (configuration, checkpoints, response cache, results,
// trajectories), not in a child process's environment. Nothing is written
// outside the run directory. A server that echoes the key in an error
// message does not leak it either.
func TestCanaryKeyNeverLeaks(t *testing.T) {
	train, eval := binary(t, "train"), binary(t, "eval")
	srv := llmtest.NewServer(t, llmtest.RequireKey(canary, faults.SAMemReplies()))
	work := t.TempDir() // the commands' working directory
	dump := filepath.Join(t.TempDir(), "child-env")
	envCmd := strings.Join(faults.EnvCommand(faults.EnvOptions{Tasks: []string{"ok-2", "ok-3"}, EnvDump: dump}), " ")
	args := []string{"-run", "run", "-env", "jsonl", "-env-cmd", envCmd, "-llm", "openai",
		"-chat-model", "canary-chat", "-embed-model", "canary-embed", "-embed-dim", "16", "-send-dimensions",
		"-chat-url", srv.URL, "-workers", "1", "-retries", "1"}
	env := append(os.Environ(), "OPENAI_API_KEY="+canary)
	runCmd := func(bin string, extra ...string) (string, error) {
		cmd := exec.Command(bin, append(append([]string(nil), args...), extra...)...)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	var outputs []string
	out, err := runCmd(train, "-iterations", "2", "-per-type", "0")
	if err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	outputs = append(outputs, out)
	out, err = runCmd(eval)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	outputs = append(outputs, out)

	authorized := 0
	for _, c := range srv.Calls() {
		if c.Header.Get("Authorization") == "Bearer "+canary {
			authorized++
		}
	}
	if authorized == 0 {
		t.Fatal("the key never reached the server: the test proves nothing")
	}

	// A server that echoes the key back in its error message.
	srv.SetHandler(func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Fault: llmtest.Fault{Status: http.StatusUnauthorized,
			Message: "Incorrect API key provided: " + c.Header.Get("Authorization")}}
	})
	out, err = runCmd(train, "-run", "run2", "-iterations", "1", "-per-type", "0")
	if err == nil {
		t.Fatalf("train with a refused key succeeded:\n%s", out)
	}
	if !strings.Contains(out, "not authorized") {
		t.Errorf("refused key: output does not say so:\n%s", out)
	}
	outputs = append(outputs, out)

	for i, o := range outputs {
		if strings.Contains(o, canary) {
			t.Errorf("output %d contains the API key:\n%s", i, o)
		}
	}
	grepTree(t, work, canary)
	ents, _ := os.ReadDir(work)
	for _, e := range ents {
		if e.Name() != "run" && e.Name() != "run2" {
			t.Errorf("the commands wrote %s outside the run directory", e.Name())
		}
	}
	b, err := os.ReadFile(dump)
	if err != nil || !bytes.Contains(b, []byte("# pid")) {
		t.Fatalf("no environment process dumped its environment: %v", err)
	}
	if bytes.Contains(b, []byte(canary)) {
		t.Errorf("an environment process inherited the API key:\n%s", firstLineWith(string(b), canary))
	}
}

func firstLineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
