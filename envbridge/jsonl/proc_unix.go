//go:build unix

package jsonl

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the environment process in its own process group, so that killing
// the group also ends a wrapper's child (a wrapper script may fork
// the real environment).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group of a started command.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
