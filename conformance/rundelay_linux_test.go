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
