//go:build !unix

package tap

import (
	"os"
	"syscall"
)

func agentProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup signals the agent alone: there are no process groups here.
func signalGroup(group int, sig syscall.Signal) {
	if p, err := os.FindProcess(group); err == nil {
		_ = p.Signal(sig)
	}
}

func groupAlive(int) bool { return false }
