//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package main

import "syscall"

// lowerPriority gives this process the lowest priority, nice 19: here the
// nice value belongs to the process, all of its threads.
func lowerPriority() {
	syscall.Setpriority(syscall.PRIO_PROCESS, 0, 19)
}

// cpuStarved would say whether process pid was kept from the CPU;
// acplint knows no way to tell here.
func cpuStarved(int) func() bool { return nil }
