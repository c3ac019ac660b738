// Package gcpolicy sets how eagerly acplint's garbage collector runs.
//
// Linting keeps a small live heap (a few MiB, whatever the transcript's
// length) and allocates quickly, so under Go's default GOGC=100 the
// collector runs every few MiB and takes about a quarter of the CPU.
// GOGC=200 lets the heap grow to three times the live heap between
// collections: linting is about a quarter faster, and the whole process
// stays near 30 MiB resident on a 1 GB transcript (GOGC=300 was faster
// still, by 7%, but crossed 32 MiB).
package gcpolicy

import (
	"os"
	"runtime/debug"
)

// Percent is the GOGC acplint runs with when the user has not set GOGC.
const Percent = 200

// Apply sets the collector to Percent unless the environment sets GOGC;
// restore puts back what was there before.
func Apply() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	previous := debug.SetGCPercent(Percent)
	return func() { debug.SetGCPercent(previous) }
}
