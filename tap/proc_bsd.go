//go:build unix && !linux

package tap

import "syscall"

// agentProcAttr starts the agent as the leader of a process group of its
// own, so that signals reach the processes a wrapper starts. These systems
// have no parent-death signal: an agent outlives a tap that is killed, and
// sees the end of its stdin.
func agentProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
