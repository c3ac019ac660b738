package conformance

import (
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestRunDelaySampleBoundedByThreads: an agent with more threads than
// maxThreads (a hostile one spawns tens of thousands) costs each sample
// of its run delay, taken every stallTick for a whole run, and each
// settle's look at whether it has work in hand, at most maxThreads
// threads' /proc files, not one per thread it has.
func TestRunDelaySampleBoundedByThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts thousands of threads")
	}
	// This process, with more than maxThreads threads, is the agent.
	release := make(chan struct{})
	var started sync.WaitGroup
	for range maxThreads + 200 {
		started.Add(1)
		go func() {
			runtime.LockOSThread() // a thread of its own, ended with the goroutine
			started.Done()
			<-release
		}()
	}
	started.Wait()
	defer close(release)
	visited := 0
	eachThread(os.Getpid(), func(string, int) bool {
		visited++
		return false
	})
	if visited > maxThreads {
		t.Errorf("a sample visited %d threads, more than maxThreads (%d)", visited, maxThreads)
	}
	start := time.Now()
	var r runDelays
	r.sample(os.Getpid())
	runnable(os.Getpid())
	t.Logf("a sample and a look at %d+ threads took %v", maxThreads+200, time.Since(start))
}

// TestOutsideLoadLeavesOutTheTreesOwn: the load that may stretch a wait
// is the CPU time the rest of the machine took on the tree's CPUs, per
// CPU; the tree's own does not count.
func TestOutsideLoadLeavesOutTheTreesOwn(t *testing.T) {
	from := cpuUse{ok: true, busy: 10 * time.Second, cpus: 2, mask: 3, busyAll: 20 * time.Second, allCPUs: 4, own: time.Second}
	for _, tc := range []struct {
		name string
		to   cpuUse
		want time.Duration
		ok   bool
	}{
		// Over a second, both CPUs busy, the tree on them all the time:
		// it waited for itself.
		{"own threads", cpuUse{ok: true, busy: 12 * time.Second, cpus: 2, mask: 3, busyAll: 22 * time.Second, allCPUs: 4, own: 3 * time.Second}, 0, true},
		// Both busy, the tree on them half the time.
		{"outside load", cpuUse{ok: true, busy: 12 * time.Second, cpus: 2, mask: 3, busyAll: 24 * time.Second, allCPUs: 4, own: 2 * time.Second}, 500 * time.Millisecond, true},
		// Moved to other CPUs: the machine's average.
		{"moved", cpuUse{ok: true, busy: 12 * time.Second, cpus: 1, mask: 4, busyAll: 24 * time.Second, allCPUs: 4, own: 2 * time.Second}, 750 * time.Millisecond, true},
		// A process left the tree with its CPU time.
		{"left", cpuUse{ok: true, busy: 12 * time.Second, cpus: 2, mask: 3, busyAll: 24 * time.Second, allCPUs: 4, own: 0}, time.Second, true},
		{"unread", cpuUse{}, 0, false},
		{"hotplug", cpuUse{ok: true, busy: 12 * time.Second, cpus: 2, mask: 3, busyAll: 24 * time.Second, allCPUs: 3}, 0, false},
	} {
		got, ok := tc.to.outsideSince(from)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: outsideSince = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestParseCPUStat: the busy time of the CPUs in the set, and of all,
// from /proc/stat's per-CPU lines (idle and iowait are not busy; steal
// is).
func TestParseCPUStat(t *testing.T) {
	const stat = "cpu  30 0 0 100 0 0 0 0 0 0\n" +
		"cpu0 10 1 2 50 7 3 4 5 0 0\n" +
		"cpu1 20 0 0 50 0 0 0 1 0 0\n" +
		"cpu3 1 0 0 50 0 0 0 0 0 0\n" +
		"intr 1 2 3\n"
	var set cpuSet
	set[0] = 1<<1 | 1<<3
	use, complete := parseCPUStat([]byte(stat), &set)
	if !complete || !use.ok {
		t.Fatalf("parseCPUStat: %+v, complete %v", use, complete)
	}
	tick := time.Second / userHZ
	if want := 22 * tick; use.busy != want || use.cpus != 2 {
		t.Errorf("busy %v on %d CPUs, want %v on 2", use.busy, use.cpus, want)
	}
	if want := (25 + 21 + 1) * tick; use.busyAll != want || use.allCPUs != 3 {
		t.Errorf("busy %v on %d CPUs in all, want %v on 3", use.busyAll, use.allCPUs, want)
	}
	if _, complete := parseCPUStat([]byte(stat[:40]), &set); complete {
		t.Errorf("a /proc/stat cut within its CPU lines reads as complete")
	}
}

// TestTreeCPUTime: a sample reads the CPU time the tree has used, as the
// process itself counts it.
func TestTreeCPUTime(t *testing.T) {
	var r runDelays
	r.sample(os.Getpid())
	before := r.use
	burnCPU(cpuTime() + 200*time.Millisecond)
	r.sample(os.Getpid())
	if !before.ok || !r.use.ok {
		t.Skipf("no CPU use read here: %+v", r.use)
	}
	// (The counters advance by hundredths of a second.)
	if used := r.use.own - before.own; used < 150*time.Millisecond {
		t.Errorf("the tree used %v of CPU time while it computed for 200ms", used)
	}
	if r.use.cpus == 0 || r.use.cpus > r.use.allCPUs || r.use.busy > r.use.busyAll {
		t.Errorf("implausible use of the CPUs: %+v", r.use)
	}
}
