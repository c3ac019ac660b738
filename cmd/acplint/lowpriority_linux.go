package main

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// schedIdle is Linux's SCHED_IDLE policy: the thread runs only when no
// thread of another policy wants the core, and yields it at once when one
// wakes.
const schedIdle = 5

// lowerPriority gives every thread of this process the lowest priority:
// SCHED_IDLE, or nice 19 where that policy is refused. On Linux both
// belong to each thread, not to the process, and a new thread inherits
// its creator's, so once every thread has them, every thread the runtime
// starts later has them too. A thread started while the first ones are
// set may have been created by one not yet set: the list is read again
// until it holds no thread not yet set.
func lowerPriority() {
	set := map[int]bool{}
	for {
		dir, err := os.Open("/proc/self/task")
		if err != nil {
			lowerThreadPriority(0) // this thread at least
			return
		}
		names, err := dir.Readdirnames(-1)
		dir.Close()
		if err != nil {
			return
		}
		fresh := false
		for _, name := range names {
			tid, err := strconv.Atoi(name)
			if err != nil || set[tid] {
				continue
			}
			set[tid], fresh = true, true
			lowerThreadPriority(tid)
		}
		if !fresh {
			return
		}
	}
}

// lowerThreadPriority lowers the priority of thread tid (0: the calling
// one).
func lowerThreadPriority(tid int) {
	// Nice first: it is what counts should the policy be refused, or
	// later reset.
	syscall.Setpriority(syscall.PRIO_PROCESS, tid, 19)
	var param struct{ priority int32 }
	syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedIdle, uintptr(unsafe.Pointer(&param)))
}
