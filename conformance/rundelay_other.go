//go:build !linux

package conformance

// sample does nothing: only Linux tells a process's run delay here, and
// elsewhere the harness's own lateness measures the load alone.
func (r *runDelays) sample(int) {}

// runnable cannot tell whether the agent has work in hand: it might.
func runnable(int) bool { return true }
