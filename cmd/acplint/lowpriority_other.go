//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package main

// lowerPriority does nothing where acplint knows no portable way to lower
// a process's priority: the live linter then competes with the forwarding
// as an equal, as it did in the tap's own process.
func lowerPriority() {}

// cpuStarved would say whether process pid was kept from the CPU;
// acplint knows no way to tell here.
func cpuStarved(int) func() bool { return nil }
