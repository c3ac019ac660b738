//go:build !linux

package tap

// toBackground does nothing where a thread's priority is not its own.
func toBackground() {}
