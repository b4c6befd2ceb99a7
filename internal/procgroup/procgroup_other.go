//go:build !unix

package procgroup

import "os/exec"

// Set does nothing where there are no process groups.
func Set(cmd *exec.Cmd) {}

// Kill kills the command.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
