// Package gcpolicy sets how eagerly acplint's garbage collector runs.
//
// Linting keeps a small live heap (a few MiB, whatever the transcript's
// length) and allocates quickly, so under Go's default GOGC=100 the
// collector runs every few MiB and takes about a quarter of the CPU. Four
// times the live heap between collections instead costs a few MiB more at
// the peak and makes linting about a third faster.
package gcpolicy

import (
	"os"
	"runtime/debug"
)

// Percent is the GOGC acplint runs with when the user has not set GOGC.
const Percent = 300

// Apply sets the collector to Percent unless the environment sets GOGC;
// restore puts back what was there before.
func Apply() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	previous := debug.SetGCPercent(Percent)
	return func() { debug.SetGCPercent(previous) }
}
