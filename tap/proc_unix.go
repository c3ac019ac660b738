//go:build unix

package tap

import "syscall"

// signalGroup sends sig to every process of the agent's group.
func signalGroup(group int, sig syscall.Signal) {
	_ = syscall.Kill(-group, sig)
}

// groupAlive reports whether any process of the group is left.
func groupAlive(group int) bool {
	return syscall.Kill(-group, 0) == nil
}
