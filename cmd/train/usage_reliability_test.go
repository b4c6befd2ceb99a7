package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadFlagsExitTwo: malformed or contradictory flags are refused by the
// built command with exit code 2 and a message naming the flag, and nothing
// is written.
func TestBadFlagsExitTwo(t *testing.T) {
	bin := binary(t, "train")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-workers", "0"}, "-workers"},
		{[]string{"-method", "nosuch"}, `unknown method "nosuch"`},
		{[]string{"-env", "zmachine", "-game", "/nonexistent/game.z8"}, "-game"},
		{[]string{"-env", "nowhere"}, `unknown environment "nowhere"`},
		{[]string{"-llm", "openai"}, "-chat-model"},
		{[]string{"-threshold", "1.5"}, "-threshold"},
		{[]string{"-ablation", "no-memory"}, "-ablation"},
		{[]string{"-no-such-flag"}, "no-such-flag"},
		{[]string{"extra-argument"}, "unexpected argument"},
	} {
		run := filepath.Join(t.TempDir(), "run")
		out, err := exec.Command(bin, append([]string{"-run", run}, tc.args...)...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("train %v: %v, want exit code 2\n%s", tc.args, err, out)
			continue
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("train %v said %q, want it to name %q", tc.args, out, tc.want)
		}
		if _, err := os.Stat(run); err == nil {
			t.Errorf("train %v created the run directory", tc.args)
		}
	}
}

// TestEnvironmentCommandWithoutShell: the -env-cmd program is started
// without a shell, so shell syntax in it is passed as plain arguments and
// never run.
func TestEnvironmentCommandWithoutShell(t *testing.T) {
	bin := binary(t, "train")
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	dir := t.TempDir()
	mark := filepath.Join(dir, "MARK")
	cmd := exec.Command(bin, "-run", filepath.Join(dir, "run"), "-env", "jsonl", "-env-cmd", echo+" hello ; touch "+mark+" && touch "+mark)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("train with an echo environment succeeded:\n%s", out)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("%s was created: the environment command went through a shell\n%s", mark, out)
	}
}
