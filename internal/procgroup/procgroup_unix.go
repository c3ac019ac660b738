//go:build unix

package procgroup

import "syscall"

// Attr starts a process as the leader of a new process group; on Linux the
// kernel also kills it when its parent dies without the chance to stop it
// (SIGKILL, the OOM killer). The parent-death signal reaches the leader
// only, not its children: signalling the group is what stops those.
func Attr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(attr)
	return attr
}

// Signal sends sig to every process of the group led by pid, or to pid
// alone when it leads no group.
func Signal(pid int, sig syscall.Signal) {
	if err := syscall.Kill(-pid, sig); err != nil {
		_ = syscall.Kill(pid, sig)
	}
}

// Alive reports whether any process of the group led by pid is left.
func Alive(pid int) bool {
	return syscall.Kill(-pid, 0) == nil
}
