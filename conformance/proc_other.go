//go:build !unix

package conformance

import (
	"os"
	"os/exec"
)

var (
	sigTerm = os.Interrupt
	sigKill = os.Kill
)

// setProcessGroup does nothing where process groups do not exist.
func setProcessGroup(*exec.Cmd) {}

// signalGroup signals the agent process itself.
func signalGroup(cmd *exec.Cmd, sig os.Signal) {
	if cmd.Process == nil {
		return
	}
	if sig == os.Kill {
		_ = cmd.Process.Kill()
		return
	}
	_ = cmd.Process.Signal(sig)
}
