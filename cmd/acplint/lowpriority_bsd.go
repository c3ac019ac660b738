//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"os/exec"
	"syscall"
)

// lowerPriority gives this process the lowest priority, nice 19: here the
// nice value belongs to the process, all of its threads.
func lowerPriority() {
	syscall.Setpriority(syscall.PRIO_PROCESS, 0, 19)
}

// startNiced starts c: here the nice value belongs to the process, and
// the live linter lowers its own first thing.
func startNiced(c *exec.Cmd, exited <-chan struct{}) error { return c.Start() }
