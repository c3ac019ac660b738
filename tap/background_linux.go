package tap

import (
	"runtime"
	"syscall"
)

// backgroundNice is the nice value of a Background observer's thread:
// enough that a core the forwarding wants is the forwarding's (at nice 19
// the forwarding gained no more), not so much that the recorder starves
// on a machine kept busy: its share of a core against one at nice 0 is a
// tenth, not a seventieth.
const backgroundNice = 10

// toBackground gives the calling goroutine a thread of its own at a lower
// CPU priority, for as long as it runs (the thread ends with it). On Linux
// the nice value belongs to each thread; threads the runtime starts while
// this goroutine runs are made by its template thread, not this one, so
// they keep the process's priority.
func toBackground() {
	runtime.LockOSThread()
	syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), backgroundNice)
}
