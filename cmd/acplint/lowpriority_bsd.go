//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package main

import "syscall"

// lowerPriority gives this process the lowest priority, nice 19: here the
// nice value belongs to the process, all of its threads.
func lowerPriority() {
	syscall.Setpriority(syscall.PRIO_PROCESS, 0, 19)
}
