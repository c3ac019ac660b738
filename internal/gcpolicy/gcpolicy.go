// Package gcpolicy sets how eagerly acplint's garbage collector runs.
//
// Linting keeps a small live heap (a few MiB, whatever the transcript's
// length) and allocates quickly. Under Go's default GOGC=100 the collector
// runs each time the heap doubles, every few MiB, and takes about a
// quarter of the CPU. acplint instead gives the process a memory budget:
// GOGC=400 with a soft memory limit (Limit), so the collector runs when
// the process nears the budget rather than each time the heap grows. With
// the budget the 1 GB benchmark transcript stays near 30 MiB resident.
//
// A memory limit alone would make the collector run back to back if the
// live heap itself approached the limit (a 50 MB message, thousands of
// open sessions). After each collection the limit is raised, when needed,
// to twice the live heap plus room for the runtime, so the collector never
// runs more often than GOGC=100 would make it.
package gcpolicy

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

const (
	// Percent is the GOGC acplint runs with when the user has not set
	// GOGC or GOMEMLIMIT.
	Percent = 400
	// Limit is the soft memory limit, in bytes of memory the Go runtime
	// holds; the process adds about 4 MiB of code and data to it.
	Limit = 27 << 20
	// runtimeRoom is what limitFor adds to twice the live heap for stacks
	// and the runtime's own data.
	runtimeRoom = 4 << 20
)

// Apply sets the collector to Percent and Limit unless the environment
// sets GOGC or GOMEMLIMIT, which are the user's choice; restore puts back
// what was there before.
func Apply() (restore func()) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			return func() {}
		}
	}
	previousPercent := debug.SetGCPercent(Percent)
	previousLimit := debug.SetMemoryLimit(Limit)
	f := &follower{}
	f.arm()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stopped = true
		debug.SetMemoryLimit(previousLimit)
		debug.SetGCPercent(previousPercent)
	}
}

// limitFor is the memory limit for a live heap of live bytes.
func limitFor(live uint64) int64 {
	return max(Limit, int64(2*live+runtimeRoom))
}

// follower moves the memory limit with the live heap after every
// collection, until Apply's restore stops it.
type follower struct {
	mu      sync.Mutex
	stopped bool
}

// sentinel is an object that nothing references: the collector finds it
// unreachable in the next cycle and runs its finalizer. It is larger than
// the tiny allocator's blocks, which may hold several objects and so keep
// a finalizer from running.
type sentinel [32]byte

// arm asks to run after the next collection.
func (f *follower) arm() {
	runtime.SetFinalizer(new(sentinel), func(*sentinel) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.stopped {
			return
		}
		debug.SetMemoryLimit(limitFor(liveHeap()))
		f.arm()
	})
}

// liveHeap returns the bytes the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
