package tap

import "syscall"

// agentProcAttr starts the agent as the leader of a process group of its
// own, so that signals reach the processes a wrapper (a shell script, npx,
// go run) starts, and so that the kernel kills the agent if the tap dies
// without a chance to (SIGKILL, OOM killer).
func agentProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
