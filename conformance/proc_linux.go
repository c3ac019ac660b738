package conformance

import "syscall"

// setParentDeathSignal has the kernel SIGKILL the agent when acplint
// dies. It reaches the agent process only, not its children; the close
// ladder, which signals the whole group, is what stops those.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
