//go:build !unix

package procgroup

import (
	"os"
	"syscall"
)

// Attr is nil where process groups do not exist.
func Attr() *syscall.SysProcAttr { return nil }

// Signal signals the process itself: there are no groups here.
func Signal(pid int, sig syscall.Signal) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	if sig == syscall.SIGKILL {
		_ = p.Kill()
		return
	}
	_ = p.Signal(sig)
}

// Alive reports false: there is no group to outlive the process.
func Alive(int) bool { return false }
