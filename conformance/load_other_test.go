//go:build !linux

package conformance

// loadAgent exists on Linux only, where the load tests run.
func loadAgent(string) int { return 2 }
