//go:build unix

// Package procgroup starts environment child processes in their own process
// group and kills the whole group, so that a wrapper script that forks the
// real program (an interpreter, a Python environment server) leaves nothing
// behind.
package procgroup

import (
	"os/exec"
	"syscall"
)

// Set makes cmd start in its own process group. Call it before cmd.Start.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Kill kills the process group of a started command, and the command.
func Kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
